import FoundationEssentials
import Glibc
import NavigationCore

/// Fix accuracy (metres) and speed (m/s) against time, with the stretches navd called off route shaded and
/// reroutes marked: where GNSS quality and navd's decisions meet.
struct ReportChart {
    let log: DriveLog
    let width = 960.0
    let height = 220.0
    let left = 44.0, right = 16.0, top = 12.0, bottom = 28.0

    init(_ log: DriveLog) { self.log = log }

    func svg() -> String {
        let span = max(log.span, log.fixes.last?.at ?? 0, 1)
        let maxAccuracy = max(log.fixes.map(\.accuracy).max() ?? 1, 1)
        let maxSpeed = max(log.fixes.compactMap(\.speed).max() ?? 1, 1)
        let top = max(maxAccuracy, maxSpeed) * 1.1
        func x(_ t: Double) -> Double { left + t / span * (width - left - right) }
        func y(_ v: Double) -> Double { height - bottom - v / top * (height - bottom - self.top) }
        var parts: [String] = [#"<rect class="background" width="100%" height="100%"/>"#]
        // Off-route stretches.
        var offStart: Double?
        for state in log.states {
            if state.offRoute, offStart == nil { offStart = state.at }
            if !state.offRoute, let start = offStart {
                parts.append(#"<rect class="off-route" x="\#(HTML.number(x(start)))" y="\#(self.top)" width="\#(HTML.number(max(1, x(state.at) - x(start))))" height="\#(HTML.number(height - bottom - self.top))"><title>off route</title></rect>"#)
                offStart = nil
            }
        }
        // Speed alerts: a band along the top, amber for minor, red for major.
        var alertStart: (at: Double, level: String)?
        for state in log.states + [DriveLog.State(at: span, navigating: false, offRoute: false, predicted: false)] {
            if let open = alertStart, open.level != state.speedAlert {
                parts.append(#"<rect class="speed-\#(open.level)" x="\#(HTML.number(x(open.at)))" y="\#(self.top)" width="\#(HTML.number(max(1, x(state.at) - x(open.at))))" height="8"><title>speed alert \#(open.level)</title></rect>"#)
                alertStart = nil
            }
            if alertStart == nil, let level = state.speedAlert { alertStart = (state.at, level) }
        }
        for route in log.routes where route.reason == "reroute" {
            parts.append(#"<line class="reroute" x1="\#(HTML.number(x(route.at)))" x2="\#(HTML.number(x(route.at)))" y1="\#(self.top)" y2="\#(HTML.number(height - bottom))"><title>reroute \#(HTML.escape(route.routeId))</title></line>"#)
        }
        func line(_ values: [(Double, Double)], _ cssClass: String, _ title: String) -> String {
            HTML.polyline(values, cssClass: cssClass, title: title, x: x, y: y)
        }
        parts.append(line(log.fixes.map { ($0.at, $0.accuracy) }, "accuracy", "accuracy, m (68%)"))
        parts.append(line(log.fixes.compactMap { fix in fix.speed.map { (fix.at, $0) } }, "speed", "speed, m/s"))
        // Axes with a few labels.
        parts.append(#"<line class="axis" x1="\#(left)" x2="\#(width - right)" y1="\#(HTML.number(height - bottom))" y2="\#(HTML.number(height - bottom))"/>"#)
        parts.append(#"<line class="axis" x1="\#(left)" x2="\#(left)" y1="\#(self.top)" y2="\#(HTML.number(height - bottom))"/>"#)
        for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let t = span * fraction
            parts.append(#"<text x="\#(HTML.number(x(t) - 10))" y="\#(HTML.number(height - 10))">\#(DriveReportPage.clock(t).split(separator: ".")[0])</text>"#)
            let v = top * fraction
            parts.append(#"<text x="4" y="\#(HTML.number(y(v) + 4))">\#(HTML.number(v))</text>"#)
        }
        parts.append(#"<text x="\#(HTML.number(width - 390))" y="\#(self.top + 12)">— accuracy (m)   — speed (m/s)   ▮ off route   | reroute   ▬ speed alert</text>"#)
        return #"<svg id="chart" viewBox="0 0 \#(CheckedNumber.clampedWhole(width, rounding: .towardZero)) \#(CheckedNumber.clampedWhole(height, rounding: .towardZero))" role="img" aria-label="GNSS accuracy and speed over time">"#
            + parts.joined() + "</svg>"
    }
}
