import NavigationProtocol

/// Something a voice client may say: an engine's maneuver prompt or one of navd's announcements.
public struct Utterance: Hashable, Sendable {
    /// What the utterance is, which decides what it may interrupt and whether a voice mode lets it through.
    public enum Kind: String, Hashable, Sendable {
        /// An engine's prompt for the next maneuver (`instruction`, `kind: spoken`).
        case maneuver
        /// What the driver asked for (`repeat`).
        case requested
        /// A safety announcement (`priority: alert`: speed).
        case alert
        /// Any other announcement (rerouting, GNSS lost, traffic, ...).
        case info

        /// Higher interrupts lower.
        public var rank: Int {
            switch self {
            case .maneuver, .requested: 3
            case .alert: 2
            case .info: 1
            }
        }

        /// Whether `mode` lets this kind be spoken.
        public func isSpoken(in mode: VoiceMode) -> Bool {
            switch mode {
            case .full: true
            case .alertsOnly: self == .alert || self == .requested
            case .muted: false
            }
        }
    }

    /// The prompt's `utteranceId`, or `announcement-<seq>`.
    public var id: String
    public var kind: Kind
    public var text: String
    /// The engine's SSML for the same words, passed to the speech engine as is.
    public var ssml: String?
    /// BCP 47 tag of the words.
    public var language: String
    /// The route a maneuver prompt belongs to.
    public var routeId: String?
    /// The step whose maneuver a prompt announces: once the vehicle is on a later step, the prompt is stale.
    public var stepIndex: Int?
    /// Seconds (the client's monotonic clock) when it arrived.
    public var received: Double

    public init(
        id: String, kind: Kind, text: String, ssml: String? = nil, language: String, routeId: String? = nil, stepIndex: Int? = nil,
        received: Double
    ) {
        self.id = id
        self.kind = kind
        self.text = text
        self.ssml = ssml
        self.language = language
        self.routeId = routeId
        self.stepIndex = stepIndex
        self.received = received
    }
}

/// What the scheduler decided, for the speech engine to do and the log to show.
public enum SpeechDecision: Hashable, Sendable {
    /// Start saying it now.
    case speak(Utterance)
    /// Stop saying it at once (a more urgent utterance, a retraction, the voice mode).
    case interrupt(Utterance, reason: String)
    /// Never say it (stale, retracted, superseded, not for this voice mode).
    case drop(Utterance, reason: String)
}
