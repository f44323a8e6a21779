import Dispatch
import FoundationEssentials
import Glibc
import Logging
import NavigationCore
import NavigationProtocol

/// The voice mode kept across restarts: one word (`full`, `alerts_only`, `muted`) in `voice-mode`, next to the
/// trip journal. Writes happen in order on a queue of their own: the navigation loop never waits for the disk.
public final class VoiceModeFile: Sendable {
    public enum Loaded: Sendable, Equatable {
        /// No file yet: the default, `full`.
        case none
        case mode(VoiceMode)
        /// The file holds something else: ignored (`full`), and rewritten on the next change.
        case unreadable(String)
    }

    public let path: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "navd voice mode")

    /// The file in the directory of `journalPath`.
    public init(journalPath: String, logger: Logger) {
        let directory = PathText.deletingLastComponent(of: journalPath)
        path = (directory.isEmpty ? "." : directory) + "/voice-mode"
        self.logger = logger
    }

    public func load() -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else { return .none }
        let text = String(decoding: data, as: UTF8.self)
        let word = text.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard let mode = VoiceMode(rawValue: word) else {
            return .unreadable("\(path) holds '\(word.prefix(40))', not one of \(VoiceMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return .mode(mode)
    }

    /// Writes `mode` after the writes submitted before; a failure is logged (the mode still applies until the
    /// daemon stops).
    public func submit(_ mode: VoiceMode) {
        queue.async { [path, logger] in
            do {
                try DurableFile(path: path).write(Data((mode.rawValue + "\n").utf8))
            } catch {
                logger.error("cannot keep the voice mode for the next start", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Returns when every submitted write is done (shutdown, tests).
    public func waitUntilWritten() { queue.sync {} }
}
