import NavigationCore

/// `announcement`: something navd itself tells the driver (not the engine's instructions), in the driver's
/// language (`[guidance]`): leaving or rejoining the route, rerouting, GNSS lost and back, a stop reached, a speed
/// alert, a lower limit ahead, a faster way, traffic ahead. A voice client speaks `text`; `key` says which.
public struct AnnouncementEvent: Codable, Hashable, Sendable {
    public enum Priority: String, Codable, Hashable, Sendable {
        /// Safety: a speed alert, a lower limit ahead.
        case alert
        /// Everything else.
        case info
    }

    /// The message's key in navd's language files (`off_route`, `rerouting`, ...).
    public var key: String
    public var text: String
    /// The BCP 47 tag of `text`'s language.
    public var language: String
    public var priority: Priority

    public init(key: String, text: String, language: String, priority: Priority) {
        self.key = key
        self.text = text
        self.language = language
        self.priority = priority
    }
}
