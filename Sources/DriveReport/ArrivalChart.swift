import FoundationEssentials
import Glibc
import NavigationCore

/// How far off the arrival estimate was, state by state, against when the vehicle really arrived: navd's arrival
/// at the driver's pace (`trip_state.arrival`) next to the engine's own (the fix time plus its remaining duration),
/// in minutes early (below zero) or late (above). Only for a recording whose trip arrived and whose states carry
/// navd's estimate.
struct ArrivalChart {
    let log: DriveLog
    let width = 960.0
    let height = 180.0
    let left = 44.0, right = 16.0, top = 12.0, bottom = 28.0

    init(_ log: DriveLog) { self.log = log }

    /// Minutes each estimate was off, by recording time: (navd, engine).
    var errors: (navd: [(Double, Double)], engine: [(Double, Double)]) {
        guard let arrived = log.arrival.flatMap({ ISO8601Timestamp.parse($0.arrivedAt)?.timeIntervalSinceReferenceDate }) else { return ([], []) }
        var navd: [(Double, Double)] = [], engine: [(Double, Double)] = []
        for state in log.states where state.navigating {
            if let estimate = state.arrivalTime { navd.append((state.at, (estimate - arrived) / 60)) }
            if let fixTime = state.fixTime, let remaining = state.durationRemaining { engine.append((state.at, (fixTime + remaining - arrived) / 60)) }
        }
        return (navd, engine)
    }

    /// The chart, or nil when there is nothing to compare.
    func svg() -> String? {
        let (navd, engine) = errors
        guard navd.count > 1 else { return nil }
        let span = max(navd.last!.0, engine.last?.0 ?? 0, 1)
        let start = min(navd.first!.0, engine.first?.0 ?? navd.first!.0)
        let extent = max(1, (navd + engine).map { abs($0.1) }.max() ?? 1) * 1.1
        func x(_ t: Double) -> Double { left + (t - start) / max(1, span - start) * (width - left - right) }
        func y(_ v: Double) -> Double { top + (extent - v) / (2 * extent) * (height - bottom - top) }
        func line(_ values: [(Double, Double)], _ cssClass: String, _ title: String) -> String {
            HTML.polyline(values, cssClass: cssClass, title: title, x: x, y: y)
        }
        var parts = [#"<rect class="background" width="100%" height="100%"/>"#]
        parts.append(#"<line class="zero" x1="\#(left)" x2="\#(width - right)" y1="\#(HTML.number(y(0)))" y2="\#(HTML.number(y(0)))"/>"#)
        parts.append(#"<line class="axis" x1="\#(left)" x2="\#(left)" y1="\#(top)" y2="\#(HTML.number(height - bottom))"/>"#)
        parts.append(line(engine, "engine", "the engine's estimate, minutes late (+) or early (−)"))
        parts.append(line(navd, "navd", "navd's estimate at the driver's pace, minutes late (+) or early (−)"))
        for v in [-extent, 0, extent] {
            parts.append(#"<text x="4" y="\#(HTML.number(y(v) + 4))">\#(HTML.number((v * 10).rounded() / 10))</text>"#)
        }
        for fraction in [0.0, 0.5, 1.0] {
            let t = start + (span - start) * fraction
            parts.append(#"<text x="\#(HTML.number(x(t) - 10))" y="\#(HTML.number(height - 10))">\#(DriveReportPage.clock(t).split(separator: ".")[0])</text>"#)
        }
        parts.append(#"<text x="\#(HTML.number(width - 420))" y="\#(top + 12)">— navd (driver's pace)   - - engine   minutes off the real arrival</text>"#)
        return #"<svg id="arrival-chart" viewBox="0 0 \#(CheckedNumber.clampedWhole(width, rounding: .towardZero)) \#(CheckedNumber.clampedWhole(height, rounding: .towardZero))" role="img" aria-label="arrival estimates against the real arrival">"#
            + parts.joined() + "</svg>"
    }
}
