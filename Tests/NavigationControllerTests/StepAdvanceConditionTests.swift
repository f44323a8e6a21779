import Foundation
import NavigationCore
import Testing

@Suite("Step advance conditions")
struct StepAdvanceConditionTests {
    static func context(
        toEnd: Double, fromStep: Double = 0, fromManeuver: Double? = nil, fromRoute: Double = 0, accuracy: Double = 5,
        nextStep: Bool = false, onRoute: Bool = true
    ) -> StepAdvanceContext {
        StepAdvanceContext(
            location: TestRoutes.fix(TestRoutes.origin, at: 0, accuracy: accuracy), distanceToEndOfStep: toEnd,
            distanceFromCurrentStep: fromStep, distanceFromManeuver: fromManeuver ?? abs(toEnd), distanceFromRoute: fromRoute,
            matchedNextStep: nextStep, isOnRoute: onRoute)
    }

    func run(_ condition: StepAdvanceCondition, _ contexts: [StepAdvanceContext]) -> [Bool] {
        var state = StepAdvanceConditionState(condition)
        return contexts.map { context in
            let (advance, next) = condition.evaluate(context, state: state)
            state = next
            return advance
        }
    }

    @Test func manualNeverAdvancesByItself() {
        #expect(run(.manual, [Self.context(toEnd: 0), Self.context(toEnd: -100, fromStep: 100)]) == [false, false])
    }

    @Test func distanceToEndOfStep() {
        let c = StepAdvanceCondition.distanceToEndOfStep(distance: 20, minimumHorizontalAccuracy: 10)
        #expect(run(c, [Self.context(toEnd: 50), Self.context(toEnd: 21), Self.context(toEnd: 20)]) == [false, false, true])
        #expect(run(c, [Self.context(toEnd: 5, accuracy: 11)]) == [false])
    }

    @Test(arguments: [
        (DistanceFromStepPolicy.always, [true, true, true]),
        (.whileOnRoute, [true, false, true]),
        (.whileOnCurrentStep, [false, false, true]),
    ])
    func distanceFromStepPolicies(policy: DistanceFromStepPolicy, expected: [Bool]) {
        let c = StepAdvanceCondition.distanceFromStep(distance: 30, minimumHorizontalAccuracy: 10, policy: policy)
        let contexts = [
            Self.context(toEnd: -40, fromStep: 31),
            Self.context(toEnd: -40, fromStep: 31, onRoute: false),
            Self.context(toEnd: -40, fromStep: 31, nextStep: true),
        ]
        #expect(run(c, contexts) == expected)
        #expect(run(c, [Self.context(toEnd: -40, fromStep: 29, nextStep: true)]) == [false])
    }

    @Test func entryAndExitRemembersTheEntry() {
        let c = StepAdvanceCondition.distanceEntryAndExit(entry: 30, exit: 5, minimumHorizontalAccuracy: 10)
        // Far: nothing. Within 30 m: entered, not past. Past the maneuver by 3 m: not yet. 6 m: advance.
        #expect(run(c, [Self.context(toEnd: 80), Self.context(toEnd: 25), Self.context(toEnd: -3), Self.context(toEnd: -6)])
            == [false, false, false, true])
        // Without an entry first, being past the end does not count.
        var state = StepAdvanceConditionState(c)
        (_, state) = c.evaluate(Self.context(toEnd: 80), state: state)
        #expect(state == .entered(false))
        // Straight on past a turn: the snapped position stays at the corner and the fix is as far from the route
        // as from the corner: not an exit.
        #expect(run(c, [Self.context(toEnd: 20), Self.context(toEnd: 0, fromManeuver: 12, fromRoute: 12)]) == [false, false])
        // Sparse fixes: entry and exit on one fix.
        #expect(run(c, [Self.context(toEnd: -8)]) == [true])
        // A poor fix keeps the entry but decides nothing.
        #expect(run(c, [Self.context(toEnd: 25), Self.context(toEnd: -10, accuracy: 50), Self.context(toEnd: -10)]) == [false, false, true])
    }

    @Test func snappedExitMeasuresAlongTheNextStep() {
        let c = StepAdvanceCondition.distanceEntryAndSnappedExit(entry: 30, exit: 10, minimumHorizontalAccuracy: 10)
        // The raw fix is 12 m from the maneuver point, but only 4 m along the next step: not yet.
        #expect(run(c, [Self.context(toEnd: 20), Self.context(toEnd: -4, fromManeuver: 12), Self.context(toEnd: -10)]) == [false, false, true])
    }

    @Test func compositionsKeepEachChildsState() {
        let entryExit = StepAdvanceCondition.distanceEntryAndExit(entry: 30, exit: 5, minimumHorizontalAccuracy: 10)
        let far = StepAdvanceCondition.distanceFromStep(distance: 50, minimumHorizontalAccuracy: 10, policy: .always)
        let or = StepAdvanceCondition.or([entryExit, far])
        #expect(run(or, [Self.context(toEnd: 100, fromStep: 60)]) == [true])
        #expect(run(or, [Self.context(toEnd: 20), Self.context(toEnd: -6)]) == [false, true])
        let and = StepAdvanceCondition.and([entryExit, .distanceToEndOfStep(distance: 0, minimumHorizontalAccuracy: 10)])
        #expect(run(and, [Self.context(toEnd: 20), Self.context(toEnd: -6)]) == [false, true])
        #expect(run(.and([]), [Self.context(toEnd: 0)]) == [false])
        #expect(run(.or([]), [Self.context(toEnd: 0)]) == [false])
    }
}

@Suite("Controller configuration documents")
struct ControllerConfigTests {
    @Test func defaultsRoundTrip() throws {
        let data = try JSONEncoder().encode(NavigationControllerConfig())
        let decoded = try JSONDecoder().decode(NavigationControllerConfig.self, from: data)
        #expect(decoded.stepAdvance == NavigationControllerConfig.defaultStepAdvance)
        #expect(decoded.arrival == NavigationControllerConfig.defaultArrival)
        #expect(decoded.waypointAdvance == .withinRange(100))
        #expect(decoded.courseFiltering == .snapToRoute)
    }

    @Test func speedAdaptiveAloneTakesItsDefaults() throws {
        let config = try JSONDecoder().decode(NavigationControllerConfig.self, from: Data(#"{"promptTiming": "speedAdaptive"}"#.utf8))
        guard case .speedAdaptive(let reference, let minimum, let maximum) = config.promptTiming else {
            Issue.record("expected speed-adaptive timing")
            return
        }
        #expect(reference == 13.9 && minimum == 0.6 && maximum == 2)
    }

    @Test func aPartialDocumentKeepsDefaults() throws {
        let json = #"""
            {"arrival": {"distanceToEndOfStep": {"distance": 12, "minimumHorizontalAccuracy": 20}},
             "stepAdvance": {"and": ["manual", {"distanceFromStep": {"distance": 40, "minimumHorizontalAccuracy": 30}}]},
             "deviationTracking": {"staticThreshold": {"enterDistance": 60}},
             "waypointAdvance": {"alongAdvancingStep": 25},
             "promptTiming": {"speedAdaptive": {"referenceSpeed": 10}}}
            """#
        let config = try JSONDecoder().decode(NavigationControllerConfig.self, from: Data(json.utf8))
        #expect(config.arrival == .distanceToEndOfStep(distance: 12, minimumHorizontalAccuracy: 20))
        #expect(config.stepAdvance == .and([.manual, .distanceFromStep(distance: 40, minimumHorizontalAccuracy: 30, policy: .always)]))
        #expect(config.waypointAdvance == .alongAdvancingStep(25))
        guard case .staticThreshold(let threshold) = config.deviationTracking else {
            Issue.record("expected a static threshold")
            return
        }
        #expect(threshold.enterDistance == 60)
        #expect(threshold.exitDistance == StaticThresholdDeviation().exitDistance)
        guard case .speedAdaptive(let reference, let minimum, _) = config.promptTiming else {
            Issue.record("expected speed-adaptive timing")
            return
        }
        #expect(reference == 10)
        #expect(minimum == 0.6)
    }

    @Test(arguments: [
        (#"{"stepAdvance": {"teleport": {}}}"#, "unknown 'teleport'"),
        (#"{"stepAdvance": {"manual": 1, "or": []}}"#, "exactly one of"),
        (#"{"deviationTracking": "sometimes"}"#, "unknown value 'sometimes'"),
        (#"{"deviationTracking": {"staticThreshold": {"exitDistance": 40}}}"#, "would flap"),
        (#"{"courseFiltering": "smooth"}"#, "smooth"),
        // A malformed speed-adaptive timing is an error, never the defaults in disguise.
        (#"{"promptTiming": {"speedAdaptive": {"referenceSpeed": "fast"}}}"#, "referenceSpeed"),
        (#"{"promptTiming": {"speedAdaptive": {"referenceSpeeed": 10}}}"#, "unknown key 'referenceSpeeed'"),
        (#"{"promptTiming": {"speedAdaptive": {"minimumFactor": 3, "maximumFactor": 2}}}"#, "minimumFactor <= maximumFactor"),
        (#"{"promptTiming": {"speedAdaptive": 5}}"#, "speedAdaptive"),
    ])
    func badDocumentsSayWhatIsWrong(json: String, message: String) {
        #expect {
            try JSONDecoder().decode(NavigationControllerConfig.self, from: Data(json.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
