/// What is wrong with a configuration file: which file, which key, and what.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// Dotted key path (`routing.engine`), or nil for the file as a whole (unreadable, bad syntax).
    public var key: String?
    public var message: String

    public init(file: String, key: String?, message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        key.map { "\(file): \($0): \(message)" } ?? "\(file): \(message)"
    }
}

/// Every problem found in one file (check-config lists them all, not only the first).
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
