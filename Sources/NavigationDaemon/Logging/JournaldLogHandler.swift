import FoundationEssentials
import Glibc
import Logging
import NavigationCore
import Synchronization
import SystemSupport

/// Log level names as written in the config file.
public enum LogLevelName {
    public static let names = Logger.Level.allCases.map(\.rawValue)

    public static func parse(_ text: String) -> Logger.Level? {
        Logger.Level(rawValue: text.lowercased())
    }
}

/// A swift-log handler writing one line per message to stderr. In `journald` format each line starts with the
/// syslog priority (`<3>` error … `<7>` debug), which journald strips and stores as the entry's priority;
/// metadata follows the message as `key=value` pairs. In `plain` format lines start with a UTC time and level.
public struct JournaldLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level {
        get { LogLevelSetting.shared.level }
        set { LogLevelSetting.shared.level = newValue }
    }
    public let label: String
    public let format: NavdConfig.Logging.Format

    public init(label: String, format: NavdConfig.Logging.Format) {
        self.label = label
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let line = Self.line(
            level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }, format: format, time: Date())
        StandardStream.error.write(line)
    }

    /// One log line, ending in a newline and containing no other: journald reads a priority prefix at the start of
    /// every line, so a newline inside a message or a metadata value (a client's text, a server's error) would
    /// start a line of its own without one, at the default priority. Control characters are written escaped
    /// (`\n`, `\r`, `\t`, `\u{1b}`); a value with a space, a quote or an equals sign is quoted.
    static func line(level: Logger.Level, message: String, metadata: [String: String], format: NavdConfig.Logging.Format, time: Date) -> String {
        var line = ""
        switch format {
        case .journald: line = "<\(Self.priority(level))>"
        case .plain: line = "\(ISO8601Timestamp.format(time)) \(level.rawValue) "
        }
        line += escaped(message)
        for key in metadata.keys.sorted() {
            let value = escaped(metadata[key]!)
            let quoted = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" }
            line += " \(escaped(key))=" + (quoted ? "\"\(value.replacing("\"", with: "\\\""))\"" : value)
        }
        return line + "\n"
    }

    /// `text` without control characters: newline, carriage return and tab as `\n`, `\r`, `\t`, others as `\u{..}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// syslog priorities (sd-daemon(3)).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// One level for every logger, so SIGHUP can change it at once.
final class LogLevelSetting: Sendable {
    static let shared = LogLevelSetting()
    private let storage = Mutex(Logger.Level.info)
    var level: Logger.Level {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

