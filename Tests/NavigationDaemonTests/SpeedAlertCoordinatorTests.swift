import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import Testing

/// Speed alerts through the coordinator, as clients see them: the Helsinki route with its first 600 m posted at
/// 60 km/h and the rest at 30 km/h, driven at 20 m/s (72 km/h) and then slowed to 8 m/s (29 km/h) once in the 30
/// zone. Fix times only; no clock.
@Suite struct SpeedAlertCoordinatorTests {
    /// The fixture route with its segments posted at 60 km/h for the first `zoneEnd` metres and 30 km/h beyond.
    static func zonedRoute(zoneEnd: Double = 600) throws -> Route {
        var route = try CoordinatorHarness.route()
        var along = 0.0
        for s in route.steps.indices {
            let geometry = route.steps[s].geometry
            route.steps[s].annotations = SegmentAnnotations((0..<max(0, geometry.count - 1)).map { i in
                let limit: Double = along < zoneEnd ? 60 : 30
                along += Geodesy.distance(geometry[i], geometry[i + 1])
                return SegmentAnnotation(values: ["maxspeed": ["speed": .number(limit), "unit": "km/h"]])
            })
        }
        return route
    }

    /// Fixes along the route at 20 m/s; from `slowFrom` metres on the Doppler speed says 8 m/s (the positions keep
    /// their spacing: what matters here is the speed the receiver vouches for).
    static func drive(_ route: Route, slowFrom: Double) -> [UserLocation] {
        var fixes = LocationSimulator(speed: 20, sampleRate: 1, startTime: CoordinatorHarness.start, reportedAccuracy: 4).simulate(along: route.geometry)
        var along = 0.0
        for i in fixes.indices {
            if i > 0 { along += Geodesy.distance(fixes[i - 1].coordinate, fixes[i].coordinate) }
            if along >= slowFrom { fixes[i].speed = Speed(metersPerSecond: 8) }
        }
        return fixes
    }

    @Test func alertsRiseWithTheHoldWarnBeforeTheLowerLimitAndClear() throws {
        let route = try Self.zonedRoute()
        let fixes = Self.drive(route, slowFrom: 800)
        var harness = CoordinatorHarness()
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes.dropFirst())
        let alerts = harness.effects.events(.speedAlert)
        let levels = alerts.map { $0["level"]?.stringValue ?? "?" }
        // Minor in the 60 zone (72 > 70), the slow-down warning before the 30 zone, major inside it (72 > 50), then
        // cleared when the car slows to 29 km/h.
        print("speed alerts through the coordinator: \(alerts.map { "\($0["level"]?.stringValue ?? "?")\($0["lowerLimitAhead"] == nil ? "" : "+slow down")" })")
        #expect(levels.first == "minor", "\(alerts)")
        let warning = try #require(alerts.firstIndex { $0["lowerLimitAhead"] != nil }, "no slow-down warning: \(alerts)")
        let ahead = alerts[warning]["lowerLimitAhead"]
        #expect(ahead?["limit"]?.doubleValue == 30 && ahead?["unit"]?.stringValue == "km/h")
        let distance = try #require(ahead?["distance"]?.doubleValue)
        #expect(distance > 0 && distance <= 100, "warned \(distance) m before the 30 zone (at 20 m/s: 100 m)")
        let major = try #require(alerts.firstIndex { $0["level"]?.stringValue == "major" }, "\(alerts)")
        #expect(warning < major)
        #expect(alerts[major]["limit"]?.doubleValue == 30)
        #expect(levels.last == "none", "\(alerts)")
        // Every trip state on the route says the limit; the level it carries matches the last event's.
        let states = harness.effects.compactMap(\.event).filter { $0.type == .tripState || $0.type == .speedAlert }
        var level = "none"
        for event in states {
            if event.type == .speedAlert { level = event.fields["level"]?.stringValue ?? "?"; continue }
            guard event.fields["state"]?.stringValue == "navigating" else { continue }
            #expect(event.fields["speedAlert"]?["level"]?.stringValue == level)
        }
    }

    /// No alert on a speed the receiver does not vouch for: a receiver without Doppler speed, and a state predicted
    /// through an outage (which clears an alert that was on).
    @Test func noAlertWithoutAVouchedSpeed() throws {
        let route = try Self.zonedRoute(zoneEnd: 0)
        var fixes = Self.drive(route, slowFrom: .infinity)
        for i in fixes.indices { fixes[i].speed = nil }
        var harness = CoordinatorHarness()
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1..<40])
        #expect(harness.effects.events(.speedAlert).isEmpty)

        var outage = CoordinatorHarness()
        let fast = Self.drive(route, slowFrom: .infinity)
        _ = outage.feed(fast[0])
        _ = try outage.navigate(answering: route)
        _ = outage.feed(fast[1..<10])
        #expect(outage.effects.events(.speedAlert).last?["level"]?.stringValue == "major")
        // The receiver goes blind: navd predicts along the route, and the alert clears.
        outage.now = fast[9].timestamp.addingTimeInterval(3)
        outage.coordinator.tick(now: outage.now)
        _ = outage.take()
        let predicted = outage.effects.events(.tripState).last
        #expect(predicted?["predicted"]?.boolValue == true)
        #expect(outage.effects.events(.speedAlert).last?["level"]?.stringValue == "none")
    }

    /// The route's limit ends with the trip: arriving or cancelling with an alert on clears it at once (one
    /// `speed_alert` with level none), without waiting for the next fix, which may never come (a replay's end,
    /// a simulator that stops).
    @Test(arguments: [false, true])
    func theAlertClearsWhenTheTripEnds(cancel: Bool) throws {
        let route = try Self.zonedRoute(zoneEnd: 0)
        let fast = Self.drive(route, slowFrom: .infinity)
        var harness = CoordinatorHarness()
        _ = harness.feed(fast[0])
        _ = try harness.navigate(answering: route)
        if cancel {
            _ = harness.feed(fast[1..<10])
            #expect(harness.effects.events(.speedAlert).last?["level"]?.stringValue == "major")
            _ = harness.coordinator.cancel()
            _ = harness.take()
        } else {
            _ = harness.feed(fast.dropFirst())
            #expect(!harness.effects.events(.arrived).isEmpty, "never arrived")
        }
        let events = harness.effects.compactMap(\.event)
        let last = try #require(events.lastIndex { $0.type == .speedAlert })
        #expect(events[last].fields["level"]?.stringValue == "none" && events[last].fields["limit"] == nil, "\(events[last].fields)")
        // Arriving: after the arrived event, before the trip state that says complete (a fix's events come first).
        if !cancel {
            #expect(events.lastIndex { $0.type == .arrived }! < last)
            #expect(events[(last + 1)...].first { $0.type == .tripState }?.fields["state"]?.stringValue == "complete")
        }
    }

    /// A receiver that dead-reckons by itself (in a tunnel, a car park) keeps sending fixes with a speed, marked
    /// estimated: navd navigates with them but the alert clears on the first and stays off until measured fixes
    /// come back and the hold has passed again.
    @Test func noAlertFromTheReceiversOwnDeadReckoning() throws {
        let route = try Self.zonedRoute(zoneEnd: 0)
        let fast = Self.drive(route, slowFrom: .infinity)
        var harness = CoordinatorHarness()
        _ = harness.feed(fast[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fast[1..<10])
        #expect(harness.effects.events(.speedAlert).last?["level"]?.stringValue == "major")
        let before = harness.effects.events(.speedAlert).count
        for fix in fast[10..<20] { _ = harness.feed(fix, estimated: true) }
        let during = harness.effects.events(.speedAlert).dropFirst(before)
        #expect(during.map { $0["level"]?.stringValue } == ["none"], "\(Array(during))")
        let states = harness.effects.events(.tripState).suffix(10)
        #expect(states.allSatisfy { $0["state"]?.stringValue == "navigating" && $0["speedAlert"]?["level"]?.stringValue == "none" })
        // Measured again: raised after the hold (2 s at 1 Hz), not on the first fix.
        _ = harness.feed(fast[20])
        #expect(harness.effects.events(.speedAlert).count == before + 1)
        _ = harness.feed(fast[21..<25])
        #expect(harness.effects.events(.speedAlert).last?["level"]?.stringValue == "major")
    }
}
