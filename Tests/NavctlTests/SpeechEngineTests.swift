import Foundation
import Synchronization
import Testing
import VoiceGuidance

@testable import NavctlCommands

/// `navctl speak`'s speech engine with the real espeak-ng writing WAV files: an utterance is finished (and
/// reported) once its audio has lasted, and one stopped while its file is being written still leaves a whole file.
@Suite(.serialized)
struct SpeechEngineTests {
    static let text = "In vierhundert Metern rechts abbiegen auf die Mannerheimintie, dann geradeaus weiterfahren."

    static func requireEspeak() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng"), "/usr/bin/espeak-ng is missing: scripts/setup installs it")
    }

    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("navd-speech-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A RIFF file whose header gives its own length: espeak-ng writes the sizes when it closes the file.
    static func isWhole(_ path: String) -> Bool { WAVFile(path: path)?.isWhole ?? false }

    /// Polls `condition` every 20 ms for at most `timeout` seconds.
    static func wait(_ timeout: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test func anUtteranceSaidToAFileIsFinishedOnceItsAudioHasLasted() throws {
        try Self.requireEspeak()
        let finished = Mutex<[String]>([])
        let engine = SpeechEngine(backend: .espeakNG, wavDirectory: try Self.directory()) { id in finished.withLock { $0.append(id) } }
        let started = Date()
        let wav = try #require(try engine.speak(Utterance(id: "u-1", kind: .maneuver, text: Self.text, language: "de", received: 0)))
        #expect(Self.wait(30) { !finished.withLock { $0.isEmpty } }, "never finished")
        let elapsed = Date().timeIntervalSince(started)
        #expect(finished.withLock { $0 } == ["u-1"])
        #expect(Self.isWhole(wav))
        let seconds = try #require(WAVFile.duration(path: wav))
        #expect(seconds > 2, "\(seconds) s of audio")
        // "Said" for as long as the audio lasts (the 50 ms steps of the wait may end it a step early).
        #expect(elapsed >= seconds - 0.06, "finished after \(elapsed) s of \(seconds) s of audio")
    }

    @Test func anUtteranceStoppedWhileItsFileIsWrittenLeavesAWholeFileAndIsNotFinished() throws {
        try Self.requireEspeak()
        let finished = Mutex<[String]>([])
        let engine = SpeechEngine(backend: .espeakNG, wavDirectory: try Self.directory()) { id in finished.withLock { $0.append(id) } }
        let long = Array(repeating: Self.text, count: 40).joined(separator: " ")
        let wav = try #require(try engine.speak(Utterance(id: "u-2", kind: .maneuver, text: long, language: "de", received: 0)))
        engine.stop()
        #expect(Self.wait(30) { Self.isWhole(wav) }, "the file was left cut off")
        let seconds = try #require(WAVFile.duration(path: wav))
        #expect(seconds > 100, "\(seconds) s of audio: the whole text")
        // Stopped: never reported finished, though the file is whole.
        usleep(500_000)
        #expect(finished.withLock { $0 }.isEmpty)
        // The next utterance is said and finished as usual.
        _ = try engine.speak(Utterance(id: "u-3", kind: .requested, text: "Jetzt rechts.", language: "de", received: 0))
        #expect(Self.wait(30) { finished.withLock { $0 } == ["u-3"] })
    }

    /// The signal masks of `/proc/PID/status` (`SigBlk`, `SigIgn`), as bit sets (bit n-1 for signal n).
    static func signalSets(of pid: pid_t) throws -> (blocked: UInt64, ignored: UInt64) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8).split(separator: "\n")
        func mask(_ name: String) throws -> UInt64 {
            let line = try #require(status.first { $0.hasPrefix(name + ":") })
            return try #require(UInt64(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16))
        }
        return (try mask("SigBlk"), try mask("SigIgn"))
    }

    /// Started from a Swift concurrency thread (which blocks most signals) and from a thread that ignores SIGTERM,
    /// the speech program still has no signal blocked and SIGTERM at its default, so a stop ends it.
    @Test func aSpeechProgramEndsOnTheStopsSignalWhateverTheThreadThatStartedIt() async throws {
        let fromTask = try await Task { try ChildProcess.spawn(["sleep", "30"]) }.value
        let sets = try Self.signalSets(of: fromTask)
        #expect(sets.blocked == 0, "blocked: \(String(sets.blocked, radix: 16))")
        #expect(sets.ignored & (1 << (UInt64(SIGTERM) - 1)) == 0, "SIGTERM ignored")
        kill(fromTask, SIGTERM)
        #expect(ChildProcess.wait(fromTask) == -1, "not ended by SIGTERM")

        let previous = signal(SIGTERM, SIG_IGN)
        defer { signal(SIGTERM, previous) }
        let whileIgnored = try ChildProcess.spawn(["sleep", "30"])
        #expect(try Self.signalSets(of: whileIgnored).ignored & (1 << (UInt64(SIGTERM) - 1)) == 0, "SIGTERM ignored")
        kill(whileIgnored, SIGTERM)
        #expect(ChildProcess.wait(whileIgnored) == -1, "not ended by SIGTERM")
    }
}
