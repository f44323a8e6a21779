import NavigationCore
import NavigationProtocol

/// Which instructions of the current route were sent, so each is sent exactly once, and which are still
/// pending (their maneuver not yet passed), so they can be retracted when the route changes.
public struct InstructionLedger: Sendable, Equatable {
    public struct Sent: Hashable, Sendable {
        public var kind: InstructionEvent.Kind
        public var stepIndex: Int
        /// `utteranceId` for spoken instructions; the banner's key for visual ones.
        public var key: String
    }

    private var sent: Set<String> = []
    /// Sent instructions whose maneuver is still ahead, oldest first.
    public private(set) var pending: [Sent] = []
    /// The banner and the prompt looked up last; their keys are in `sent`, which only grows. Nearly every fix
    /// shows the same ones again, and needs no key made and hashed for them (about 4,000 instructions a fix).
    private var lastVisual: VisualMark?
    private var lastSpokenId: String?

    /// What a banner's key is made of, the trigger distance by its bits: equal bits write the same key.
    private struct VisualMark: Equatable {
        var stepIndex: Int
        var triggerBits: UInt64
        var text: String

        init(_ visual: VisualInstruction, stepIndex: Int) {
            self.stepIndex = stepIndex
            triggerBits = visual.triggerDistanceBeforeManeuver.bitPattern
            text = visual.primary.text
        }
    }

    public init() {}

    /// Equal when the same instructions were sent and the same are pending (what was looked up last is not
    /// part of the ledger).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.sent == rhs.sent && lhs.pending == rhs.pending
    }

    /// The instructions of `state` not sent yet, in the order to send them (banner before its prompt).
    public mutating func newInstructions(in state: NavigatingState) -> [InstructionEvent] {
        pending.removeAll { $0.stepIndex < state.stepIndex }
        var result: [InstructionEvent] = []
        if let visual = state.visualInstruction, case let mark = VisualMark(visual, stepIndex: state.stepIndex), mark != lastVisual {
            lastVisual = mark
            let key = "v\(state.stepIndex)|\(visual.triggerDistanceBeforeManeuver)|\(visual.primary.text)"
            if sent.insert(key).inserted {
                let entry = Sent(kind: .visual, stepIndex: state.stepIndex, key: key)
                pending.removeAll { $0.kind == .visual }
                pending.append(entry)
                result.append(.visual(visual, stepIndex: state.stepIndex))
            }
        }
        if let spoken = state.spokenInstruction, lastSpokenId != spoken.utteranceId {
            lastSpokenId = spoken.utteranceId
            if sent.insert("s" + spoken.utteranceId).inserted {
                let entry = Sent(kind: .spoken, stepIndex: state.stepIndex, key: spoken.utteranceId)
                pending.removeAll { $0.kind == .spoken }
                pending.append(entry)
                result.append(.spoken(spoken, stepIndex: state.stepIndex))
            }
        }
        return result
    }

    public func hasSentSpoken(_ utteranceId: String) -> Bool { sent.contains("s" + utteranceId) }

    /// For a route that replaces another mid-trip: its departure prompt ("Drive north on ...", spoken as the
    /// first step begins) counts as said, so the driver does not hear a departure again (a peer's known defect).
    /// The prompts for the first maneuver itself are kept; a departure merged with the first maneuver's prompt
    /// (a short first step: "Head west on X, then turn right"), being the only announcement of that maneuver, is
    /// kept too.
    public mutating func skipDeparture(of route: Route) {
        guard let first = route.steps.first, first.maneuver.type == .depart else { return }
        let atStart = first.spokenInstructions.filter { $0.triggerDistanceBeforeManeuver >= first.distance - 1 }
        guard atStart.count < first.spokenInstructions.count else { return }
        for spoken in atStart { sent.insert("s" + spoken.utteranceId) }
    }

    /// Everything pending, which the caller retracts; the ledger starts afresh for a new route.
    public mutating func retractAll() -> [Sent] {
        defer { self = InstructionLedger() }
        return pending
    }
}
