import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import Testing

@Suite struct ReroutePolicyTests {
    @Test(arguments: [NavdConfig.Reroute.Policy.automatic, .reportOnly, .off])
    func thePolicyDecidesWhetherDeviationIsReportedAndRerouted(_ policy: NavdConfig.Reroute.Policy) throws {
        var settings = NavdConfig.Reroute()
        settings.policy = policy
        var harness = CoordinatorHarness(reroute: settings)
        let route = try CoordinatorHarness.route()
        let drive = TripCoordinatorTests.offRouteDrive(route)
        _ = harness.feed(drive[0])
        _ = try harness.navigate(answering: route)
        let effects = harness.feed(drive[1..<40])
        let deviations = effects.events(.deviation)
        let reroutes = effects.startedSessions
        switch policy {
        case .automatic:
            #expect(deviations.first?["reroute"] == "requested")
            #expect(reroutes.count == 1)
        case .reportOnly:
            #expect(deviations.first?["reroute"] == "report_only")
            #expect(reroutes.isEmpty)
        case .off:
            #expect(deviations.isEmpty)
            #expect(reroutes.isEmpty)
        }
        // Whatever the policy, trip_state reports the vehicle off the route.
        #expect(effects.events(.tripState).contains { $0["deviation"]?["kind"] == "off_route" })
    }

    static let here = GeographicCoordinate(latitude: 60.17, longitude: 24.94)
    static let t0 = CoordinatorHarness.start

    @Test func theGateWaitsForTheCooldownAndForMovement() {
        var settings = NavdConfig.Reroute()
        settings.cooldown = 10
        settings.minimumMovement = 30
        var gate = RerouteGate(settings: settings)
        #expect(gate.decide(time: Self.t0, coordinate: Self.here, inFlight: false) == .request)
        gate.recordRequest(time: Self.t0, coordinate: Self.here)
        #expect(gate.decide(time: Self.t0.addingTimeInterval(1), coordinate: Self.here, inFlight: true) == .inFlight)
        #expect(gate.decide(time: Self.t0.addingTimeInterval(4), coordinate: Self.here, inFlight: false) == .cooldown(remaining: 6))
        let near = Geodesy.destination(from: Self.here, distance: 10, bearing: 90)
        #expect(gate.decide(time: Self.t0.addingTimeInterval(11), coordinate: near, inFlight: false).name == "waiting_for_movement")
        let far = Geodesy.destination(from: Self.here, distance: 40, bearing: 90)
        #expect(gate.decide(time: Self.t0.addingTimeInterval(11), coordinate: far, inFlight: false) == .request)
        // An answer that came when the vehicle was back on the route frees the gate at once.
        gate.recordRequest(time: Self.t0.addingTimeInterval(11), coordinate: far)
        gate.recordUnneeded(time: Self.t0.addingTimeInterval(12))
        #expect(gate.decide(time: Self.t0.addingTimeInterval(13), coordinate: far, inFlight: false) == .request)
    }

    /// Loop settings with neither cooldown nor movement in the way.
    static func loopSettings(count: Int, window: Double, backoff: Double) -> NavdConfig.Reroute {
        var settings = NavdConfig.Reroute()
        settings.cooldown = 0
        settings.minimumMovement = 0
        settings.loopCount = count
        settings.loopWindow = window
        settings.loopBackoff = backoff
        return settings
    }

    /// A failing engine gets requests 2, 4, 8 ... 60 s apart, never back to back, and its failures count as a loop.
    @Test func failuresBackOffAndCountTowardALoop() {
        let settings = Self.loopSettings(count: 4, window: 120, backoff: 300)
        var gate = RerouteGate(settings: settings)
        var time = Self.t0
        var waits: [Double] = []
        for _ in 0..<3 {
            #expect(gate.decide(time: time, coordinate: Self.here, inFlight: false) == .request)
            gate.recordRequest(time: time, coordinate: Self.here)
            gate.recordFailure(time: time + 1)
            // Ask every second until allowed again.
            var next = time + 1
            while gate.decide(time: next, coordinate: Self.here, inFlight: false) != .request, next < time + 100 { next += 1 }
            waits.append(next.timeIntervalSince(time + 1))
            time = next
        }
        #expect(waits == [2, 4, 8], "\(waits)")
        #expect(gate.failureBackoff == 8)
        // The fourth failure within the window is a loop: rerouting pauses.
        gate.recordRequest(time: time, coordinate: Self.here)
        gate.recordFailure(time: time + 1)
        #expect(gate.decide(time: time + 20, coordinate: Self.here, inFlight: false).name == "loop_detected")
        // A success ends the streak.
        var fresh = RerouteGate(settings: settings)
        fresh.recordFailure(time: Self.t0)
        fresh.recordApplied(time: Self.t0 + 1)
        #expect(fresh.failureBackoff == 0)
        #expect(fresh.decide(time: Self.t0 + 1, coordinate: Self.here, inFlight: false) == .request)
    }

    @Test func aLoopBacksOffThenRerouteResumes() {
        var gate = RerouteGate(settings: Self.loopSettings(count: 2, window: 60, backoff: 100))
        gate.recordApplied(time: Self.t0)
        gate.recordApplied(time: Self.t0.addingTimeInterval(20))
        let detected = gate.decide(time: Self.t0.addingTimeInterval(30), coordinate: Self.here, inFlight: false)
        #expect(detected == .loopDetected(until: Self.t0.addingTimeInterval(130)))
        #expect(gate.decide(time: Self.t0.addingTimeInterval(100), coordinate: Self.here, inFlight: false).name == "loop_backoff")
        #expect(gate.decide(time: Self.t0.addingTimeInterval(131), coordinate: Self.here, inFlight: false) == .request)
    }
}

@Suite struct GNSSHealthTests {
    @Test func healthEventsFollowFixesAndSourceStatusChangesOnly() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        #expect(harness.feed(fixes[0]).events(.gnss).first?["status"] == "ok")
        #expect(harness.feed(fixes[1]).events(.gnss).isEmpty, "no event while nothing changes")
        var poor = fixes[2]
        poor.horizontalAccuracy = 80
        #expect(harness.feed(poor).events(.gnss).first?["status"] == "degraded")
        harness.coordinator.handle(.receiverLost(silentFor: 5))
        let lost = harness.take().events(.gnss).first
        #expect(lost?["status"] == "lost")
        #expect(lost?["detail"]?.stringValue?.contains("5 s") == true)
        #expect(harness.feed(fixes[3]).events(.gnss).first?["status"] == "ok")
    }
}

@Suite struct AccessPolicyTests {
    @Test func controlComesFromRootTheOwnUserListedUsersAndGroupMembership() {
        let nobody = PeerCredentials(pid: 1, uid: 65534, gid: 65534)
        #expect(AccessPolicy(ownUID: 999).mayControl(PeerCredentials(pid: 1, uid: 0, gid: 0)))
        #expect(AccessPolicy(ownUID: 999).mayControl(PeerCredentials(pid: 1, uid: 999, gid: 5)))
        #expect(!AccessPolicy(ownUID: 999).mayControl(nobody))
        #expect(AccessPolicy(ownUID: 999, controlUIDs: [65534]).mayControl(nobody))
        #expect(AccessPolicy(ownUID: 999, controlGIDs: [65534]).mayControl(nobody), "primary group")
        #expect(!AccessPolicy(ownUID: 999, controlGIDs: [0]).mayControl(nobody))
    }

    @Test func namesInTheConfigResolveAndUnknownOnesAreReported() {
        var socket = NavdConfig.Socket()
        socket.controlUsers = ["nobody", "4242", "no-such-user-here"]
        socket.controlGroups = ["nogroup", "no-such-group-here"]
        let policy = AccessPolicy(socket: socket)
        #expect(policy.controlUIDs == [65534, 4242])
        #expect(policy.controlGIDs == [65534])
        #expect(policy.unknownNames == ["user no-such-user-here", "group no-such-group-here"])
    }
}
