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

    public init() {}

    /// The instructions of `state` not sent yet, in the order to send them (banner before its prompt).
    public mutating func newInstructions(in state: NavigatingState) -> [InstructionEvent] {
        pending.removeAll { $0.stepIndex < state.stepIndex }
        var result: [InstructionEvent] = []
        if let visual = state.visualInstruction {
            let key = "v\(state.stepIndex)|\(visual.triggerDistanceBeforeManeuver)|\(visual.primary.text)"
            if sent.insert(key).inserted {
                let entry = Sent(kind: .visual, stepIndex: state.stepIndex, key: key)
                pending.removeAll { $0.kind == .visual }
                pending.append(entry)
                result.append(.visual(visual, stepIndex: state.stepIndex))
            }
        }
        if let spoken = state.spokenInstruction {
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

    /// Everything pending, which the caller retracts; the ledger starts afresh for a new route.
    public mutating func retractAll() -> [Sent] {
        defer { self = InstructionLedger() }
        return pending
    }
}
