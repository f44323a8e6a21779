import Foundation
import NMEA
import NavigationCore
import Testing
import TestSupport

/// Drive classes from the field, each over ten seeds, through the same path `navctl replay` takes (plausibility
/// gate, controller, dead reckoning, each prompt once: ``TripReplay``). Each asserts what a driver would notice and
/// prints the figures (false deviations, detection distances, catch-up delays) over all seeds.
@Suite("Field drives")
struct FieldDriveTests {
    static let seeds: [UInt64] = Array(1...10)

    /// The outputs of a replay and what they say.
    struct Run {
        var route: Route
        var outputs: [TripReplay.Output]
        var drive: Drive

        init(_ route: Route, _ fixes: [UserLocation], config: NavigationControllerConfig = NavigationControllerConfig()) throws {
            self.route = route
            let controller = try NavigationController(route: route, config: config)
            var replay = TripReplay(controller: controller)
            outputs = replay.run(fixes)
            drive = Drive(controller)
            drive.states = outputs.compactMap { if case .state(let s, _) = $0 { s } else { nil } }
        }

        var navigating: [NavigatingState] { drive.navigating }
        var real: [NavigatingState] { navigating.filter { !$0.predicted } }
        var isComplete: Bool { drive.isComplete }
        var offRoute: Int { navigating.filter { $0.deviation.isOffRoute }.count }
        var offStep: Int { navigating.filter { if case .offStep = $0.deviation { true } else { false } }.count }
        var leaving: Int { navigating.filter { if case .leaving = $0.deviation { true } else { false } }.count }
        var rejected: [FixRejection] { outputs.compactMap { if case .rejected(_, let r) = $0 { r } else { nil } } }
        var distanceTravelled: Double? {
            if case .complete(let c)? = drive.states.last { return c.summary.distanceTravelled }
            return nil
        }
    }

    static func helsinki() throws -> Route { try TestRoutes.fixture("helsinki_osrm_plain") }
    static func line(_ route: Route) -> [GeographicCoordinate] { RouteIndex(route: route).points }

    static func summary(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "none" }
        let sorted = values.sorted()
        return "min \(Int(sorted.first!)) / median \(Int(sorted[sorted.count / 2])) / max \(Int(sorted.last!)) m"
    }

    /// What every ordinary drive must give: arrival, no deviation of any kind, steps and prompts as a driver expects.
    static func expectClean(_ run: Run, label: String, maximumHop: Double) {
        #expect(run.isComplete, "\(label): did not arrive")
        #expect(run.offRoute == 0, "\(label): \(run.offRoute) off-route states")
        #expect(run.offStep == 0, "\(label): \(run.offStep) off-step states")
        let problems = run.drive.guidanceProblems(route: run.route, maximumHop: maximumHop)
        #expect(problems.isEmpty, "\(label): \(problems.prefix(4))")
    }

    // MARK: - Ordinary drives: nothing may go wrong

    @Test func cityErrorWithHonestAccuracyGivesNoFalseDeviation() throws {
        let route = try Self.helsinki()
        var falseDeviations = 0
        for seed in Self.seeds {
            var random = SeededRandomNumberGenerator(seed: seed * 7919)
            let bias = 12 + 8 * random.nextUniform()
            let error = FieldTrack.ErrorModel(bias: bias, biasBearing: 360 * random.nextUniform(), sigma: 4)
            let run = try Run(route, FieldTrack(speed: 10, error: error, seed: seed).fixes(along: Self.line(route)))
            if run.offRoute > 0 { falseDeviations += 1 }
            Self.expectClean(run, label: "seed \(seed), bias \(Int(bias)) m, accuracy \(Int(error.honestAccuracy)) m", maximumHop: 10 + 3 * 4)
        }
        print("field drives: city error (bias 12-20 m, honest accuracy): \(falseDeviations) of \(Self.seeds.count) drives with a false deviation")
    }

    @Test func aRouteThatPassesTheSameStreetsTwice() throws {
        // Out 200 m north, a U-turn, back 200 m south on the same street, then east.
        let route = TestRoutes.polyline([(0, 200), (180, 200), (90, 250)], spacing: 10)
        for seed in Self.seeds {
            let run = try Run(route, FieldTrack(speed: 8, error: .openSky, seed: seed).fixes(along: Self.line(route)))
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 8 + 10)
            // On the way out the snapped position never jumps to the way back.
            #expect(run.navigating.filter { $0.stepIndex == 0 }.allSatisfy { $0.distanceAlong <= 205 }, "seed \(seed)")
        }
    }

    @Test func threeWaypoints() throws {
        let route = try TestRoutes.fixture("helsinki_osrm_two_legs")
        for seed in Self.seeds {
            let run = try Run(route, FieldTrack(speed: 12, error: .openSky, seed: seed).fixes(along: Self.line(route)))
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 12 + 10)
            let remaining = run.navigating.map(\.remainingWaypoints.count)
            #expect(zip(remaining, remaining.dropFirst()).allSatisfy { $1 <= $0 }, "seed \(seed): waypoints came back")
            #expect(remaining.first == 2 && remaining.last == 1, "seed \(seed): \(remaining.first ?? -1) → \(remaining.last ?? -1)")
        }
    }

    @Test func tenFixesASecond() throws {
        let route = try Self.helsinki()
        for seed in Self.seeds {
            let run = try Run(route, FieldTrack(speed: 12, rate: 10, error: FieldTrack.ErrorModel(sigma: 3), seed: seed).fixes(along: Self.line(route)))
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 1.2 + 10)
        }
    }

    @Test(arguments: NMEAReceiverProfile.allCases)
    func realReceiversSentenceMixes(profile: NMEAReceiverProfile) throws {
        let route = try Self.helsinki()
        for seed in Self.seeds {
            let truth = FieldTrack(speed: 11, error: .openSky, seed: seed).fixes(along: Self.line(route))
            var assembler = NMEAEpochAssembler(rollover: .none)
            var readings: [GNSSReading] = []
            for fix in truth {
                for line in NMEAWriter.sentences(for: fix, profile: profile) { readings += assembler.append(Array((line + "\r\n").utf8)) }
            }
            readings += assembler.finish()
            let fixes = readings.compactMap(\.fix?.location)
            #expect(fixes.count == truth.count, "\(profile) seed \(seed): \(fixes.count) fixes for \(truth.count) epochs")
            let run = try Run(route, fixes)
            Self.expectClean(run, label: "\(profile) seed \(seed)", maximumHop: 11 + 10)
        }
    }

    // MARK: - Sparse fixes, outages, stops

    @Test func oneFixEveryFiveSeconds() throws {
        let route = try Self.helsinki()
        for seed in Self.seeds {
            let run = try Run(route, FieldTrack(speed: 10, rate: 0.2, error: .openSky, seed: seed).fixes(along: Self.line(route)))
            // 50 m between fixes: steps shorter than that (plus the exit) are passed whole; nothing else is lost.
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 50 + 10)
        }
    }

    /// A tunnel: 30 s without fixes while the vehicle passes two maneuvers at 10 m/s.
    @Test func aThirtySecondOutageThatPassesTwoManeuvers() throws {
        let route = try Self.helsinki()
        let index = RouteIndex(route: route)
        // Maneuvers at the ends of steps 4 (after 912 m) and 5 (after 1003 m): the outage starts 80 m before the first.
        let start = (index.stepEnd[4] - 80) / 10
        let outage = start..<(start + 30)
        var catchUp: [Int] = []
        var predictedCounts: [Int] = []
        for seed in Self.seeds {
            let track = FieldTrack(speed: 10, error: .openSky, seed: seed, outages: [outage])
            let samples = track.samples(along: Self.line(route))
            let run = try Run(route, samples.map(\.fix))
            #expect(run.isComplete, "seed \(seed)")
            #expect(run.offRoute == 0, "seed \(seed): a deviation decided")
            let predicted = run.navigating.filter(\.predicted)
            predictedCounts.append(predicted.count)
            #expect(predicted.count >= 25, "seed \(seed): \(predicted.count) predicted states in a 30 s outage")
            // Predictions pass both maneuvers in order, and speak the prompts that fall due in the tunnel.
            #expect(predicted.map(\.stepIndex).contains(5) && predicted.map(\.stepIndex).contains(6), "seed \(seed): \(Set(predicted.map(\.stepIndex)))")
            let saidInTunnel = Set(predicted.compactMap(\.spokenInstruction?.utteranceId))
            let finalPromptOfStep4 = try #require(route.steps[4].spokenInstructions.last)
            #expect(saidInTunnel.contains(finalPromptOfStep4.utteranceId), "seed \(seed): the turn in the tunnel was not announced")
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 10 + 10)
            // The first real fix after the outage: steps it takes until the step is right (0: at once).
            let firstAfter = try #require(samples.firstIndex { $0.fix.timestamp.timeIntervalSince(track.startTime) >= outage.upperBound })
            let realAfter = run.real.filter { $0.rawLocation.timestamp >= samples[firstAfter].fix.timestamp }
            let trueStep = index.segmentStep[index.segment(atDistance: samples[firstAfter].distance)]
            let delay = realAfter.firstIndex { $0.stepIndex >= min(trueStep, 8) } ?? realAfter.count
            catchUp.append(delay)
            #expect(delay <= 1, "seed \(seed): the step was right \(delay) fixes after the outage")
        }
        print("field drives: 30 s outage over two maneuvers: predicted states \(predictedCounts.min()!)-\(predictedCounts.max()!), catch-up delay \(catchUp.max()!) fixes (max over seeds)")
    }

    /// Waiting 2 minutes at a red light 10 m before a right turn, with ordinary jitter.
    @Test func aTwoMinuteStopBeforeATurn() throws {
        let route = TestRoutes.polyline([(0, 300), (90, 300), (0, 200)])
        var creep: [Double] = []
        for seed in Self.seeds {
            let track = FieldTrack(speed: 10, error: FieldTrack.ErrorModel(sigma: 3), seed: seed, stops: [.init(distance: 290, seconds: 120)])
            let run = try Run(route, track.fixes(along: Self.line(route)))
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 10 + 6)
            let stopped = run.real.filter { ($0.rawLocation.speed?.metersPerSecond ?? 1) < 0.5 && $0.stepIndex == 0 }
            #expect(stopped.count >= 110, "seed \(seed): \(stopped.count) states at the light")
            // The turn is still ahead and still shown while the car waits: the first fix of the stop places the
            // vehicle, and progress does not move after it.
            let distances = stopped.dropFirst().map(\.progress.distanceToNextManeuver)
            creep.append((distances.max() ?? 0) - (distances.min() ?? 0))
            #expect(distances.allSatisfy { $0 > 0 }, "seed \(seed): progress reached the corner while stopped")
            #expect(creep.last! < 0.01, "seed \(seed): progress moved \(creep.last!) m while stopped")
            #expect(stopped.allSatisfy { $0.visualInstruction != nil })
            // 800 m of route, with the noise of 80 moving fixes (σ 3 m: about 9% more), and nothing for the stop's jitter.
            let travelled = try #require(run.distanceTravelled)
            #expect(travelled < 800 * 1.15, "seed \(seed): \(Int(travelled)) m travelled on an 800 m route")
        }
        print("field drives: 2 min stop before a turn: progress moved at most \(String(format: "%.1f", creep.max()!)) m while stopped")
    }

    // MARK: - Leaving the route: caught, and soon

    /// A U-turn on a two-way street: driving back along the route is off the route within 50 m.
    @Test func aUTurnOnATwoWayStreet() throws {
        let route = TestRoutes.polyline([(0, 400), (90, 300)])
        var detection: [Double] = []
        for seed in Self.seeds {
            let path = PolylinePath(Self.line(route))
            let turnAt = 150.0
            let track = path.prefix(turnAt) + [path.point(at: turnAt - 1), path.point(at: 0)]
            let samples = FieldTrack(speed: 9, error: .openSky, seed: seed).samples(along: track)
            let run = try Run(route, samples.map(\.fix))
            let first = try #require(run.outputs.firstIndex { if case .state(.navigating(let s), _) = $0 { s.deviation.isOffRoute } else { false } })
            let driven = samples[first].distance - turnAt
            detection.append(driven)
            #expect(driven > 0 && driven <= 50, "seed \(seed): off-route after \(Int(driven)) m of driving back")
            #expect(run.navigating.prefix(first).allSatisfy { !$0.deviation.isOffRoute })
        }
        print("field drives: U-turn on a two-way street: detected after \(Self.summary(detection)) of driving back")
    }

    /// Turning off onto a side street that leads to a parallel street 90 m away.
    @Test(arguments: [false, true])
    func leavingOntoAParallelStreet(cityError: Bool) throws {
        let route = TestRoutes.polyline([(0, 600)])
        var detection: [Double] = []
        for seed in Self.seeds {
            let path = PolylinePath(Self.line(route))
            let leaveAt = 200.0
            let corner = Geodesy.destination(from: path.point(at: leaveAt), distance: 90, bearing: 90)
            let track = path.prefix(leaveAt) + [corner, Geodesy.destination(from: corner, distance: 300, bearing: 0)]
            var random = SeededRandomNumberGenerator(seed: seed * 31)
            let error =
                cityError
                ? FieldTrack.ErrorModel(bias: 12 + 8 * random.nextUniform(), biasBearing: 360 * random.nextUniform(), sigma: 4) : .openSky
            let samples = FieldTrack(speed: 10, error: error, seed: seed).samples(along: track)
            let run = try Run(route, samples.map(\.fix))
            let first = try #require(
                run.outputs.firstIndex { if case .state(.navigating(let s), _) = $0 { s.deviation.isOffRoute } else { false } }, "seed \(seed)")
            let driven = samples[first].distance - leaveAt
            detection.append(driven)
            #expect(driven > 0, "seed \(seed): off-route before leaving")
            // Open sky: within 40 m of driving. City error (the thresholds widen with the accuracy): within 60 m.
            #expect(driven <= (cityError ? 60 : 40), "seed \(seed): off-route after \(Int(driven)) m")
        }
        print("field drives: leaving onto a parallel street 90 m away\(cityError ? " with city error" : ""): detected after \(Self.summary(detection)) of driving")
    }

    // MARK: - Roads that part at a shallow angle

    /// A route that leaves a motorway (north) by a ramp parting at `angle` degrees 800 m in; 100 km/h.
    static func motorwayExit(angle: Double) -> (route: Route, gore: GeographicCoordinate) {
        let route = TestRoutes.polyline([(0, 800), (angle, 900)])
        return (route, Geodesy.destination(from: TestRoutes.origin, distance: 800, bearing: 0))
    }

    /// Metres past the gore where the ramp is `separation` metres from the motorway.
    static func partingPoint(angle: Double, separation: Double) -> Double { separation / sin(Geodesy.radians(angle)) }

    /// The car stays on the motorway. The ramp and the motorway are 30 m apart at `x30` past the gore: off-route must
    /// come within three 1 Hz fixes of driving (83 m at 100 km/h) after it, whatever the rate, and not before the two
    /// roadways are 15 m apart (nothing a driver would call leaving yet).
    @Test(arguments: [(3.0, 1.0), (4.5, 1.0), (6.0, 1.0), (10.0, 1.0), (3.0, 10.0), (6.0, 10.0)])
    func aMissedMotorwayExitIsReportedWithinThreeFixes(angle: Double, rate: Double) throws {
        let (route, gore) = Self.motorwayExit(angle: angle)
        let x30 = Self.partingPoint(angle: angle, separation: 30)
        var after: [Double] = []
        for seed in Self.seeds {
            let track = [TestRoutes.origin, Geodesy.destination(from: gore, distance: 1200, bearing: 0)]
            let samples = FieldTrack(speed: 27.8, rate: rate, error: .openSky, seed: seed).samples(along: track)
            let run = try Run(route, samples.map(\.fix))
            let first = try #require(
                run.outputs.firstIndex { if case .state(.navigating(let s), _) = $0 { s.deviation.isOffRoute } else { false } }, "seed \(seed)")
            let pastGore = samples[first].distance - 800
            after.append(pastGore - x30)
            #expect(pastGore >= Self.partingPoint(angle: angle, separation: 15), "seed \(seed): off-route \(Int(pastGore)) m past the gore")
            #expect(pastGore <= x30 + 3 * 27.8, "seed \(seed): off-route \(Int(pastGore)) m past the gore, \(Int(pastGore - x30)) m after 30 m apart")
        }
        print("field drives: missed exit at \(angle)°, \(Int(rate)) Hz: off-route \(Self.summary(after)) of driving after the roadways are 30 m apart (at \(Int(x30)) m)")
    }

    /// Until navd calls the missed exit off the route, the car is never shown on the ramp far from it: a fix beyond the
    /// threshold in force makes the state `leaving`, with the fix as the snapped position, progress held and no new
    /// prompt; on every other state the snapped position is within the parting distance (25 m) and the fix's noise
    /// (3σ) of the fix. The peer showed the car on the ramp 30, 50, then 65 m from it.
    @Test(arguments: [(3.0, 1.0), (4.5, 1.0), (10.0, 1.0), (3.0, 10.0), (6.0, 10.0)])
    func aMissedExitIsNeverShownOnTheRamp(angle: Double, rate: Double) throws {
        let (route, gore) = Self.motorwayExit(angle: angle)
        let index = RouteIndex(route: route)
        var largest: [Double] = [], leavingStates: [Double] = []
        for seed in Self.seeds {
            let track = [TestRoutes.origin, Geodesy.destination(from: gore, distance: 1200, bearing: 0)]
            let run = try Run(route, FieldTrack(speed: 27.8, rate: rate, error: .openSky, seed: seed).fixes(along: track))
            let first = try #require(run.real.firstIndex { $0.deviation.isOffRoute }, "seed \(seed): never off the route")
            var onRouteOffsets: [Double] = []
            var leaving = 0
            for state in run.real[..<first] {
                let offset = Geodesy.distance(state.rawLocation.coordinate, state.snappedLocation.coordinate)
                if case .leaving(let distance) = state.deviation {
                    leaving += 1
                    #expect(offset < 0.01, "seed \(seed): leaving, yet snapped \(offset) m from the fix")
                    #expect(state.spokenInstruction == nil, "seed \(seed): a prompt while leaving")
                    #expect(distance > 20, "seed \(seed): leaving only \(distance) m from the route")
                } else {
                    onRouteOffsets.append(offset)
                }
            }
            #expect(leaving >= 1, "seed \(seed): off the route without a leaving state before it")
            let offset = onRouteOffsets.max() ?? 0
            largest.append(offset)
            #expect(offset <= 25 + 3 * 3, "seed \(seed): shown on the route \(Int(offset)) m from the fix before off-route")
            // Progress held: when off-route is decided, the snapped position has not run down the ramp.
            let offState = run.real[first]
            let pastGore = index.totalDistance - offState.progress.distanceRemaining - 800
            #expect(pastGore <= Geodesy.distance(gore, offState.rawLocation.coordinate) + 3 * 3, "seed \(seed): progress \(Int(pastGore)) m down the ramp")
            leavingStates.append(Double(leaving))
        }
        print("field drives: missed exit at \(angle)°, \(Int(rate)) Hz: largest offset shown on the route \(Self.summary(largest)); leaving states before off-route \(leavingStates.min().map { Int($0) } ?? 0) to \(leavingStates.max().map { Int($0) } ?? 0)")
    }

    /// The car takes the ramp: never off the route, and it arrives.
    @Test(arguments: [3.0, 6.0, 10.0])
    func takingTheExitIsNeverOffRoute(angle: Double) throws {
        let (route, _) = Self.motorwayExit(angle: angle)
        for seed in Self.seeds {
            let run = try Run(route, FieldTrack(speed: 27.8, error: .openSky, seed: seed).fixes(along: Self.line(route)))
            Self.expectClean(run, label: "seed \(seed), exit at \(angle)°", maximumHop: 27.8 + 3 * 3)
        }
    }

    /// City error (bias 12-20 m, honest accuracy) on a motorway whose exit is missed: the thresholds widen with the
    /// accuracy (2.5 × r68 is 99.9% of honest error), and a bias toward the ramp hides up to its size of the
    /// separation (and the random error, 2σ, as much again on one fix), so the exit is reported later: by the time the
    /// roadways are 2.5 × r68 + the bias + 2σ apart, plus three fixes of parting. Taking the exit stays clean.
    @Test(arguments: [4.5, 10.0])
    func aMissedExitUnderCityError(angle: Double) throws {
        let (route, gore) = Self.motorwayExit(angle: angle)
        var after: [Double] = []
        for seed in Self.seeds {
            var random = SeededRandomNumberGenerator(seed: seed * 7919)
            let error = FieldTrack.ErrorModel(bias: 12 + 8 * random.nextUniform(), biasBearing: 360 * random.nextUniform(), sigma: 4)
            let track = [TestRoutes.origin, Geodesy.destination(from: gore, distance: 1500, bearing: 0)]
            let samples = FieldTrack(speed: 27.8, error: error, seed: seed).samples(along: track)
            let run = try Run(route, samples.map(\.fix))
            let first = try #require(
                run.outputs.firstIndex { if case .state(.navigating(let s), _) = $0 { s.deviation.isOffRoute } else { false } }, "seed \(seed)")
            let separation = (samples[first].distance - 800) * sin(Geodesy.radians(angle))
            after.append(separation)
            #expect(separation >= 15, "seed \(seed): off-route with the roadways \(Int(separation)) m apart")
            let latest = 2.5 * error.honestAccuracy + error.bias + 2 * error.sigma + 3 * 27.8 * sin(Geodesy.radians(angle))
            #expect(separation <= latest, "seed \(seed): off-route only \(Int(separation)) m apart (bound \(Int(latest)) m)")
            let taken = try Run(route, FieldTrack(speed: 27.8, error: error, seed: seed).fixes(along: Self.line(route)))
            #expect(taken.offRoute == 0, "seed \(seed): taking the exit under city error went off-route")
        }
        print("field drives: missed exit at \(angle)° under city error: off-route with the roadways \(Self.summary(after)) apart")
    }

    // MARK: - Fixes that cannot be true

    @Test func aTeleportAndAFixFromThePastMoveNothing() throws {
        let route = try Self.helsinki()
        for seed in Self.seeds {
            var fixes = FieldTrack(speed: 10, error: .openSky, seed: seed).fixes(along: Self.line(route))
            var teleport = fixes[30]
            teleport.coordinate = Geodesy.destination(from: teleport.coordinate, distance: 5_000_000, bearing: 180)
            teleport.timestamp += 0.5
            var past = fixes[60]
            past.timestamp -= 30
            past.coordinate = fixes[30].coordinate
            fixes.insert(teleport, at: 31)
            fixes.insert(past, at: 62)
            fixes.insert(fixes[70], at: 71)  // a receiver repeating itself
            let run = try Run(route, fixes)
            #expect(run.rejected == [.impossibleSpeed, .backwardsInTime, .repeatedTime], "seed \(seed): \(run.rejected)")
            Self.expectClean(run, label: "seed \(seed)", maximumHop: 10 + 10)
            // Exactly what the same drive without the bad fixes travelled: they moved nothing.
            let clean = try Run(route, FieldTrack(speed: 10, error: .openSky, seed: seed).fixes(along: Self.line(route)))
            let travelled = try #require(run.distanceTravelled)
            #expect(abs(travelled - (clean.distanceTravelled ?? 0)) < 1e-6, "seed \(seed): \(Int(travelled)) m travelled")
        }
    }

    /// Found by the whole-daemon fuzz in navd, and `navctl replay` (TripReplay) had it too: a jump the gate accepts
    /// after it persisted is a new position, so the straight line across it is no distance driven. Here the
    /// receiver is back after two hours without a fix: the two fixes refused and the one accepted after them add
    /// nothing; the rest of the drive counts as it would without the gap.
    @Test func aJumpAcceptedAfterItPersistedAddsNoDistance() throws {
        let route = try Self.helsinki()
        let clean = FieldTrack(speed: 10, error: .openSky, seed: 3).fixes(along: Self.line(route))
        var gapped = clean
        for index in 40..<gapped.count { gapped[index].timestamp += 7200 }
        let run = try Run(route, gapped)
        #expect(run.rejected == [.timeJump, .timeJump])
        #expect(run.isComplete)
        let notDriven = (39..<42).reduce(0.0) { $0 + Geodesy.distance(clean[$1].coordinate, clean[$1 + 1].coordinate) }
        let expected = try #require(try Run(route, clean).distanceTravelled) - notDriven
        let travelled = try #require(run.distanceTravelled)
        #expect(abs(travelled - expected) < 0.01, "\(travelled) m travelled; \(expected) m expected")
    }
}

@Suite("Plausibility gate")
struct FixPlausibilityGateTests {
    func fix(_ north: Double, at seconds: Double, accuracy: Double = 5) -> UserLocation {
        UserLocation(
            coordinate: Geodesy.destination(from: TestRoutes.origin, distance: north, bearing: 0), horizontalAccuracy: accuracy,
            timestamp: TestRoutes.start.addingTimeInterval(seconds))
    }

    @Test func ordinaryDrivingPasses() {
        var gate = FixPlausibilityGate()
        for i in 0..<100 { #expect(gate.check(fix(Double(i) * 30, at: Double(i))) == .accepted) }
        #expect(gate.rejections.total == 0)
    }

    /// A jump in place (the receiver carried 20 km away by a ferry or a tow truck) or in time (parked two hours in a
    /// garage without a sky view, then driven out 2 km away) that persists: accepted after three consistent fixes.
    @Test(arguments: [(distance: 20_000.0, after: 1.0, reason: FixRejection.impossibleSpeed), (2000, 7200, .timeJump)])
    func aJumpThatPersistsIsAcceptedAfterThreeConsistentFixes(distance: Double, after seconds: Double, reason: FixRejection) {
        var gate = FixPlausibilityGate()
        #expect(gate.check(fix(0, at: 0)) == .accepted)
        #expect(gate.check(fix(distance, at: seconds)) == .rejected(reason))
        #expect(gate.check(fix(distance + 10, at: seconds + 1)) == .rejected(reason))
        guard case .acceptedAfterJump(let jumped) = gate.check(fix(distance + 20, at: seconds + 2)) else {
            Issue.record("the persistent jump was not accepted")
            return
        }
        #expect(abs(jumped - (distance + 20)) < 1)
        #expect(gate.check(fix(distance + 30, at: seconds + 3)) == .accepted)
        var expected = FixRejectionCounts()
        if reason == .impossibleSpeed { expected.impossibleSpeed = 2 } else { expected.timeJump = 2 }
        #expect(gate.rejections == expected)
    }

    @Test func aSingleGhostBetweenGoodFixesIsDropped() {
        var gate = FixPlausibilityGate()
        #expect(gate.check(fix(0, at: 0)) == .accepted)
        #expect(gate.check(fix(9000, at: 1)) == .rejected(.impossibleSpeed))
        #expect(gate.check(fix(20, at: 2)) == .accepted)
        #expect(gate.check(fix(9000, at: 3)) == .rejected(.impossibleSpeed))
        #expect(gate.check(fix(40, at: 4)) == .accepted)
    }

    /// Found by the whole-daemon fuzz: one fix dated years ahead, at the vehicle's place, passed the speed check
    /// (no distance is fast over years), and every real fix after it was then backwards in time.
    @Test(arguments: [
        86_400.0 * 365 * 170,  // a year of 2196 from a mangled date field
        86_400.0 * 7 * 1024,  // a GPS week-number rollover
        3602.0,  // just past the hour after the last accepted fix (at 1 s)
    ])
    func aSingleFixDatedFarAheadIsDroppedAndTheRealOnesGoOn(ahead: Double) {
        var gate = FixPlausibilityGate()
        #expect(gate.check(fix(0, at: 0)) == .accepted)
        #expect(gate.check(fix(10, at: 1)) == .accepted)
        #expect(gate.check(fix(20, at: ahead)) == .rejected(.timeJump))
        for second in 2..<10 { #expect(gate.check(fix(Double(second) * 10, at: Double(second))) == .accepted) }
        #expect(gate.rejections == { var counts = FixRejectionCounts(); counts.timeJump = 1; return counts }())
    }

    @Test func anOutageShorterThanTheGapResumesOnItsFirstFix() {
        var gate = FixPlausibilityGate()
        #expect(gate.check(fix(0, at: 0)) == .accepted)
        // A 20-minute tunnel at 20 m/s.
        #expect(gate.check(fix(24_000, at: 1200)) == .accepted)
    }

    @Test func poorAccuracyExplainsALargerJump() {
        var gate = FixPlausibilityGate()
        #expect(gate.check(fix(0, at: 0, accuracy: 60)) == .accepted)
        // 400 m in 1 s is impossible for a car, but two fixes of ±60 m explain 360 m of it.
        #expect(gate.check(fix(400, at: 1, accuracy: 60)) == .accepted)
        #expect(gate.check(fix(900, at: 2, accuracy: 5)) == .rejected(.impossibleSpeed))
    }
}
