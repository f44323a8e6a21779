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
