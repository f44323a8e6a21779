import NavigationCore
import NavigationDaemon
import NavigationProtocol
import PropertyBased
import Testing

/// The ledger skips the key of a banner or prompt it looked up last; what it sends must stay what the keyed
/// lookup alone sends (the model below, the ledger as it was), on any sequence of states.
@Suite struct InstructionLedgerTests {
    /// The ledger before it remembered its last lookup: a key made and looked up for every state.
    struct KeyedModel {
        var sent: Set<String> = []

        mutating func newInstructions(in state: NavigatingState) -> [InstructionEvent] {
            var result: [InstructionEvent] = []
            if let visual = state.visualInstruction,
                sent.insert("v\(state.stepIndex)|\(visual.triggerDistanceBeforeManeuver)|\(visual.primary.text)").inserted
            {
                result.append(.visual(visual, stepIndex: state.stepIndex))
            }
            if let spoken = state.spokenInstruction, sent.insert("s" + spoken.utteranceId).inserted {
                result.append(.spoken(spoken, stepIndex: state.stepIndex))
            }
            return result
        }
    }

    /// One state of a drive: a step, a banner (by text and trigger distance) or none, a prompt or none; or the
    /// ledger started afresh (a new route).
    enum Move {
        case state(step: Int, banner: (text: String, trigger: Double)?, prompt: String?)
        case newRoute
    }

    static let texts = ["Turn left", "Turn right", "Turn right", "Keep left", "e\u{301}tape", "\u{e9}tape"]
    // Distances whose texts differ although the numbers are equal (0 and -0), and two spelt alike.
    static let triggers: [Double] = [0, -0.0, 120, 120.0, 400.5, 1e300]
    static let prompts = ["a", "b", "c", "d"]

    /// How many numbers make different moves: every pick of `move(_:)` once.
    static let moveCount = 33 * 4 * (texts.count + 1) * triggers.count * (prompts.count + 1)

    /// A move from a number: one in 33 starts a new route; the rest pick a step, a banner or none, its trigger
    /// distance, and a prompt or none.
    static func move(_ number: Int) -> Move {
        guard number % 33 != 0 else { return .newRoute }
        var rest = number / 33
        func pick(_ count: Int) -> Int {
            defer { rest /= count }
            return rest % count
        }
        let step = pick(4), text = pick(texts.count + 1) - 1, trigger = pick(triggers.count), prompt = pick(prompts.count + 1) - 1
        return .state(step: step, banner: text < 0 ? nil : (texts[text], triggers[trigger]), prompt: prompt < 0 ? nil : prompts[prompt])
    }

    @Test func sendsWhatTheKeyedLookupSends() async throws {
        let route = try CoordinatorHarness.route()
        let controller = try NavigationController(route: route)
        let fix = CoordinatorHarness.fixes(along: route)[0]
        let base = try #require(controller.initialState(for: fix).navigating)
        await propertyCheck(count: 500, input: Gen.int(in: 0...(Self.moveCount - 1)).array(of: 1...60)) { numbers in
            var ledger = InstructionLedger()
            var model = KeyedModel()
            for number in numbers {
                switch Self.move(number) {
                case .newRoute:
                    _ = ledger.retractAll()
                    model = KeyedModel()
                case .state(let step, let banner, let prompt):
                    var state = base
                    state.stepIndex = step
                    state.visualInstruction = banner.map {
                        VisualInstruction(primary: VisualInstructionContent(text: $0.text), triggerDistanceBeforeManeuver: $0.trigger)
                    }
                    state.spokenInstruction = prompt.map {
                        SpokenInstruction(text: "say \($0)", triggerDistanceBeforeManeuver: 50, utteranceId: $0)
                    }
                    #expect(ledger.newInstructions(in: state) == model.newInstructions(in: state))
                }
            }
        }
    }

    /// A banner shown again after another one in between is not sent again; the last lookup is not what
    /// remembers it.
    @Test func aBannerSeenBeforeAnotherIsNotSentAgain() throws {
        let route = try CoordinatorHarness.route()
        var state = try #require(try NavigationController(route: route).initialState(for: CoordinatorHarness.fixes(along: route)[0]).navigating)
        var ledger = InstructionLedger()
        let first = VisualInstruction(primary: VisualInstructionContent(text: "Turn left"), triggerDistanceBeforeManeuver: 100)
        let second = VisualInstruction(primary: VisualInstructionContent(text: "Turn right"), triggerDistanceBeforeManeuver: 100)
        state.spokenInstruction = nil
        state.visualInstruction = first
        #expect(ledger.newInstructions(in: state).count == 1)
        #expect(ledger.newInstructions(in: state).isEmpty)
        state.visualInstruction = second
        #expect(ledger.newInstructions(in: state).count == 1)
        state.visualInstruction = first
        #expect(ledger.newInstructions(in: state).isEmpty)
        #expect(ledger.pending.map(\.key) == ["v\(state.stepIndex)|100.0|Turn right"])
    }
}
