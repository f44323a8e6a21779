import NavigationCore
import NavigationProtocol

/// Decides what a voice client says and when, from navd's events: one utterance at a time, the most urgent
/// first; a maneuver prompt interrupts anything lower; a retracted prompt is never said, and one whose maneuver
/// is behind the vehicle by the time it would start is dropped; announcements not started within
/// ``maximumWait`` are dropped. Pure: events and the time in, decisions out; the caller speaks and reports back
/// with ``finished(_:now:)``.
public struct SpeechScheduler: Sendable {
    /// The voice mode (`voice` event, `state.voice` in `hello`).
    public private(set) var mode: VoiceMode = .full
    /// The language of the engine's prompts (`[guidance] language`, from `hello` and `voice`).
    public private(set) var language = "en"
    /// What is being said.
    public private(set) var speaking: Utterance?
    /// Waiting, most urgent first, then oldest first.
    public private(set) var queue: [Utterance] = []
    /// Seconds: an announcement or a requested repeat still waiting after this long is dropped (it would be old news).
    public var maximumWait: Double

    /// The vehicle's route and step (`trip_state`), against which prompts are judged stale.
    private var routeId: String?
    private var stepIndex: Int?

    public init(maximumWait: Double = 10) {
        self.maximumWait = maximumWait
    }

    /// A (re)connection: the mode and language navd holds now. Anything queued from before is dropped.
    public mutating func connected(_ hello: Hello, now: Double) -> [SpeechDecision] {
        var decisions = queue.map { SpeechDecision.drop($0, reason: "connection to navd lost") }
        queue.removeAll()
        if let voice = hello.state.voice {
            language = voice.language
            decisions += apply(mode: voice.mode, now: now)
        }
        routeId = hello.state.routeId
        stepIndex = hello.state.tripState?.stepIndex
        return decisions
    }

    public mutating func receive(_ message: EventMessage, now: Double) -> [SpeechDecision] {
        switch message.event {
        case .instruction(let instruction):
            guard instruction.kind == .spoken, let spoken = instruction.spoken else { return [] }
            let utterance = Utterance(
                id: spoken.utteranceId, kind: .maneuver, text: spoken.text, ssml: spoken.ssml, language: language,
                routeId: message.routeId, stepIndex: instruction.stepIndex, received: now)
            return enqueue(utterance, now: now)
        case .announcement(let announcement):
            let kind: Utterance.Kind =
                announcement.key == "repeat_maneuver" ? .requested : announcement.priority == .alert ? .alert : .info
            let utterance = Utterance(
                id: "announcement-\(message.seq)", kind: kind, text: announcement.text, language: announcement.language,
                routeId: message.routeId, received: now)
            return enqueue(utterance, now: now)
        case .instructionRetracted(let retracted):
            let ids = Set(retracted.instructions.compactMap(\.utteranceId))
            return remove(where: { ids.contains($0.id) }, reason: "retracted (\(retracted.reason.rawValue))", now: now)
        case .tripState(let record):
            routeId = message.routeId
            stepIndex = record.stepIndex
            return remove(queuedOnly: true, where: isStale, reason: "stale: its maneuver is behind the vehicle", now: now)
        case .voice(let voice):
            language = voice.language
            return apply(mode: voice.mode, now: now)
        default:
            return []
        }
    }

    /// The speech engine finished `id` (or stopped it): the next utterance that is still due starts.
    public mutating func finished(_ id: String, now: Double) -> [SpeechDecision] {
        guard speaking?.id == id else { return [] }
        speaking = nil
        return startNext(now: now)
    }

    // MARK: -

    private mutating func enqueue(_ utterance: Utterance, now: Double) -> [SpeechDecision] {
        guard utterance.kind.isSpoken(in: mode) else { return [.drop(utterance, reason: "voice mode \(mode.rawValue)")] }
        var decisions: [SpeechDecision] = []
        if utterance.kind == .maneuver {
            // A newer prompt says the same maneuver closer (or a later one): the older, still waiting, would be wrong.
            decisions += remove(queuedOnly: true, where: { $0.kind == .maneuver }, reason: "superseded by \(utterance.id)", now: now)
        }
        if let current = speaking {
            if utterance.kind.rank > current.kind.rank {
                speaking = nil
                queue.insert(utterance, at: insertionIndex(for: utterance))
                return decisions + [.interrupt(current, reason: "\(utterance.kind.rawValue) \(utterance.id) is more urgent")] + startNext(now: now)
            }
            queue.insert(utterance, at: insertionIndex(for: utterance))
            return decisions
        }
        queue.insert(utterance, at: insertionIndex(for: utterance))
        return decisions + startNext(now: now)
    }

    private func insertionIndex(for utterance: Utterance) -> Int {
        queue.firstIndex { $0.kind.rank < utterance.kind.rank } ?? queue.count
    }

    private mutating func startNext(now: Double) -> [SpeechDecision] {
        var decisions: [SpeechDecision] = []
        while speaking == nil, !queue.isEmpty {
            let next = queue.removeFirst()
            if isStale(next) {
                decisions.append(.drop(next, reason: "stale: its maneuver is behind the vehicle"))
            } else if next.kind != .maneuver, now - next.received > maximumWait {
                decisions.append(.drop(next, reason: "waited \(CheckedNumber.clampedWhole(now - next.received)) s (more than \(CheckedNumber.clampedWhole(maximumWait)) s)"))
            } else {
                speaking = next
                decisions.append(.speak(next))
            }
        }
        return decisions
    }

    /// A maneuver prompt of another route, or of a step the vehicle has passed.
    private func isStale(_ utterance: Utterance) -> Bool {
        guard utterance.kind == .maneuver, let step = utterance.stepIndex else { return false }
        if let routeId, utterance.routeId != routeId { return true }
        if let stepIndex, stepIndex > step { return true }
        return false
    }

    private mutating func apply(mode newMode: VoiceMode, now: Double) -> [SpeechDecision] {
        mode = newMode
        return remove(where: { !$0.kind.isSpoken(in: newMode) }, reason: "voice mode \(newMode.rawValue)", now: now)
    }

    /// Drops what matches from the queue and interrupts it if it is being said (unless `queuedOnly`).
    private mutating func remove(
        queuedOnly: Bool = false, where matches: (Utterance) -> Bool, reason: String, now: Double
    ) -> [SpeechDecision] {
        var decisions = queue.filter(matches).map { SpeechDecision.drop($0, reason: reason) }
        queue.removeAll(where: matches)
        if !queuedOnly, let current = speaking, matches(current) {
            speaking = nil
            decisions.append(.interrupt(current, reason: reason))
            decisions += startNext(now: now)
        }
        return decisions
    }
}
