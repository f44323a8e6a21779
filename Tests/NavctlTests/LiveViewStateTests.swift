import NavigationCore
import NavigationProtocol
import Testing

@testable import NavctlCommands

/// What `navctl watch` draws for the states a driver meets before and around the route: a trip that starts off the
/// road network (where the route is, not a maneuver), and a vehicle that may be leaving the route. Pure: the view
/// is fed the lines navd sends.
struct LiveViewStateTests {
    static func tripState(_ fields: String) throws -> EventMessage {
        let line = #"{"type":"trip_state","seq":7,"routeId":"r1","state":"navigating","time":"2026-11-25T10:00:00Z","#
            + #""rawLocation":{"lat":60.17,"lon":24.94,"speed":0},"snappedLocation":{"lat":60.17,"lon":24.94},"stepIndex":0,"#
            + #""remainingSteps":3,"remainingWaypoints":1,"progress":{"distanceToNextManeuver":120,"distanceRemaining":900,"durationRemaining":80},"#
            + #""roadName":"Päätie","distanceTravelled":0,"# + fields + "}"
        guard case .event(let message) = try ServerLine(line: Array(line.utf8)) else {
            Issue.record("not an event: \(line)")
            throw CancellationError()
        }
        return message
    }

    static let banner =
        #""visualInstruction":{"triggerDistanceBeforeManeuver":120,"primary":{"text":"Päätie","maneuverType":"turn","maneuverModifier":"left","exitNumbers":[],"lanes":[]}}"#

    static func idleState(_ fields: String) throws -> EventMessage {
        let line = #"{"type":"trip_state","seq":9,"routeId":null,"state":"idle","time":"2026-11-25T10:00:00Z","#
            + #""rawLocation":{"lat":60.17,"lon":24.94,"speed":20.8},"# + fields + "}"
        guard case .event(let message) = try ServerLine(line: Array(line.utf8)) else {
            Issue.record("not an event: \(line)")
            throw CancellationError()
        }
        return message
    }

    /// Without a trip, free drive's road: its name, the stretch the car is in, the speed with the limit and the
    /// alert; while it is still finding the road or cannot (no engine), says so; never a maneuver or a distance left.
    @Test func freeDriveShowsTheRoadItsLimitAndTheAlert() throws {
        var view = LiveView()
        view.apply(
            try Self.idleState(
                #""freeDrive":{"status":"matched"},"roadName":"Koulutie","speedLimit":{"value":40,"unit":"km/h"},"#
                    + #""speedAlert":{"level":"major","limit":40,"unit":"km/h","speed":75},"roadAhead":[{"kind":"tunnel","distance":0,"name":"Kalliotunneli"}]"#),
            clock: "10:00:00")
        let screen = view.render(width: 100).joined(separator: "\n")
        #expect(screen.contains("free drive (no trip)") && screen.contains("on Koulutie"), "\(screen)")
        #expect(screen.contains("in tunnel Kalliotunneli") && !screen.contains("in 0 m"), "\(screen)")
        #expect(screen.contains("speed 75 km/h · limit 40 km/h · OVER THE LIMIT"), "\(screen)")
        #expect(!screen.contains(" left ·"), "a distance left without a trip:\n\(screen)")

        view.apply(try Self.idleState(#""freeDrive":{"status":"waiting"}"#), clock: "10:00:01")
        let waiting = view.render(width: 100).joined(separator: "\n")
        #expect(waiting.contains("free drive: finding the road") && !waiting.contains("Koulutie"), "\(waiting)")

        view.apply(
            try Self.idleState(#""freeDrive":{"status":"unavailable","detail":"cannot connect to 127.0.0.1:9"}"#), clock: "10:00:02")
        let unavailable = view.render(width: 100).joined(separator: "\n")
        #expect(unavailable.contains("free drive unavailable") && unavailable.contains("cannot connect to 127.0.0.1:9"), "\(unavailable)")
        #expect(!unavailable.contains("OVER THE LIMIT"))
    }

    /// `navctl status` without a trip says what free drive knows (and a speed alert that is on), one line each.
    @Test(arguments: [
        (#""freeDrive":{"status":"matched"},"roadName":"Koulutie","speedLimit":{"value":40,"unit":"km/h"},"speedAlert":{"level":"major","limit":40,"unit":"km/h","speed":75}"#,
         ["free:    matched, on Koulutie, limit 40 km/h", "speed:   major alert, 75 in a 40 km/h limit"]),
        (#""freeDrive":{"status":"waiting"}"#, ["free:    finding the road"]),
        (#""freeDrive":{"status":"unavailable","detail":"cannot connect to 127.0.0.1:9"}"#, ["free:    unavailable (cannot connect to 127.0.0.1:9)"]),
    ])
    func statusSaysWhatFreeDriveKnows(fields: String, expected: [String]) throws {
        guard case .tripState(let record) = try Self.idleState(fields).event else {
            Issue.record("not a trip state")
            return
        }
        var snapshot = Snapshot(
            phase: .idle, routeId: nil,
            gnss: Snapshot.GNSS(status: .ok, detail: "3D fix", rejectedFixes: Snapshot.GNSS.Rejected(backwardsInTime: 0, repeatedTime: 0, impossibleSpeed: 0), lastFixAge: 0.2),
            calculations: [], reroute: Snapshot.Reroute(policy: "ready", accept: "any", resumesAt: nil))
        snapshot.tripState = record
        let lines = StatusSubcommand.describe(snapshot)
        for line in expected { #expect(lines.contains(line), "\(lines)") }
        #expect(lines.filter { $0.hasPrefix("free:") || $0.hasPrefix("speed:") }.count == expected.count, "\(lines)")
    }

    /// `navctl status` on a trip lists the waypoints still ahead with the numbers `remove-stop --index` takes:
    /// one of three passed, two ahead.
    @Test func statusListsTheWaypointsAhead() throws {
        guard case .tripState(var record) = try Self.tripState(#""deviation":{"kind":"none","distance":0}"#).event else {
            Issue.record("not a trip state")
            return
        }
        record.remainingWaypoints = 2
        var snapshot = Snapshot(
            phase: .navigating, routeId: "r1",
            gnss: Snapshot.GNSS(status: .ok, detail: "3D fix", rejectedFixes: Snapshot.GNSS.Rejected(backwardsInTime: 0, repeatedTime: 0, impossibleSpeed: 0), lastFixAge: 0.2),
            calculations: [], reroute: Snapshot.Reroute(policy: "ready", accept: "any", resumesAt: nil))
        snapshot.tripState = record
        snapshot.destinations = [
            LatLon(GeographicCoordinate(latitude: 60.1, longitude: 24.1)), LatLon(GeographicCoordinate(latitude: 60.2, longitude: 24.2)),
            LatLon(GeographicCoordinate(latitude: 60.3, longitude: 24.3)),
        ]
        let lines = StatusSubcommand.describe(snapshot)
        #expect(lines.contains("stops:   2 ahead: [0] 60.2,24.2 · [1] 60.3,24.3 (destination)"), "\(lines)")
        // Without a trip, no such line.
        snapshot.tripState = nil
        #expect(!StatusSubcommand.describe(snapshot).contains { $0.hasPrefix("stops:") })
    }

    @Test(arguments: [(0.0, "north"), (44, "north-east"), (100, "east"), (225, "south-west"), (350, "north"), (-30, "north-west")])
    func compassPoints(bearing: Double, point: String) {
        #expect(LiveView.compassPoint(bearing) == point)
    }

    @Test func aTripFromALotShowsWhereTheRouteIsAndNoManeuver() throws {
        var view = LiveView()
        view.apply(
            try Self.tripState(
                #""deviation":{"kind":"approaching","distance":45},"approach":{"distance":45,"bearing":10,"lat":60.1704,"lon":24.9402,"roadName":"Päätie"},"#
                    + Self.banner), clock: "10:00:00")
        let screen = view.render(width: 80).joined(separator: "\n")
        #expect(screen.contains("⇢  head to Päätie"), "\(screen)")
        #expect(screen.contains("50 m north"), "45 m rounded as navd says distances (10 m steps):\n\(screen)")
        #expect(!screen.contains("  ↰  in "), "a maneuver shown for a road the car cannot reach:\n\(screen)")
    }

    @Test func theNearestRoadObjectAheadIsShown() throws {
        var view = LiveView()
        view.apply(
            try Self.tripState(
                #""deviation":{"kind":"none","distance":0},"roadAhead":[{"kind":"tunnel","distance":250,"length":1500,"name":"Kalliotunneli"},{"kind":"toll_booth","distance":2100}],"#
                    + Self.banner), clock: "10:00:03")
        #expect(view.render(width: 100).contains { $0.contains("ahead: tunnel Kalliotunneli in 250 m (1.5 km)") }, "\(view.render(width: 100))")
        #expect(LiveView.describe(RoadObjectAhead(kind: "tunnel", distance: 0, length: 900, name: "K")) == "in tunnel K, 900 m left")
    }

    @Test func aVehicleLeavingTheRouteIsSaidSoUntilItIsBackOrOff() throws {
        var view = LiveView()
        view.apply(try Self.tripState(#""deviation":{"kind":"leaving","distance":27.4},"# + Self.banner), clock: "10:00:01")
        var screen = view.render(width: 100).joined(separator: "\n")
        #expect(screen.contains("leaving the route? 27 m from it"), "\(screen)")
        // The banner stays while leaving.
        #expect(screen.contains("  ↰  in "), "\(screen)")
        view.apply(try Self.tripState(#""deviation":{"kind":"none","distance":0},"# + Self.banner), clock: "10:00:02")
        screen = view.render(width: 100).joined(separator: "\n")
        #expect(!screen.contains("leaving the route"), "\(screen)")
    }

    /// The driver's units from navd (`voice` event, hello's `state.voice`): the same distances in miles and feet,
    /// the speed in mph; metres again when navd says metric.
    @Test func distancesAndSpeedFollowTheDriversUnits() throws {
        var view = LiveView()
        let state = try Self.tripState(#""rawLocation":{"lat":60.17,"lon":24.94,"speed":20},"# + Self.banner)
        guard case .event(let imperial) = try ServerLine(line: Array(#"{"type":"voice","seq":8,"routeId":"r1","mode":"full","language":"en-US","units":"imperial"}"#.utf8)) else {
            Issue.record("not an event")
            return
        }
        view.apply(imperial, clock: "10:00:00")
        view.apply(state, clock: "10:00:01")
        let screen = view.render(width: 100).joined(separator: "\n")
        #expect(screen.contains("in 400 ft") && screen.contains("0.6 mi left") && screen.contains("speed 45 mph"), "\(screen)")
        #expect(!screen.contains(" m ") && !screen.contains("km"), "metric left in an imperial view:\n\(screen)")
        guard case .event(let metric) = try ServerLine(line: Array(#"{"type":"voice","seq":9,"routeId":"r1","mode":"full","language":"de","units":"metric"}"#.utf8)) else {
            Issue.record("not an event")
            return
        }
        view.apply(metric, clock: "10:00:02")
        let again = view.render(width: 100).joined(separator: "\n")
        #expect(again.contains("in 100 m") && again.contains("900 m left") && again.contains("speed 72 km/h"), "\(again)")
    }
}
