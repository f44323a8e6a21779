import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import Testing

/// Dead reckoning uses the route's tunnels: the receiver goes blind at a tunnel's portal, and navd keeps predicting
/// along the route past `gnss.dead_reckoning` until just after the tunnel's end, so a maneuver inside or just after
/// it is still announced on time. Fix times and a manual clock only.
@Suite struct TunnelDeadReckoningTests {
    /// The Helsinki fixture with a tunnel from `from` metres along to 40 m before the maneuver that ends the first
    /// step beginning after `from` + 600 m; the tunnel's end and that maneuver, metres along.
    static func tunnelledRoute(from: Double = 150) throws -> (route: Route, tunnelEnd: Double, maneuver: Double, step: Int) {
        var route = try untunnelled()
        let index = RouteIndex(route: route)
        let step = try #require(index.stepEnd.indices.first { index.stepEnd[$0] > from + 600 && $0 + 1 < route.steps.count - 1 })
        let maneuver = index.stepEnd[step]
        func vertex(near along: Double) -> (step: Int, point: GeographicCoordinate, along: Double) {
            let i = index.cumulativeDistance.indices.min { abs(index.cumulativeDistance[$0] - along) < abs(index.cumulativeDistance[$1] - along) }!
            let s = index.segmentStep[min(i, index.segmentStep.count - 1)]
            return (s, index.points[i], index.cumulativeDistance[i])
        }
        let portal = vertex(near: from), exit = vertex(near: maneuver - 40)
        route.steps[portal.step].features.append(RoadFeature(location: portal.point, classes: ["tunnel"], tunnelName: "Testitunneli"))
        route.steps[exit.step].features.append(RoadFeature(location: exit.point, classes: []))
        return (route, exit.along, maneuver, step)
    }

    /// The Helsinki fixture without the features OSRM gave it (it passes short tunnels in the city centre).
    static func untunnelled() throws -> Route {
        var route = try CoordinatorHarness.route()
        for i in route.steps.indices { route.steps[i].features = [] }
        return route
    }

    /// Drives to the portal, then the receiver is blind: ticks once a second for `seconds`. The predicted states'
    /// progress (metres along) and the prompts published while blind.
    static func blindDrive(_ route: Route, portal: Double = 150, seconds: Int = 200, deadReckoning: Double = 20)
        -> (progress: [Double], prompts: [[String: JSONValue]])
    {
        var config = NavdConfig()
        config.gnss.deadReckoning = deadReckoning
        var harness = CoordinatorHarness(config: config)
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try? harness.navigate(answering: route)
        let lastSeen = Int(portal / 10)
        _ = harness.feed(fixes[1...lastSeen])
        let before = harness.effects.count
        let blindFrom = harness.now
        for second in 1...seconds {
            harness.now = blindFrom.addingTimeInterval(Double(second))
            harness.coordinator.tick(now: harness.now)
            _ = harness.take()
        }
        let blind = Array(harness.effects[before...])
        let states = blind.events(.tripState).filter { $0["predicted"]?.boolValue == true }
        let progress = states.compactMap { state -> Double? in
            guard let remaining = state["progress"]?["distanceRemaining"]?.doubleValue else { return nil }
            return RouteIndex(route: route).totalDistance - remaining
        }
        return (progress, blind.events(.instruction).filter { $0["kind"]?.stringValue == "spoken" })
    }

    @Test func predictionGoesOnThroughTheTunnelAndTheManeuverAfterItIsAnnounced() throws {
        let (route, tunnelEnd, maneuver, step) = try Self.tunnelledRoute()
        let (progress, prompts) = Self.blindDrive(route)
        let furthest = try #require(progress.max())
        // gnss.dead_reckoning is 20 s (200 m at 10 m/s); the tunnel is much longer.
        #expect(furthest > 150 + 200 + 100, "prediction stopped at \(Int(furthest)) m, before the tunnel's end at \(Int(tunnelEnd)) m")
        #expect(furthest <= tunnelEnd + 300 + 10, "prediction went \(Int(furthest - tunnelEnd)) m past the tunnel's end")
        #expect(furthest >= min(maneuver, tunnelEnd + 290), "prediction stopped \(Int(furthest)) m, before the maneuver at \(Int(maneuver)) m")
        #expect(prompts.contains { $0["stepIndex"]?.doubleValue == Double(step) }, "the maneuver after the tunnel was not announced while blind: \(prompts)")
        print("tunnel dead reckoning: predicted to \(Int(furthest)) m (tunnel ends at \(Int(tunnelEnd)) m, maneuver at \(Int(maneuver)) m), \(prompts.count) prompts while blind")
    }

    @Test func withoutATunnelPredictionStopsAtTheConfiguredLimit() throws {
        let route = try Self.untunnelled()
        let (progress, _) = Self.blindDrive(route)
        let furthest = try #require(progress.max())
        // 20 s at 10 m/s from 150 m, one tick's slack.
        #expect(furthest <= 150 + 20 * 10 + 15, "predicted to \(Int(furthest)) m with no tunnel")
    }
}
