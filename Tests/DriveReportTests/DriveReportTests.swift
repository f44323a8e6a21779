@testable import DriveReport
import Foundation
import NavigationCore
import NavigationProtocol
import Testing

/// The report's model and page, from a golden recording of a real drive through navd (a missed turn, a
/// deviation, a reroute, arrival) and from small made-up recordings.
@Suite struct DriveReportTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func golden(_ name: String) throws -> String {
        try String(
            contentsOf: repoRoot.appendingPathComponent("Tests/NavigationDaemonTests/Fixtures/Recordings/\(name).jsonl"), encoding: .utf8)
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func theMissedTurnDriveHasBothRoutesTheDeviationAndTheArrival() throws {
        let text = try Self.golden("valhalla-missed-turn")
        let log = try DriveLog(recording: [text])
        #expect(log.routes.map(\.reason) == ["initial", "reroute"])
        #expect(log.routes.allSatisfy { $0.geometry.count > 10 })
        #expect(log.deviations.count == 1)
        #expect(log.deviations.first?.location != nil, "a deviation is drawn where the vehicle was")
        #expect(log.fixes.count == Self.count(#"{"rec":"fix""#, in: text))
        #expect(log.stepAdvances.count >= 3)
        #expect(log.sessions.map(\.outcome) == ["succeeded", "succeeded"])
        #expect(log.sessions.map(\.purpose) == ["initial", "reroute"])
        let summary = DriveSummary(log)
        #expect(summary.arrived && summary.reroutes == 1 && summary.deviations == 1)
        let arrived = try #require(log.arrival?.distanceTravelled)
        #expect(summary.distanceDriven == arrived)
        #expect(summary.fixRate > 0.9 && summary.fixRate < 1.1, "the simulator sends one fix per receiver second: \(summary.fixRate)")
    }

    /// The arrival estimates against the real arrival: navd's at the driver's pace and the engine's, both drawn;
    /// navd's is within a minute of the truth at the end of the drive; a recording without navd's estimate (made
    /// by a navd before it) has no such chart.
    @Test func theArrivalEstimateIsComparedWithTheRealArrival() throws {
        let text = try Self.golden("valhalla-missed-turn")
        let log = try DriveLog(recording: [text])
        let navd = ArrivalChart(log).errors.navd, engine = ArrivalChart(log).errors.engine
        #expect(navd.count > 10 && engine.count == navd.count, "\(navd.count) navd and \(engine.count) engine estimates")
        let last = try #require(navd.last)
        #expect(abs(last.1) < 1, "navd's last estimate was \(last.1) minutes off")
        let html = DriveReportPage.html(log, title: "t")
        #expect(html.contains(#"<svg id="arrival-chart""#) && Self.count(#"<polyline class="navd""#, in: html) == 1 && Self.count(#"<polyline class="engine""#, in: html) == 1)

        let withoutEstimates = text.split(separator: "\n").map { line in
            guard let range = line.range(of: #""arrival":{"#) else { return String(line) }
            // Drop the object: its nesting is one list of flat objects, so the first "]}" closes it.
            let rest = line[range.lowerBound...]
            guard let end = rest.range(of: "]},") else { return String(line) }
            return String(line[..<range.lowerBound] + line[end.upperBound...])
        }.joined(separator: "\n")
        #expect(!withoutEstimates.contains(#""arrival":{"#))
        let old = try DriveLog(recording: [withoutEstimates])
        #expect(ArrivalChart(old).svg() == nil)
        let oldPage = DriveReportPage.html(old, title: "t")
        #expect(!oldPage.contains(#"<svg id="arrival-chart""#) && !oldPage.contains(#"<section id="arrival">"#))
    }

    @Test func thePageIsSelfContainedAndDrawsEveryPart() throws {
        let log = try DriveLog(recording: [try Self.golden("valhalla-missed-turn")])
        let html = DriveReportPage.html(log, title: "t")
        for needle in ["<script", " src=", "href=", "@import", "url("] {
            #expect(!html.contains(needle), "the page would load something: \(needle)")
        }
        #expect(html.contains(#"<svg id="map""#) && html.contains(#"<svg id="chart""#))
        #expect(Self.count(#"class="route route-"#, in: html) == 2)
        #expect(Self.count(#"<g class="deviation""#, in: html) == 1)
        #expect(Self.count(#"<g class="reroute""#, in: html) == 1)
        #expect(Self.count(#"<line class="reroute""#, in: html) == 1, "the reroute on the chart")
        #expect(Self.count(#"<g class="step-advance""#, in: html) == log.stepAdvances.count)
        #expect(html.contains(#"class="raw-track""#) && html.contains(#"class="snapped-track""#))
        #expect(html.contains(#"class="start""#) && html.contains(#"class="destination""#))
        #expect(Self.count("<tr class=", in: html) == log.timeline.count + log.sessions.count)
    }

    @Test func aStopOnTheWayIsDrawnAndCounted() throws {
        let log = try DriveLog(recording: [try Self.golden("osrm-via-noise-2hz")])
        #expect(log.waypointsReached.count == 1)
        let html = DriveReportPage.html(log, title: "t")
        #expect(Self.count(#"<g class="waypoint""#, in: html) == 1)
        let summary = DriveSummary(log)
        #expect(try #require(summary.accuracyP95) >= 3, "3 m of noise is reported as such")
    }

    /// A real drive through a 10 km/h stretch at 40 km/h: its speed alerts in the timeline and on the chart, a red
    /// band for each stretch of trip states whose alert was major.
    @Test func speedAlertsAreInTheTimelineAndOnTheChart() throws {
        let text = try Self.golden("record-command-mid-run")
        let log = try DriveLog(recording: [text])
        #expect(log.speedAlerts.count == Self.count(#"{"type":"speed_alert""#, in: text))
        #expect(log.speedAlerts.contains { $0.text.hasPrefix("speed alert major: 40 km/h where the limit is 10 km/h") }, "\(log.speedAlerts.map(\.text))")
        #expect(log.speedAlerts.contains { $0.text.hasPrefix("slow down: 10 km/h in ") })
        #expect(log.speedAlerts.last?.text == "speed alert cleared")
        let html = DriveReportPage.html(log, title: "t")
        var stretches = 0, previous: String?
        for state in log.states {
            if state.speedAlert == "major", previous != "major" { stretches += 1 }
            previous = state.speedAlert
        }
        #expect(stretches >= 1)
        #expect(Self.count(#"<rect class="speed-major""#, in: html) == stretches)
        #expect(html.contains("speed alert major: 40 km/h"))
    }

    @Test func textFromTheRecordingIsEscaped() throws {
        // The instruction line exactly as navd would send it.
        let spoken = SpokenInstruction(text: "Turn <left> & go", triggerDistanceBeforeManeuver: 50, utteranceId: "u1")
        let event = EventMessage(seq: 1, routeId: "r-1", event: .instruction(.spoken(spoken, stepIndex: 0)))
        let recording = """
            {"rec":"header","format":1,"created":"x","config":{"text":"a = \\"<b>\\""}}
            {"rec":"tick","now":1}
            \(String(decoding: event.line, as: UTF8.self))
            """
        let html = DriveReportPage.html(try DriveLog(recording: [recording]), title: "<title>")
        #expect(html.contains("voice: Turn &lt;left&gt; &amp; go"))
        #expect(html.contains("a = &quot;&lt;b&gt;&quot;"))
        #expect(!html.contains("<left>") && !html.contains("<title><title>"))
    }

    @Test func somethingThatIsNotARecordingIsRefused() {
        #expect(throws: DriveLog.NotARecording.self) { try DriveLog(recording: [#"{"type":"hello"}"#]) }
    }

    @Test(arguments: [([1.0, 2, 3, 4], 0.5, 2.0), ([1.0, 2, 3, 4], 0.95, 4.0), ([7.0], 0.5, 7.0), ([], 0.5, nil)] as [([Double], Double, Double?)])
    func percentilesAreNearestRank(_ values: [Double], _ fraction: Double, _ expected: Double?) {
        #expect(DriveSummary.percentile(values, fraction) == expected)
    }
}
