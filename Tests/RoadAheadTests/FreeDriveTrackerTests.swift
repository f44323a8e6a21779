import Foundation
import NavigationCore
import RoadAhead
import Testing

/// Free drive, fix by fix in fix time: when a match is asked for, what its answer says, and how long it holds.
struct FreeDriveTrackerTests {
    static let start = Date(timeIntervalSince1970: 1_795_241_290)
    static let origin = GeographicCoordinate(latitude: 60.17, longitude: 24.94)

    /// Fixes a second apart driving north at `speed` m/s (0: standing).
    static func fixes(_ count: Int, speed: Double, from second: Int = 0) -> [UserLocation] {
        (second..<(second + count)).map { i in
            UserLocation(
                coordinate: Geodesy.destination(from: origin, distance: speed * Double(i), bearing: 0), horizontalAccuracy: 4,
                course: CourseOverGround(degrees: 0), speed: Speed(metersPerSecond: speed), timestamp: start.addingTimeInterval(Double(i)))
        }
    }

    /// A matched route along the trace: one step on `road` posted `limit` km/h, the last stretch in a tunnel.
    static func matchedRoute(road: String, limit: Double, tunnel: Bool) -> Route {
        let points = (0...4).map { Geodesy.destination(from: origin, distance: 50 * Double($0), bearing: 0) }
        let features = tunnel ? [RoadFeature(location: points[2], classes: ["tunnel"], tunnelName: "Tunneli")] : []
        let step = RouteStep(
            geometry: points, distance: 200, duration: 20, roadName: road, instruction: "", maneuver: Maneuver(type: .depart, location: points[0]),
            annotations: SegmentAnnotations((0..<4).map { _ in SegmentAnnotation(values: ["maxspeed": ["speed": .number(limit), "unit": "km/h"]]) }),
            features: features)
        let arrive = RouteStep(geometry: [points[4], points[4]], distance: 0, duration: 0, instruction: "", maneuver: Maneuver(type: .arrive, location: points[4]))
        return Route(geometry: points, distance: 200, duration: 20, waypoints: [Waypoint(coordinate: points[0]), Waypoint(coordinate: points[4])], steps: [step, arrive])
    }

    @Test func aMatchIsAskedForOnceThereIsEnoughDrivingAndNeverTwiceAtOnce() {
        var tracker = FreeDriveTracker()
        let fixes = Self.fixes(40, speed: 15)
        var requests: [Int] = []
        for (i, fix) in fixes.enumerated() {
            if let trace = tracker.observe(fix) {
                requests.append(i)
                #expect(trace.count >= 3 && trace.last == fix)
                let length = zip(trace, trace.dropFirst()).reduce(0) { $0 + Geodesy.distance($1.0.coordinate, $1.1.coordinate) }
                #expect(length <= FreeDriveRules().window + 15, "a trace of \(length) m")
            }
        }
        // Never answered (a stalled engine): nothing more is asked while the first is out.
        #expect(requests == [2], "a second request while the first was out: \(requests)")
        var answered = FreeDriveTracker()
        requests = []
        for (i, fix) in fixes.enumerated() {
            if answered.observe(fix) != nil {
                requests.append(i)
                answered.matched(Self.matchedRoute(road: "Tie", limit: 50, tunnel: false), failure: nil)
            }
        }
        #expect(requests == [2, 12, 22, 32], "requests at fixes \(requests): one per free_drive.interval")
    }

    @Test func standingStillAsksNothing() {
        var tracker = FreeDriveTracker()
        #expect(Self.fixes(60, speed: 0).allSatisfy { tracker.observe($0) == nil })
    }

    @Test func theAnswerGivesTheRoadItsLimitAndTheTunnelAndHoldsForMaxAge() throws {
        var tracker = FreeDriveTracker()
        let fixes = Self.fixes(40, speed: 15)
        var asked: Date?
        for fix in fixes where asked == nil {
            if tracker.observe(fix) != nil { asked = fix.timestamp }
        }
        let time = try #require(asked)
        #expect(tracker.status(at: time) == .waiting)
        tracker.matched(Self.matchedRoute(road: "Mannerheimintie", limit: 40, tunnel: true), failure: nil)
        let match = try #require(tracker.current(at: time))
        #expect(match.roadName == "Mannerheimintie")
        #expect(match.limit?.value == 40 && match.limit?.unit == .kilometersPerHour)
        #expect(match.roadAhead == [RoadObjectAhead(kind: "tunnel", distance: 0, name: "Tunneli")])
        #expect(tracker.status(at: time.addingTimeInterval(30)) == .matched)
        #expect(tracker.current(at: time.addingTimeInterval(31)) == nil, "a match older than max_age describes nothing")
        #expect(tracker.status(at: time.addingTimeInterval(31)) == .waiting)
    }

    @Test func aFailureIsSaidAndTheNextAnswerClearsIt() throws {
        var tracker = FreeDriveTracker()
        var traces = 0
        for fix in Self.fixes(40, speed: 15) {
            guard tracker.observe(fix) != nil else { continue }
            traces += 1
            if traces == 1 {
                tracker.matched(nil, failure: "valhalla at 127.0.0.1:9: connection refused")
                #expect(tracker.status(at: fix.timestamp) == .unavailable)
                #expect(tracker.failure?.contains("connection refused") == true)
                #expect(tracker.current(at: fix.timestamp) == nil)
            } else {
                tracker.matched(Self.matchedRoute(road: "Tie", limit: 50, tunnel: false), failure: nil)
                #expect(tracker.status(at: fix.timestamp) == .matched)
            }
        }
        #expect(traces >= 2)
    }

    @Test func disabledAsksNothing() {
        var rules = FreeDriveRules()
        rules.enabled = false
        var tracker = FreeDriveTracker(rules: rules)
        #expect(Self.fixes(40, speed: 15).allSatisfy { tracker.observe($0) == nil })
    }
}
