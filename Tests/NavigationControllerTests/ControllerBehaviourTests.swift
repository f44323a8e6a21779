import Foundation
import NavigationCore
import Testing

@Suite("Controller behaviour on synthetic routes")
struct ControllerBehaviourTests {
    /// North 300 m, east 300 m, north 200 m.
    let route = TestRoutes.polyline([(0, 300), (90, 300), (0, 200)])

    func controller(_ config: NavigationControllerConfig = NavigationControllerConfig()) throws -> NavigationController {
        try NavigationController(route: route, config: config)
    }

    func point(north: Double, east: Double = 0) -> GeographicCoordinate {
        let p = Geodesy.destination(from: TestRoutes.origin, distance: north, bearing: 0)
        return Geodesy.destination(from: p, distance: east, bearing: 90)
    }

    @Test func aRouteWithoutStepsIsRefused() {
        let empty = Route(geometry: [TestRoutes.origin], distance: 0, duration: 0, waypoints: [], steps: [])
        #expect(throws: NavigationControllerError.routeHasNoSteps) { try NavigationController(route: empty) }
    }

    @Test func drivingTheRouteCompletesWithEveryStepAndPromptInOrder() throws {
        var drive = Drive(try controller())
        drive.run(LocationSimulator(speed: 10, sampleRate: 1).simulate(along: RouteIndex(route: route).points))
        #expect(drive.isComplete)
        let steps = drive.navigating.map(\.stepIndex)
        #expect(steps.first == 0)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 })
        #expect(Set(steps) == [0, 1, 2])
        #expect(drive.navigating.allSatisfy { $0.deviation == .none })
        // Every prompt once, in order; the arrive step's "You have arrived" is not said again after the approach
        // step's last prompt said it.
        let all = route.steps.dropLast().flatMap(\.spokenInstructions).map(\.utteranceId)
        #expect(drive.spokenIDs == all)
        #expect(drive.guidanceProblems(route: route, maximumHop: 10).isEmpty)
    }

    @Test func progressDescribesTheSnappedPosition() throws {
        let c = try controller()
        let state = try #require(c.initialState(for: TestRoutes.fix(point(north: 100, east: 4), at: 0, course: 0)).navigating)
        #expect(state.stepIndex == 0)
        #expect(abs(state.progress.distanceToNextManeuver - 200) < 0.5)
        #expect(abs(state.progress.distanceRemaining - 700) < 0.5)
        // Step 0 is 30 s long, two thirds remain; then 30 s and 20 s.
        #expect(abs(state.progress.durationRemaining - 70) < 0.1)
        #expect(Geodesy.distance(state.snappedLocation.coordinate, point(north: 100)) < 0.5)
        #expect(state.snappedLocation.course?.degrees == 0)
        #expect(state.roadName == "Street 0")
        #expect(state.annotation?.maxSpeed == .limit(value: 40, unit: .kilometersPerHour))
        #expect(state.remainingSteps.count == 4)
        #expect(state.remainingWaypoints.count == 1)
    }

    @Test func rawCourseFilteringKeepsTheReceiversCourse() throws {
        var config = NavigationControllerConfig()
        config.courseFiltering = .raw
        let state = try controller(config).initialState(for: TestRoutes.fix(point(north: 100), at: 0, course: 7))
        #expect(state.navigating?.snappedLocation.course?.degrees == 7)
    }

    /// Ferrostar checks the previous fix's deviation, so a fix that both leaves the route and satisfies the step
    /// condition advances the step first. navd decides deviation on the fix itself, before any advance.
    @Test func deviationIsDecidedBeforeStepAdvanceOnTheSameFix() throws {
        struct FarIsOff: RouteDeviationDetector {
            func isOffRoute(location: UserLocation, distanceFromRoute: Double, route: Route, currentStepIndex: Int, previous: RouteDeviation) -> Bool {
                distanceFromRoute > 10
            }
        }
        var config = NavigationControllerConfig()
        config.deviationTracking = .custom(FarIsOff())
        config.stepAdvance = .distanceFromStep(distance: 10, minimumHorizontalAccuracy: 50, policy: .always)
        let c = try controller(config)
        let first = c.initialState(for: TestRoutes.fix(point(north: 290), at: 0, course: 0))
        // 25 m west of the corner: far from step 0, so its condition holds, but also off the route.
        let next = try #require(c.update(first, with: TestRoutes.fix(point(north: 300, east: -25), at: 1, course: 270)).navigating)
        #expect(next.deviation.isOffRoute)
        #expect(next.stepIndex == 1, "distanceFromStep(.always) advances even off the route: the deviation is reported with it")
        config.stepAdvance = .distanceFromStep(distance: 10, minimumHorizontalAccuracy: 50, policy: .whileOnRoute)
        let strict = try controller(config)
        let stayed = try #require(strict.update(strict.initialState(for: TestRoutes.fix(point(north: 290), at: 0, course: 0)),
            with: TestRoutes.fix(point(north: 300, east: -25), at: 1, course: 270)).navigating)
        #expect(stayed.deviation.isOffRoute)
        #expect(stayed.stepIndex == 0)
    }

    @Test func aRouteThatComesBackAlongItselfNeverSkipsAhead() throws {
        // Out 120 m north, U-turn, back 120 m south on the same road, then east.
        let loop = TestRoutes.polyline([(0, 120), (180, 120), (90, 200)], spacing: 10)
        let c = try NavigationController(route: loop)
        var drive = Drive(c)
        drive.run(LocationSimulator(speed: 8, sampleRate: 1, noise: 3, seed: 7).simulate(along: RouteIndex(route: loop).points))
        #expect(drive.isComplete)
        let steps = drive.navigating.map(\.stepIndex)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 })
        // On the way out, the snapped position stays on the outbound stretch.
        for state in drive.navigating where state.stepIndex == 0 {
            #expect(state.distanceAlong <= 125)
        }
        #expect(drive.navigating.allSatisfy { !$0.deviation.isOffRoute })
    }

    @Test func jitterAroundTheThresholdDoesNotFlap() throws {
        let c = try controller()
        var state = c.initialState(for: TestRoutes.fix(point(north: 100), at: 0, course: 0))
        var t = 1.0
        // Mid-step (far from maneuvers), course along the route: distances 48, 52, 49, 53, 47, 51.
        for east in [48.0, 52, 49, 53, 47, 51] {
            state = c.update(state, with: TestRoutes.fix(point(north: 100 + t, east: east), at: t, course: 0))
            #expect(state.navigating?.deviation.isOffRoute == false, "flapped at \(east) m")
            t += 1
        }
        // Three in a row beyond 50 m: off the route.
        for east in [55.0, 56, 57] {
            state = c.update(state, with: TestRoutes.fix(point(north: 100 + t, east: east), at: t, course: 0))
            t += 1
        }
        #expect(state.navigating?.deviation.isOffRoute == true)
        // Back to 20 m: still off (exit threshold 15 m); at 10 m: on the route again.
        state = c.update(state, with: TestRoutes.fix(point(north: 100 + t, east: 20), at: t, course: 0))
        #expect(state.navigating?.deviation.isOffRoute == true)
        t += 1
        state = c.update(state, with: TestRoutes.fix(point(north: 100 + t, east: 10), at: t, course: 0))
        #expect(state.navigating?.deviation == RouteDeviation.none)
    }

    @Test func aPoorFixNeitherAdvancesNorRaisesADeviation() throws {
        let c = try controller()
        var state = c.initialState(for: TestRoutes.fix(point(north: 280), at: 0, course: 0))
        let before = try #require(state.navigating)
        // 100 m off and past the corner, but with a 60 m (68%) accuracy: ignored for both decisions.
        for t in 1...5 {
            state = c.update(state, with: TestRoutes.fix(point(north: 330, east: 100), at: Double(t), course: 90, accuracy: 60))
        }
        let after = try #require(state.navigating)
        #expect(after.stepIndex == before.stepIndex)
        #expect(!after.deviation.isOffRoute)
        #expect(after.distanceAlong == before.distanceAlong)
    }

    @Test func noInstructionsWhileOffTheRoute() throws {
        let c = try controller()
        var state = c.initialState(for: TestRoutes.fix(point(north: 100), at: 0, course: 0))
        #expect(state.navigating?.visualInstruction != nil)
        for (t, east) in [(1.0, 60.0), (2, 70), (3, 80)] {
            state = c.update(state, with: TestRoutes.fix(point(north: 100, east: east), at: t, course: 90))
        }
        let off = try #require(state.navigating)
        #expect(off.deviation.isOffRoute)
        #expect(off.visualInstruction == nil)
        #expect(off.spokenInstruction == nil)
        // Snapped location while off the route is the raw fix: there is no honest place on the route for it.
        #expect(off.snappedLocation.coordinate == off.rawLocation.coordinate)
    }

    @Test func drivingStraightOnAtATurnIsCaughtWithinThirtyMetres() throws {
        let c = try controller()
        // Along step 0 to the corner at 300 m, then straight on north instead of turning east.
        var fixes: [UserLocation] = []
        var t = 0.0
        for north in stride(from: 200.0, through: 400, by: 10) {
            fixes.append(TestRoutes.fix(point(north: north), at: t, course: 0))
            t += 1
        }
        var drive = Drive(c)
        drive.run(fixes)
        let firstOff = try #require(drive.navigating.firstIndex { $0.deviation.isOffRoute })
        let travelledPastCorner = 200 + Double(firstOff) * 10 - 300
        #expect(travelledPastCorner <= 30)
        #expect(drive.navigating[..<firstOff].allSatisfy { $0.stepIndex == 0 })
    }

    @Test func turningOffMidStepIsCaughtWithinThirtyMetresAndRejoiningClearsIt() throws {
        let c = try controller()
        var fixes: [UserLocation] = []
        var t = 0.0
        for north in stride(from: 50.0, through: 150, by: 14) { fixes.append(TestRoutes.fix(point(north: north), at: t, course: 0)); t += 1 }
        // Turn west at 148 m along step 0 (a side street), 14 m per fix...
        let leave = 50.0 + 14 * 7
        for west in stride(from: 14.0, through: 84, by: 14) { fixes.append(TestRoutes.fix(point(north: leave, east: -west), at: t, course: 270)); t += 1 }
        // ...then come back and continue north on the route.
        for west in stride(from: 70.0, through: 0, by: -14) { fixes.append(TestRoutes.fix(point(north: leave, east: -west), at: t, course: 90)); t += 1 }
        for north in stride(from: leave + 14, through: 290, by: 14) { fixes.append(TestRoutes.fix(point(north: north), at: t, course: 0)); t += 1 }
        var drive = Drive(c)
        drive.run(fixes)
        let states = drive.navigating
        let firstOff = try #require(states.firstIndex { $0.deviation.isOffRoute })
        #expect(firstOff >= 8)
        let offDistance = Double(firstOff - 7) * 14
        #expect(offDistance <= 30, "reported after \(offDistance) m off the route")
        #expect(states.last?.deviation == RouteDeviation.none)
        #expect(states.last?.stepIndex == 0)
    }

    @Test func manualAdvanceMovesToTheNextStep() throws {
        var config = NavigationControllerConfig()
        config.stepAdvance = .manual
        let c = try controller(config)
        var state = c.initialState(for: TestRoutes.fix(point(north: 10), at: 0, course: 0))
        // Driving past the corner does not advance a manual step...
        state = c.update(state, with: TestRoutes.fix(point(north: 300, east: 30), at: 1, course: 90))
        #expect(state.navigating?.stepIndex == 0)
        // ...an explicit advance does.
        state = c.advanceManually(state)
        #expect(state.navigating?.stepIndex == 1)
        state = c.advanceManually(state)
        #expect(state.navigating?.stepIndex == 2)
        state = c.advanceManually(state)
        guard case .complete(let completion) = state else {
            Issue.record("expected completion")
            return
        }
        #expect(completion.spokenInstruction?.text == "You have arrived")
    }

    @Test func arrivalUsesItsOwnCondition() throws {
        var config = NavigationControllerConfig()
        config.arrival = .distanceToEndOfStep(distance: 5, minimumHorizontalAccuracy: 32)
        let c = try controller(config)
        var drive = Drive(c)
        let fixes = LocationSimulator(speed: 5, sampleRate: 1).simulate(along: RouteIndex(route: route).points)
        drive.run(fixes)
        #expect(drive.isComplete)
        // Not before the last 5 m.
        let lastNavigating = try #require(drive.navigating.last)
        #expect(lastNavigating.progress.distanceRemaining > 5)
        guard case .complete(let completion)? = drive.states.last else { return }
        #expect(completion.summary.distanceTravelled > 790)
        #expect(completion.summary.startedAt == fixes[0].timestamp)
    }

    @Test(arguments: [
        StepAdvanceCondition.distanceEntryAndExit(entry: 30, exit: 8, minimumHorizontalAccuracy: 32),
        .distanceEntryAndSnappedExit(entry: 30, exit: 8, minimumHorizontalAccuracy: 32),
    ])
    func statefulConditionsWorkAsTheArrivalCondition(arrival: StepAdvanceCondition) throws {
        var config = NavigationControllerConfig()
        config.arrival = arrival
        let c = try controller(config)
        // Drive the route and 30 m beyond the destination.
        var line = RouteIndex(route: route).points
        line.append(Geodesy.destination(from: line[line.count - 1], distance: 30, bearing: 0))
        var drive = Drive(c)
        drive.run(LocationSimulator(speed: 4, sampleRate: 1).simulate(along: line))
        #expect(drive.isComplete)
        guard case .complete(let completion)? = drive.states.last else { return }
        // Arrived once 8 m past the destination, not before reaching it.
        let destination = try #require(route.waypoints.last).coordinate
        let beyond = Geodesy.distance(completion.location.coordinate, destination)
        #expect(beyond >= 8 && beyond < 13)
    }

    @Test func stopsAreReachedAndTheDestinationIsNeverDropped() throws {
        let base = TestRoutes.polyline([(0, 300), (90, 300), (0, 300)])
        var twoStops = base
        let stop = Geodesy.destination(from: TestRoutes.origin, distance: 300, bearing: 0)
        twoStops.waypoints = [base.waypoints[0], Waypoint(coordinate: stop, kind: .via), base.waypoints[1]]
        for mode in [WaypointAdvanceMode.withinRange(30), .alongAdvancingStep(30)] {
            var config = NavigationControllerConfig()
            config.waypointAdvance = mode
            let c = try NavigationController(route: twoStops, config: config)
            var drive = Drive(c)
            drive.run(LocationSimulator(speed: 10, sampleRate: 1).simulate(along: RouteIndex(route: twoStops).points))
            let counts = drive.navigating.map(\.remainingWaypoints.count)
            #expect(counts.first == 2, "\(mode)")
            #expect(counts.contains(1), "\(mode): the stop was never reached")
            #expect(counts.allSatisfy { $0 >= 1 }, "\(mode): the destination was dropped")
            #expect(zip(counts, counts.dropFirst()).allSatisfy { $1 <= $0 })
        }
    }

    @Test func promptTimingIsAppliedOnceToTheRoute() throws {
        var config = NavigationControllerConfig()
        config.promptTiming = .scaleSpoken(factor: 2)
        let c = try controller(config)
        // 60 m prompts become 120 m; step-length prompts cannot move before their step starts.
        #expect(c.route.steps[0].spokenInstructions.map(\.triggerDistanceBeforeManeuver) == [300, 120])
        #expect(c.route.steps[0].spokenInstructions.map(\.utteranceId) == route.steps[0].spokenInstructions.map(\.utteranceId))
        let adaptive = PromptTiming.speedAdaptive(referenceSpeed: 5, minimumFactor: 0.5, maximumFactor: 1.5).apply(to: route)
        // Steps are driven at 10 m/s: twice the reference, clamped to 1.5.
        #expect(adaptive.steps[0].spokenInstructions[1].triggerDistanceBeforeManeuver == 90)
        #expect(PromptTiming.unchanged.apply(to: route) == route)
    }
}
