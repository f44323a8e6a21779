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
    private let running = Mutex<(pid: pid_t, id: String, stopped: Bool)?>(nil)
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
            ChildProcess.wait(pid)
            // A file stands for the loudspeaker: it is "said" for as long as its audio lasts.
            if let wav, let seconds = WAVFile.duration(path: wav) { sleepUnlessStopped(seconds, pid: pid) }
            let stopped = running.withLock { current -> Bool in
                guard let value = current, value.pid == pid else { return true }
                current = nil
                return value.stopped
            }
            if !stopped { finished(id) }
        }
        return wav
    }

    /// Stops what is being said at once.
    func stop() {
        let pid = running.withLock { current -> pid_t? in
            guard let value = current else { return nil }
            current = nil
            return value.pid
        }
        guard let pid else { return }
        kill(pid, SIGTERM)
        if backend == .speechDispatcher, let cancel = try? ChildProcess.spawn(["spd-say", "--cancel"]) { ChildProcess.wait(cancel) }
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

/// A child process started with posix_spawnp, its output to /dev/null.
enum ChildProcess {
    struct SpawnError: Error, CustomStringConvertible {
        var program: String
        var code: Int32
        var description: String { "cannot run \(program): \(String(cString: strerror(code)))" }
    }

    static func spawn(_ arguments: [String]) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard status == 0 else { throw SpawnError(program: arguments[0], code: status) }
        return pid
    }

    /// Waits for `pid` to end; returns its exit status (-1 when killed by a signal).
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}

/// The length of a PCM WAV file from its header (espeak-ng writes 16-bit mono at 22050 Hz).
enum WAVFile {
    static func duration(path: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 44 else { return nil }
        func word(_ offset: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) } }
        let byteRate = word(28, 4)
        guard byteRate > 0 else { return nil }
        return Double(data.count - 44) / Double(byteRate)
    }
}
