import ArgumentParser
import FoundationEssentials
import Glibc
import NavdClient
import NavigationCore
import NavigationProtocol
import VoiceGuidance

extension SpeechEngine.Backend: ExpressibleByArgument {}

/// The voice client: speaks navd's spoken instructions and announcements in the driver's language, through
/// speech-dispatcher or espeak-ng, following the voice mode; reconnects when navd restarts.
struct SpeakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: "Speak navd's voice prompts and announcements (speech-dispatcher, else espeak-ng).",
        discussion: """
            Subscribes to navd and says its spoken instructions and its own announcements in the language of \
            [guidance], one at a time: a maneuver prompt interrupts anything less urgent, a prompt retracted by a \
            reroute is never said, one whose maneuver is behind the vehicle by the time it would start is dropped, \
            and announcements not started within --maximum-wait are dropped. Follows the voice mode (navctl voice). \
            Prints one line per decision (--json: JSON Lines). docs/voice.md.
            """)

    @OptionGroup var connection: SocketOptions

    @Option(help: "auto (speech-dispatcher when its socket exists, else espeak-ng), speech-dispatcher or espeak-ng.")
    var engine: SpeechEngine.Backend = .auto

    @Option(help: "Write each utterance to a WAV file in this directory (espeak-ng) instead of the sound card.")
    var wavDir: String?

    @Option(help: "Seconds an announcement may wait behind others before it is dropped.")
    var maximumWait: Double = 10

    @Flag(help: "Print each decision as a JSON line.")
    var json = false

    @Flag(help: "Exit once the trip has arrived and everything due is said.")
    var untilArrived = false

    @Option(help: "Exit after this many seconds.")
    var timeout: Double?

    func validate() throws {
        guard (0...600).contains(maximumWait) else { throw ValidationError("--maximum-wait must be 0 to 600 seconds") }
        if wavDir != nil, engine == .speechDispatcher { throw ValidationError("--wav-dir needs espeak-ng (--engine espeak-ng or auto)") }
    }

    enum Input: Sendable {
        case update(NavdUpdate)
        case finished(String)
        case timedOut
    }

    func run() async throws {
        try await reportingErrors {
            let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
            let speech = SpeechEngine(backend: engine, wavDirectory: wavDir) { continuation.yield(.finished($0)) }
            let updates = Task {
                for await update in NavdConnection.updates(path: connection.socket) { continuation.yield(.update(update)) }
            }
            defer { updates.cancel() }
            if let timeout {
                Task {
                    try? await Task.sleep(for: .seconds(timeout))
                    continuation.yield(.timedOut)
                }
            }
            let started = ContinuousClock.now
            func now() -> Double {
                let elapsed = ContinuousClock.now - started
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            }
            var scheduler = SpeechScheduler(maximumWait: maximumWait)
            var arrived = false
            // The last event's seq at each decision: what navd had said by then (a retraction's seq orders it).
            var lastSeq: UInt64 = 0
            report(["action": "start", "engine": .string(speech.backend.rawValue)], plain: "speaking through \(speech.backend.rawValue)")
            loop: for await input in inputs {
                let decisions: [SpeechDecision]
                switch input {
                case .update(.connected(let hello)):
                    decisions = scheduler.connected(hello, now: now())
                    report(
                        ["action": "connected", "mode": .string(scheduler.mode.rawValue), "language": .string(scheduler.language)],
                        plain: "connected to navd \(hello.navd): voice \(scheduler.mode.rawValue), \(scheduler.language)")
                case .update(.event(let message)):
                    lastSeq = message.seq
                    decisions = scheduler.receive(message, now: now())
                    if case .arrived = message.event { arrived = true }
                    if case .voice(let voice) = message.event {
                        report(["action": "mode", "mode": .string(voice.mode.rawValue), "language": .string(voice.language)], plain: voice.summary)
                    }
                case .update(.disconnected(let error)):
                    decisions = []
                    report(["action": "disconnected", "reason": .string(error.description)], plain: "navd: \(error.description); retrying")
                case .finished(let id):
                    if let utterance = scheduler.speaking, utterance.id == id {
                        report(fields(utterance, action: "finished", at: now(), afterSeq: lastSeq), plain: "done  \(id)")
                    }
                    decisions = scheduler.finished(id, now: now())
                case .timedOut:
                    break loop
                }
                for decision in decisions { perform(decision, speech: speech, at: now(), afterSeq: lastSeq) }
                if untilArrived, arrived, scheduler.speaking == nil, scheduler.queue.isEmpty { break }
            }
            speech.stop()
        }
    }

    private func perform(_ decision: SpeechDecision, speech: SpeechEngine, at time: Double, afterSeq: UInt64) {
        switch decision {
        case .speak(let utterance):
            do {
                let wav = try speech.speak(utterance)
                var fields = fields(utterance, action: "speak", at: time, afterSeq: afterSeq)
                if let wav { fields["wav"] = .string(wav) }
                report(fields, plain: "say   [\(utterance.kind.rawValue), \(utterance.language)] \(utterance.text)")
            } catch {
                report(["action": "error", "id": .string(utterance.id), "reason": .string("\(error)")], plain: "cannot say \(utterance.id): \(error)")
            }
        case .interrupt(let utterance, let reason):
            speech.stop()
            var fields = fields(utterance, action: "interrupt", at: time, afterSeq: afterSeq)
            fields["reason"] = .string(reason)
            report(fields, plain: "stop  \(utterance.id): \(reason)")
        case .drop(let utterance, let reason):
            var fields = fields(utterance, action: "drop", at: time, afterSeq: afterSeq)
            fields["reason"] = .string(reason)
            report(fields, plain: "drop  \(utterance.id): \(reason)")
        }
    }

    /// `time`: seconds since navctl started; `afterSeq`: the last event's seq when decided.
    private func fields(_ utterance: Utterance, action: String, at time: Double, afterSeq: UInt64) -> [String: JSONValue] {
        [
            "afterSeq": .number(Double(afterSeq)),
            "action": .string(action), "id": .string(utterance.id), "kind": .string(utterance.kind.rawValue), "text": .string(utterance.text),
            "language": .string(utterance.language), "time": .number((time * 1000).rounded() / 1000),
        ]
    }

    private func report(_ fields: [String: JSONValue], plain: String) {
        if json { writeLine(String(decoding: JSONLine.serialize(fields).dropLast(), as: UTF8.self)) } else { writeLine(plain) }
    }
}

/// `voice`: show or set the voice mode.
struct VoiceSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice", abstract: "Show the voice mode, or set it: full, alerts_only or muted (kept across restarts).")

    @OptionGroup var connection: SocketOptions

    @Argument(help: "full, alerts_only or muted; without it, the mode is shown.")
    var mode: VoiceMode?

    func run() async throws {
        try await reportingErrors {
            let voice = try await connection.send(VoiceCommand(mode: mode))
            writeLine(voice.summary)
        }
    }
}

extension VoiceMode: ExpressibleByArgument {}

/// `repeat`: say the next maneuver again.
struct RepeatSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repeat", abstract: "Say the next maneuver again, at its distance now (every voice client speaks it).")

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        try await reportingErrors { writeLine(try await connection.send(RepeatCommand()).text) }
    }
}
