import FoundationEssentials
import Glibc
import Synchronization
import SystemSupport
import VoiceGuidance

/// Says utterances through a speech program, one at a time: `espeak-ng` directly, or speech-dispatcher's
/// `spd-say`. Each utterance is a child process; stopping one kills it (and tells speech-dispatcher to cancel).
/// When a child ends, `finished` gets the utterance's id.
final class SpeechEngine: Sendable {
    enum Backend: String, Sendable, CaseIterable {
        case auto
        case speechDispatcher = "speech-dispatcher"
        case espeakNG = "espeak-ng"
    }

    let backend: Backend
    /// With espeak-ng: write each utterance to `<dir>/<n>-<id>.wav` instead of the sound card, and take as long
    /// as the audio lasts (field tests without speakers, and the tests).
    let wavDirectory: String?
    private let finished: @Sendable (String) -> Void
    /// The child saying the current utterance; `exited` once it has ended but is not yet reaped, so a stop
    /// never signals a process id the system may have given to another process.
    private let running = Mutex<(pid: pid_t, id: String, exited: Bool)?>(nil)
    private let counter = Mutex(0)

    init(backend: Backend, wavDirectory: String?, finished: @escaping @Sendable (String) -> Void) {
        self.backend = backend == .auto ? (wavDirectory == nil && Self.speechDispatcherRuns ? .speechDispatcher : .espeakNG) : backend
        self.wavDirectory = wavDirectory
        self.finished = finished
    }

    /// speech-dispatcher's socket exists for this user (its default place).
    static var speechDispatcherRuns: Bool {
        let environment = ProcessInfo.processInfo.environment
        let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        return access(environment["SPEECHD_SOCK"] ?? "\(runtime)/speech-dispatcher/speechd.sock", F_OK) == 0
    }

    /// The espeak-ng voice of a BCP 47 tag: its language, with the region where espeak-ng has one ("en-us").
    static func espeakVoice(_ language: String) -> String {
        let parts = language.lowercased().split(separator: "-")
        guard let primary = parts.first else { return "en" }
        if primary == "en", parts.count > 1, parts[1] == "us" { return "en-us" }
        return String(primary)
    }

    /// The arguments that say `utterance`, and the WAV file written (with `wavDirectory`).
    func arguments(for utterance: Utterance, number: Int) -> (arguments: [String], wav: String?) {
        switch backend {
        case .speechDispatcher:
            let priority = utterance.kind == .info ? "message" : "important"
            var arguments = ["spd-say", "--wait", "--language", utterance.language, "--priority", priority]
            if utterance.ssml != nil { arguments.append("--ssml") }
            return (arguments + ["--", utterance.ssml ?? utterance.text], nil)
        case .espeakNG, .auto:
            var arguments = ["espeak-ng", "-v", Self.espeakVoice(utterance.language)]
            if utterance.ssml != nil { arguments.append("-m") }
            var wav: String?
            if let wavDirectory {
                let name = utterance.id.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
                let padded = String(repeating: "0", count: max(0, 4 - String(number).count)) + String(number)
                wav = "\(wavDirectory)/\(padded)-\(String(name)).wav"
                arguments += ["-w", wav!]
            }
            return (arguments + ["--", utterance.ssml ?? utterance.text], wav)
        }
    }

    /// Starts saying `utterance`; returns the WAV file it goes to, if any. Throws when the program cannot start.
    @discardableResult
    func speak(_ utterance: Utterance) throws -> String? {
        let number = counter.withLock { count in
            count += 1
            return count
        }
        let (arguments, wav) = arguments(for: utterance, number: number)
        let pid = try ChildProcess.spawn(arguments)
        running.withLock { $0 = (pid, utterance.id, false) }
        let id = utterance.id
        DetachedThread.start(name: "navctl speech") { [self] in
            ChildProcess.waitUntilEnded(pid)
            running.withLock { current in
                if current?.pid == pid { current?.exited = true }
            }
            ChildProcess.wait(pid)
            // A file stands for the loudspeaker: it is "said" for as long as its audio lasts.
            if let wav, let seconds = WAVFile.duration(path: wav) { sleepUnlessStopped(seconds, pid: pid) }
            let stillCurrent = running.withLock { current -> Bool in
                guard current?.pid == pid else { return false }
                current = nil
                return true
            }
            if stillCurrent { finished(id) }
        }
        return wav
    }

    /// Stops what is being said at once. A WAV file being written is left to be finished (it takes a fraction of
    /// a second): a file cut off mid-write has a header no player reads; the stop still ends the "saying" of it.
    func stop() {
        let stopped = running.withLock { current -> Bool in
            guard let value = current else { return false }
            current = nil
            // Under the lock: the child has not been reaped, so its pid is still its own.
            if !value.exited, wavDirectory == nil { kill(value.pid, SIGTERM) }
            return true
        }
        if stopped, backend == .speechDispatcher, let cancel = try? ChildProcess.spawn(["spd-say", "--cancel"]) { ChildProcess.wait(cancel) }
    }

    private func sleepUnlessStopped(_ seconds: Double, pid: pid_t) {
        var left = seconds
        while left > 0 {
            let isCurrent = running.withLock { $0?.pid == pid }
            if !isCurrent { return }
            let step = min(left, 0.05)
            usleep(UInt32(step * 1_000_000))
            left -= step
        }
    }
}
