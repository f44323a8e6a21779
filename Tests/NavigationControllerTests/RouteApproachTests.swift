import Foundation
import NavigationCore
import Testing
import TestSupport

/// A trip that starts off the road network: a parking lot 45 m south of the road the route starts on, which runs
/// west 400 m and then north.
@Suite struct RouteApproachTests {
    static let route = TestRoutes.polyline([(270, 400), (0, 300)])
    static let lot = Geodesy.destination(from: TestRoutes.origin, distance: 45, bearing: 200)

    /// Fixes along `line` at `speed` m/s, 1 Hz, open-sky error, starting `after` seconds into the trip.
    static func drive(_ line: [GeographicCoordinate], speed: Double = 5, seed: UInt64 = 1) -> [UserLocation] {
        FieldTrack(speed: speed, error: .openSky, seed: seed).fixes(along: line)
    }

    /// `fixes` through the controller from the first one; every state.
    static func run(_ fixes: [UserLocation], controller: NavigationController? = nil) throws -> [TripState] {
        let controller = try controller ?? NavigationController(route: route)
        var state = controller.initialState(for: fixes[0])
        var states = [state]
        for fix in fixes.dropFirst() {
            state = controller.update(state, with: fix)
            states.append(state)
        }
        return states
    }

    @Test(arguments: Array(UInt64(1)...5))
    func standingInTheLotSaysWhereTheRouteIsAndNothingElse(seed: UInt64) throws {
        // Two minutes parked: the receiver's jitter around the lot.
        let parked = FieldTrack(speed: 5, error: .openSky, seed: seed, stops: [.init(distance: 0, seconds: 120)])
            .fixes(along: [Self.lot, Geodesy.destination(from: Self.lot, distance: 1, bearing: 0)]).prefix(120)
        let states = try Self.run(Array(parked))
        for (i, state) in states.enumerated() {
            let s = try #require(state.navigating, "fix \(i)")
            let approach = try #require(s.approach, "fix \(i): not approaching")
            #expect(s.deviation == .approaching(distance: approach.distance))
            #expect(s.visualInstruction == nil && s.spokenInstruction == nil, "fix \(i): an instruction for a road the car cannot reach")
            #expect(abs(approach.distance - 42) < 12, "fix \(i): \(approach.distance) m")
            #expect(approach.roadName == "Street 0")
            // The route lies north-north-east of the lot.
            #expect(Geodesy.angleBetween(approach.bearing, 20) < 30, "fix \(i): bearing \(approach.bearing)")
        }
    }

    /// City error in the lot: an 18-20 m bias along the road with a receiver that says so (68% radius about 20 m,
    /// so 2.5 × it is beyond the lot's 45 m, and a moving car that far out could be on the road). Standing, the car
    /// still approaches and hears nothing.
    @Test(arguments: Array(UInt64(1)...5))
    func standingInTheLotUnderCityErrorIsStillAnApproach(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed * 7919)
        let error = FieldTrack.ErrorModel(bias: 18 + 2 * random.nextUniform(), biasBearing: 110, sigma: 4)
        let parked = FieldTrack(speed: 5, error: error, seed: seed, stops: [.init(distance: 0, seconds: 60)])
            .fixes(along: [Self.lot, Geodesy.destination(from: Self.lot, distance: 1, bearing: 0)]).prefix(60)
        #expect(2.5 * parked[0].horizontalAccuracy > 45, "the receiver's accuracy does not make the case")
        let states = try Self.run(Array(parked))
        for (i, state) in states.enumerated() {
            let s = try #require(state.navigating, "fix \(i)")
            #expect(s.approach != nil, "fix \(i): a car standing 45 m from the road is taken to be on it")
            #expect(s.visualInstruction == nil && s.spokenInstruction == nil, "fix \(i): an instruction for a road the car cannot reach")
        }
    }

    @Test(arguments: Array(UInt64(1)...5))
    func drivingToTheRouteJoinsItAndTheFirstPromptComesThen(seed: UInt64) throws {
        let entry = Geodesy.destination(from: TestRoutes.origin, distance: 60, bearing: 270)
        let line = [Self.lot, entry] + TestRoutes.polyline([(270, 340), (0, 300)], from: entry).geometry.dropFirst()
        let states = try Self.run(Self.drive(line, seed: seed))
        let joined = try #require(states.firstIndex { $0.navigating?.approach == nil }, "never joined")
        #expect(joined > 1, "joined at once from 45 m away")
        #expect(states.prefix(joined).allSatisfy { $0.navigating?.spokenInstruction == nil && $0.navigating?.visualInstruction == nil })
        #expect(states.allSatisfy { !($0.navigating?.deviation.isOffRoute ?? false) }, "off-route while heading for the route")
        let first = try #require(states[joined].navigating)
        #expect(first.visualInstruction != nil, "no banner once on the route")
        #expect(first.spokenInstruction?.text.hasPrefix("Soon") == true, "the step's first prompt once on the route: \(String(describing: first.spokenInstruction))")
        if case .complete = states.last! {} else { Issue.record("did not arrive") }
    }

    /// The lot's exit is a service road east: the car drives away from the route (first a little closer, then
    /// away). Off the route (the one reroute) once it has gone 15 m farther than its closest, within three fixes.
    @Test(arguments: Array(UInt64(1)...5))
    func drivingAwayIsOffTheRouteAfterAFewFixes(seed: UInt64) throws {
        let exit = Geodesy.destination(from: Self.lot, distance: 150, bearing: 90)
        let samples = FieldTrack(speed: 5, error: .openSky, seed: seed)
            .samples(along: [Self.lot, exit, Geodesy.destination(from: exit, distance: 200, bearing: 180)])
        let states = try Self.run(samples.map(\.fix))
        let off = try #require(states.firstIndex { $0.navigating?.deviation.isOffRoute ?? false }, "never off the route")
        // Where the car truly was 15 m farther from the route than at its closest.
        let trueDistance = samples.map { sample in
            RouteIndex(route: Self.route).points.map { Geodesy.distance($0, sample.truePosition) }.min()!
        }
        var closest = Double.infinity
        let away = try #require(trueDistance.firstIndex { d in closest = min(closest, d); return d >= closest + 15 })
        #expect(off > away - 3 && off <= away + 3, "off-route at fix \(off); 15 m farther than the closest at fix \(away)")
        #expect(states.prefix(off).allSatisfy { $0.navigating?.approach != nil })
    }

    /// Driving round a lot 45 m from the road, parallel to it, never coming closer: not heading there.
    @Test func circlingTheLotIsOffTheRouteAfterItsWanderDistance() throws {
        let west = Geodesy.destination(from: Self.lot, distance: 150, bearing: 270)
        let fixes = Self.drive([Self.lot, west, Self.lot, west, Self.lot])
        let states = try Self.run(fixes)
        let off = try #require(states.firstIndex { $0.navigating?.deviation.isOffRoute ?? false }, "never off the route")
        #expect(off * 5 >= 300 - 5 && off * 5 <= 320, "off-route after \(off * 5) m of circling")
    }

    /// A first fix beside the route (city error) or a reroute met on the way is no approach.
    @Test(arguments: [(20.0, 0.0, 0.0), (40.0, 270.0, 27.8)])
    func aFixNearTheRouteOrDrivingAlongItIsNoApproach(behind: Double, course: Double, speed: Double) throws {
        let controller = try NavigationController(route: Self.route)
        let point = behind == 20 ? Geodesy.destination(from: TestRoutes.origin, distance: 20, bearing: 180)
            : Geodesy.destination(from: TestRoutes.origin, distance: behind, bearing: 90)
        let fix = TestRoutes.fix(point, at: 0, course: speed > 0 ? course : nil, speed: speed)
        let state = try #require(controller.initialState(for: fix).navigating)
        #expect(state.approach == nil)
        #expect(state.visualInstruction != nil)
    }
}
