import Guidance
import NavigationCore

/// What a voice client speaks (`voice` command, kept across restarts).
public enum VoiceMode: String, Codable, Hashable, Sendable, CaseIterable {
    /// Maneuver prompts and every announcement.
    case full
    /// Only safety alerts (`announcement` with `priority: alert`) and what the driver asks for (`repeat`).
    case alertsOnly = "alerts_only"
    /// Nothing.
    case muted
}

/// `voice`: how voice clients should speak, sent when the mode changes (`voice` command) or the language does
/// (`[guidance] language` reloaded). `hello` and `status` carry the same in `state.voice`.
public struct VoiceEvent: Codable, Hashable, Sendable {
    public var mode: VoiceMode
    /// The BCP 47 tag of the prompts and announcements (`[guidance] language`).
    public var language: String
    /// How distances are said and shown (`[guidance] units`): `metric`, `imperial` (feet below a tenth of a mile)
    /// or `imperial_yards` (yards).
    public var units: UnitSystem

    public init(mode: VoiceMode, language: String, units: UnitSystem) {
        self.mode = mode
        self.language = language
        self.units = units
    }
}

extension VoiceEvent {
    /// One line for `navctl watch` and drive reports.
    public var summary: String { "voice \(mode.rawValue) (\(language), \(units.rawValue))" }
}
