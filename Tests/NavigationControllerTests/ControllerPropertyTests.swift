import Foundation
import NavigationCore
import PropertyBased
import Testing

@Suite("Controller properties")
struct ControllerPropertyTests {
    /// Random routes of 2 to 6 straight stretches with turns of at least 30°.
    static let routes = zip(Gen.double(in: 0..<360), Gen.double(in: 30...150).array(of: 1...5), Gen.double(in: 60...400).array(of: 6))
        .map { start, turns, lengths -> Route in
            var bearing = start
            var legs: [(bearing: Double, length: Double)] = [(bearing, lengths[0])]
            for (i, turn) in turns.enumerated() {
                bearing = Geodesy.normalizedDegrees(bearing + (i % 2 == 0 ? turn : -turn))
                legs.append((bearing, lengths[i + 1]))
            }
            return TestRoutes.polyline(legs, spacing: 15)
        }

    @Test func snappedPointsLieOnTheRoute() async {
        await propertyCheck(count: 40, input: Self.routes, Gen.int(in: 1...1000)) { route, seed in
            guard let controller = try? NavigationController(route: route) else { return }
            var drive = Drive(controller)
            drive.run(LocationSimulator(speed: 12, sampleRate: 1, noise: 4, seed: UInt64(seed)).simulate(along: controller.index.points))
            for state in drive.navigating where !state.deviation.isOffRoute {
                #expect(distanceFromLine(state.snappedLocation.coordinate, controller.index.points) < 0.01)
            }
        }
    }

    /// A refresh of the route ahead reads, without copying the state, whether it places the vehicle on its route
    /// from a real fix: on noisy drives that leave the route and on predictions through an outage, it is what the
    /// navigating state says, and nil for a trip that is not navigating.
    @Test func theRefreshReadsOnRouteFromARealFixAsTheStateSays() async {
        await propertyCheck(count: 30, input: Self.routes, Gen.int(in: 1...1000), Gen.double(in: 2...60)) { route, seed, noise in
            guard let controller = try? NavigationController(route: route) else { return }
            var drive = Drive(controller)
            drive.run(LocationSimulator(speed: 12, sampleRate: 1, noise: noise, seed: UInt64(seed)).simulate(along: controller.index.points))
            var states = drive.states
            for state in drive.navigating.prefix(20) {
                states.append(.navigating(controller.predicted(from: state, at: state.rawLocation.timestamp.addingTimeInterval(3), speed: 12)))
            }
            states.append(.idle)
            for state in states {
                #expect(state.isOnRouteFromRealFix == state.navigating.map { $0.isOnRoute && !$0.predicted })
            }
            // Both answers occur: the drives and predictions are not all of one kind.
            #expect(states.contains { $0.isOnRouteFromRealFix == false })
        }
    }

    /// The window's match skips the bearing of a candidate already dearer than the best, and works the fix's
    /// metres per degree of longitude out once: it must be, to the bit, the cheapest candidate of the window by the
    /// full cost worked out for every segment (the scan as it was), for fixes off the route at any course and speed.
    @Test func theMatchIsTheCheapestCandidateByTheFullCost() async {
        let fixes = zip(Gen.double(in: -200...200), Gen.double(in: -200...200), Gen.double(in: 0..<360), Gen.double(in: 0...40))
            .array(of: 1...20)
        await propertyCheck(count: 60, input: Self.routes, fixes, Gen.double(in: 0...1)) { route, fixes, start in
            guard let controller = try? NavigationController(route: route) else { return }
            let index = controller.index, matcher = RouteMatcher()
            for (i, fix) in fixes.enumerated() {
                let progress = start * index.totalDistance
                let near = Geodesy.destination(
                    from: Geodesy.destination(from: index.coordinate(atDistance: progress), distance: abs(fix.0), bearing: fix.0 < 0 ? 180 : 0),
                    distance: abs(fix.1), bearing: fix.1 < 0 ? 270 : 90)
                let location = TestRoutes.fix(near, at: Double(i), course: fix.2, speed: fix.3)
                let lookAhead = matcher.lookAhead(elapsed: 1, speed: fix.3)
                let hint = index.segment(atDistance: progress)
                let step = index.segmentStep.isEmpty ? 0 : index.segmentStep[hint]
                let match = matcher.match(
                    location, index: index, progress: progress, segmentHint: hint, lookAhead: lookAhead, currentStep: step, expectedTravel: fix.3)
                let reference = Self.cheapestByFullCost(
                    matcher, location, index: index, progress: progress, segmentHint: hint, lookAhead: lookAhead, expectedTravel: fix.3)
                // The segment under the progress is always in the window: there is a cheapest candidate.
                guard let reference else {
                    Issue.record("no candidate in the window at \(progress) m")
                    continue
                }
                #expect(match.segment == reference.segment)
                #expect(match.distanceAlong == reference.distanceAlong)
                #expect(match.coordinate == reference.coordinate)
                #expect(match.distanceFromRoute == reference.distanceFromRoute)
            }
        }
    }

    /// The window's scan with every candidate's full cost, its bearing included.
    static func cheapestByFullCost(
        _ matcher: RouteMatcher, _ location: UserLocation, index: RouteIndex, progress: Double, segmentHint: Int, lookAhead: Double,
        expectedTravel: Double
    ) -> (segment: Int, distanceAlong: Double, coordinate: GeographicCoordinate, distanceFromRoute: Double)? {
        let plausibleAdvance = 1.5 * expectedTravel + 2.5 * location.horizontalAccuracy + 20
        let from = progress - matcher.lookBehind, to = progress + lookAhead
        var first = min(max(0, segmentHint), max(0, index.segmentCount - 1))
        while first > 0, index.cumulativeDistance[first] > from { first -= 1 }
        let course = (location.speed?.metersPerSecond ?? 0) >= UserLocation.minimumSpeedForCourse ? location.course?.degrees : nil
        var best: (segment: Int, distanceAlong: Double, coordinate: GeographicCoordinate, distanceFromRoute: Double)?
        var bestCost = Double.infinity
        var segment = first
        while segment < index.segmentCount, index.cumulativeDistance[segment] <= to {
            defer { segment += 1 }
            let projection = Geodesy.closestPoint(on: index.points[segment], index.points[segment + 1], to: location.coordinate)
            let length = index.cumulativeDistance[segment + 1] - index.cumulativeDistance[segment]
            let along = index.cumulativeDistance[segment] + projection.fraction * length
            guard along >= from - length else { continue }
            var cost = projection.distance + abs(along - progress) * matcher.sequencePenalty
            cost += max(0, along - progress - plausibleAdvance) * matcher.implausibleAdvancePenalty
            if let course, length > 1 {
                let angle = Geodesy.angleBetween(course, index.bearing(ofSegment: segment))
                cost += matcher.wrongDirectionPenalty * min(1, max(0, (angle - 30) / 60))
            }
            if cost <= bestCost {
                bestCost = cost
                best = (segment, along, projection.coordinate, projection.distance)
            }
        }
        return best
    }

    @Test func distanceRemainingNeverIncreasesDrivingForward() async {
        await propertyCheck(count: 40, input: Self.routes, Gen.double(in: 3...30)) { route, speed in
            guard let controller = try? NavigationController(route: route) else { return }
            var drive = Drive(controller)
            drive.run(LocationSimulator(speed: speed, sampleRate: 1).simulate(along: controller.index.points))
            let remaining = drive.navigating.map(\.progress.distanceRemaining)
            #expect(zip(remaining, remaining.dropFirst()).allSatisfy { $1 <= $0 + 1e-6 })
            #expect(drive.isComplete)
        }
    }

    @Test func progressIsFiniteAndNonNegativeEvenWithWildFixes() async {
        let wild = zip(Gen.double(in: -300...300), Gen.double(in: -300...300), Gen.double(in: 0...80), Gen.double(in: 0..<360))
            .array(of: 1...30)
        await propertyCheck(count: 60, input: Self.routes, wild) { route, offsets in
            guard let controller = try? NavigationController(route: route) else { return }
            var state = controller.initialState(for: TestRoutes.fix(TestRoutes.origin, at: 0))
            for (i, o) in offsets.enumerated() {
                let p = Geodesy.destination(from: Geodesy.destination(from: TestRoutes.origin, distance: abs(o.0), bearing: o.0 < 0 ? 180 : 0),
                    distance: abs(o.1), bearing: o.1 < 0 ? 270 : 90)
                state = controller.update(state, with: TestRoutes.fix(p, at: Double(i + 1), course: o.3, accuracy: o.2))
                guard let s = state.navigating else { continue }
                for value in [s.progress.distanceRemaining, s.progress.distanceToNextManeuver, s.progress.durationRemaining] {
                    #expect(value.isFinite && value >= 0)
                }
                #expect(s.stepIndex < route.steps.count)
            }
        }
    }

    @Test func sameFixesGiveTheSameStates() async {
        await propertyCheck(count: 20, input: Self.routes, Gen.int(in: 1...1000)) { route, seed in
            guard let controller = try? NavigationController(route: route) else { return }
            let fixes = LocationSimulator(speed: 10, sampleRate: 1, noise: 6, seed: UInt64(seed)).simulate(along: controller.index.points)
            var a = Drive(controller), b = Drive(controller)
            a.run(fixes)
            b.run(fixes)
            let recordsA = a.states.enumerated().map { TripStateRecord($1, time: fixes[$0].timestamp) }
            let recordsB = b.states.enumerated().map { TripStateRecord($1, time: fixes[$0].timestamp) }
            #expect(recordsA == recordsB)
        }
    }
}
