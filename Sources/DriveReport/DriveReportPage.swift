import FoundationEssentials
import Glibc
import NavigationCore

/// One self-contained HTML page for a recorded drive: no scripts, no fonts or images from anywhere else, so it
/// opens the same on a laptop in the field and in a browser without a network.
public enum DriveReportPage {
    public static func html(_ log: DriveLog, title: String) -> String {
        let summary = DriveSummary(log)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            <header><h1>\(HTML.escape(title))</h1>
            <p class="meta">recorded \(HTML.escape(log.created)) by navd \(HTML.escape(log.navdVersion)) (\(HTML.escape(log.reason == "config" ? "from navd's start" : "started on request")))</p></header>
            <section id="summary"><h2>Summary</h2>\(cards(summary))</section>
            <section id="map-section"><h2>Map</h2>\(ReportMap(log).svg(log))\(legend(log))</section>
            <section id="quality"><h2>GNSS quality and speed</h2>\(ReportChart(log).svg())</section>
            \(ArrivalChart(log).svg().map { "<section id=\"arrival\"><h2>Arrival estimate</h2>\($0)</section>" } ?? "")
            <section id="timeline"><h2>Timeline</h2>\(timeline(log))</section>
            <section id="sessions"><h2>Route calculations</h2>\(sessions(log))</section>
            <section id="configuration"><h2>Configuration</h2><pre>\(HTML.escape(log.configuration))</pre></section>
            </body>
            </html>

            """
    }

    static func cards(_ s: DriveSummary) -> String {
        func card(_ id: String, _ label: String, _ value: String) -> String {
            #"<div class="card" id="\#(id)"><div class="value">\#(HTML.escape(value))</div><div class="label">\#(HTML.escape(label))</div></div>"#
        }
        func metres(_ value: Double?) -> String { value.map { "\(HTML.number($0)) m" } ?? "–" }
        let items = [
            card("distance", "driven", HumanReadable.distance(s.distanceDriven)),
            card("duration", s.arrived ? "to arrival" : "recorded", HumanReadable.duration(s.tripDuration ?? s.recordingSeconds)),
            card("arrived", "arrived", s.arrived ? "yes" : "no"),
            card("reroutes", "reroutes", "\(s.reroutes)"),
            card("deviations", "times off route", "\(s.deviations)"),
            card("off-route", "off route", HumanReadable.duration(s.secondsOffRoute)),
            card("fix-rate", "fixes per second", HTML.number(s.fixRate)),
            card("fixes", "fixes (no-fix epochs)", "\(s.fixes) (\(s.noFixEpochs))"),
            card("accuracy", "accuracy p50 / p95 / worst", "\(metres(s.accuracyMedian)) / \(metres(s.accuracyP95)) / \(metres(s.accuracyWorst))"),
            card("calculations", "calculations (failed)", "\(s.sessions) (\(s.failedSessions))"),
            card("predicted", "states predicted in outages", "\(s.predictedStates)"),
        ]
        return #"<div class="cards">"# + items.joined() + "</div>"
    }

    static func legend(_ log: DriveLog) -> String {
        var items: [String] = []
        for (index, route) in log.routes.enumerated() {
            let color = ReportMap.routeColors[index % ReportMap.routeColors.count]
            items.append(#"<li><span class="swatch" style="background:\#(color)"></span>route \#(HTML.escape(route.routeId)) (\#(HTML.escape(route.reason)))</li>"#)
        }
        items += [
            #"<li><span class="swatch raw"></span>raw track (fixes)</li>"#,
            #"<li><span class="swatch snapped"></span>snapped track</li>"#,
            #"<li><span class="dot deviation"></span>off route</li>"#,
            #"<li><span class="dot reroute"></span>reroute starts</li>"#,
            #"<li><span class="dot step"></span>step advanced</li>"#,
            #"<li><span class="dot stop"></span>start, stops, destination</li>"#,
        ]
        return #"<ul class="legend">"# + items.joined() + "</ul>"
    }

    static func clock(_ seconds: Double) -> String {
        let whole = CheckedNumber.clampedWhole(seconds, rounding: .down)
        return String(cFormat: "%ld:%02ld.%ld", whole / 60, whole % 60, CheckedNumber.clampedWhole((seconds - Double(whole)) * 10, rounding: .towardZero))
    }

    static func timeline(_ log: DriveLog) -> String {
        let rows = log.timeline.map { event in
            #"<tr class="\#(event.type)"><td class="time">\#(clock(event.at))</td><td class="type">\#(HTML.escape(event.type))</td><td>\#(HTML.escape(event.text))</td></tr>"#
        }
        return #"<table><thead><tr><th>time (min:s)</th><th>event</th><th>what</th></tr></thead><tbody>"# + rows.joined() + "</tbody></table>"
    }

    static func sessions(_ log: DriveLog) -> String {
        guard !log.sessions.isEmpty else { return "<p>None.</p>" }
        let rows = log.sessions.map { s in
            let took = s.endedAt.map { "\(HTML.number(($0 - s.startedAt) * 1000)) ms" } ?? "–"
            return "<tr class=\"\(s.outcome)\"><td>\(s.session)</td><td>\(HTML.escape(s.purpose))</td><td>\(clock(s.startedAt))</td><td>\(took)</td>"
                + "<td>\(HTML.escape(s.outcome))</td><td>\(s.attempts)</td><td>\(HTML.escape(s.engine ?? "–"))</td><td>\(HTML.escape(s.detail ?? ""))</td></tr>"
        }
        return "<table><thead><tr><th>session</th><th>purpose</th><th>started</th><th>took</th><th>outcome</th><th>attempts</th><th>engine</th><th>error</th></tr></thead><tbody>"
            + rows.joined() + "</tbody></table>"
    }

    static let style = """
        body{font:14px/1.4 "DejaVu Sans",sans-serif;margin:24px;color:#111827;background:#fff;max-width:1000px}
        h1{font-size:22px;margin:0}h2{font-size:17px;margin:28px 0 8px}.meta{color:#4b5563;margin:4px 0}
        .cards{display:flex;flex-wrap:wrap;gap:8px}.card{border:1px solid #d1d5db;border-radius:6px;padding:8px 12px;min-width:130px}
        .card .value{font-size:18px;font-weight:bold}.card .label{color:#4b5563;font-size:12px}
        #map{width:100%;height:auto;border:1px solid #d1d5db;border-radius:6px}#map .background{fill:#f8fafc}
        #map .route{fill:none;stroke-width:9;stroke-opacity:.45;stroke-linecap:round;stroke-linejoin:round}
        #map .raw-track{fill:none;stroke-width:1.5;stroke-dasharray:3 2}#map .snapped-track{fill:none;stroke-width:2.5}
        #map .deviation{fill:#dc2626;stroke:#fff;stroke-width:2}#map .reroute{fill:#f97316;stroke:#fff;stroke-width:2}
        #map .step-advance{fill:#fff;stroke:#111827;stroke-width:1.5}#map .start{fill:#16a34a;stroke:#fff;stroke-width:2}
        #map .waypoint{fill:#0891b2;stroke:#fff;stroke-width:2}#map .destination{fill:#111827;stroke:#fff;stroke-width:2}
        #map .scale line{stroke:#111827;stroke-width:2}#map .scale text{font-size:12px;fill:#111827}
        .legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:14px;font-size:12px}
        .swatch{display:inline-block;width:18px;height:6px;margin-right:6px;vertical-align:middle}
        .swatch.raw{border-top:2px dashed #9ca3af;height:0}.swatch.snapped{background:#111827;height:3px}
        .dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;vertical-align:middle}
        .dot.deviation{background:#dc2626}.dot.reroute{background:#f97316}.dot.step{border:1.5px solid #111827}.dot.stop{background:#16a34a}
        #chart{width:100%;height:auto;border:1px solid #d1d5db;border-radius:6px}#chart .background{fill:#fff}
        #chart .accuracy{fill:none;stroke:#7c3aed;stroke-width:1.5}#chart .speed{fill:none;stroke:#0891b2;stroke-width:1.5}
        #chart .off-route{fill:#fecaca}#chart .speed-minor{fill:#f59e0b}#chart .speed-major{fill:#dc2626}#chart .reroute{stroke:#f97316;stroke-width:2}#chart .axis{stroke:#9ca3af}
        #chart text{font-size:11px;fill:#374151}
        #arrival-chart{width:100%;height:auto;border:1px solid #d1d5db;border-radius:6px}#arrival-chart .background{fill:#fff}
        #arrival-chart .navd{fill:none;stroke:#16a34a;stroke-width:1.5}#arrival-chart .engine{fill:none;stroke:#9ca3af;stroke-width:1.5;stroke-dasharray:4 3}
        #arrival-chart .axis{stroke:#9ca3af}#arrival-chart .zero{stroke:#111827}#arrival-chart text{font-size:11px;fill:#374151}
        table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #e5e7eb}
        td.time{font-variant-numeric:tabular-nums;white-space:nowrap}tr.deviation td,tr.failed td{color:#b91c1c}tr.route td{font-weight:bold}
        pre{background:#f3f4f6;padding:10px;border-radius:6px;font-size:12px;overflow:auto}
        """
}

/// Escaping and number formatting for the page.
enum HTML {
    /// An SVG polyline through `values` (x, y in the data's units) placed by `x` and `y`, with a tooltip; empty
    /// for fewer than two points.
    static func polyline(
        _ values: [(Double, Double)], cssClass: String, title: String, x: (Double) -> Double, y: (Double) -> Double
    ) -> String {
        guard values.count > 1 else { return "" }
        let points = values.map { "\(number(x($0.0))),\(number(y($0.1)))" }.joined(separator: " ")
        return #"<polyline class="\#(cssClass)" points="\#(points)"><title>\#(title)</title></polyline>"#
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// At most one decimal, no trailing ".0".
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(CheckedNumber.clampedWhole(rounded)) : String(rounded)
    }
}
