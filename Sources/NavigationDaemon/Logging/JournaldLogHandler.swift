import Foundation
import Logging
import NavigationCore
import Synchronization

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
        var line = ""
        switch format {
        case .journald: line = "<\(Self.priority(event.level))>"
        case .plain: line = "\(ISO8601Timestamp.format(Date())) \(event.level.rawValue) "
        }
        line += event.message.description.replacingOccurrences(of: "\n", with: " ")
        for key in merged.keys.sorted() {
            let value = "\(merged[key]!)"
            line += " \(key)=" + (value.contains(" ") || value.isEmpty ? "\"\(value)\"" : value)
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
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

