/// One lane at a maneuver, as shown on a lane-guidance display.
public struct LaneInfo: Hashable, Sendable, Codable {
    /// True when this lane can be used for the maneuver.
    public var active: Bool
    /// The arrows painted on the lane, e.g. `["straight", "right"]`.
    public var directions: [String]
    /// Which of ``directions`` the route uses, when the lane is active.
    public var activeDirection: String?

    public init(active: Bool, directions: [String], activeDirection: String? = nil) {
        self.active = active
        self.directions = directions
        self.activeDirection = activeDirection
    }
}

/// One line of a banner: text plus what a display needs to draw the maneuver icon.
public struct VisualInstructionContent: Hashable, Sendable, Codable {
    public var text: String
    public var maneuverType: ManeuverType?
    public var maneuverModifier: ManeuverModifier?
    /// For roundabouts: the angle travelled around the roundabout, degrees.
    public var roundaboutExitDegrees: Double?
    /// Exit numbers shown on a highway sign (e.g. `["12A"]`).
    public var exitNumbers: [String]
    /// Lane guidance; empty when the server sent none.
    public var lanes: [LaneInfo]

    public init(
        text: String, maneuverType: ManeuverType? = nil, maneuverModifier: ManeuverModifier? = nil,
        roundaboutExitDegrees: Double? = nil, exitNumbers: [String] = [], lanes: [LaneInfo] = []
    ) {
        self.text = text
        self.maneuverType = maneuverType
        self.maneuverModifier = maneuverModifier
        self.roundaboutExitDegrees = roundaboutExitDegrees
        self.exitNumbers = exitNumbers
        self.lanes = lanes
    }
}

/// A banner to show while approaching the maneuver at the end of a step.
public struct VisualInstruction: Hashable, Sendable, Codable {
    public var primary: VisualInstructionContent
    public var secondary: VisualInstructionContent?
    /// Extra content, typically lane guidance.
    public var sub: VisualInstructionContent?
    /// Show this banner once the remaining distance to the maneuver is at most this many metres.
    public var triggerDistanceBeforeManeuver: Double

    public init(
        primary: VisualInstructionContent, secondary: VisualInstructionContent? = nil,
        sub: VisualInstructionContent? = nil, triggerDistanceBeforeManeuver: Double
    ) {
        self.primary = primary
        self.secondary = secondary
        self.sub = sub
        self.triggerDistanceBeforeManeuver = triggerDistanceBeforeManeuver
    }

    /// All lanes shown by this banner (sub content first, then primary), for lane-guidance displays.
    public var lanes: [LaneInfo] { (sub?.lanes ?? []) + primary.lanes }
}

/// A voice prompt to speak while approaching the maneuver at the end of a step.
public struct SpokenInstruction: Hashable, Sendable, Codable {
    public var text: String
    /// The same text as SSML, when the server sends it.
    public var ssml: String?
    /// Speak once the remaining distance to the maneuver is at most this many metres.
    public var triggerDistanceBeforeManeuver: Double
    /// Stable identifier: the same route parsed twice gives the same ids, so a prompt is spoken once
    /// even across a restart (see ``SpokenInstruction/utteranceID(stepIndex:indexInStep:text:)``).
    public var utteranceId: String

    public init(text: String, ssml: String? = nil, triggerDistanceBeforeManeuver: Double, utteranceId: String) {
        self.text = text
        self.ssml = ssml
        self.triggerDistanceBeforeManeuver = triggerDistanceBeforeManeuver
        self.utteranceId = utteranceId
    }

    /// A deterministic id: FNV-1a (64 bit) over the step index, the prompt's index in the step and its text,
    /// as 16 hex digits. Trigger distances are left out so that re-timing prompts keeps their ids.
    public static func utteranceID(stepIndex: Int, indexInStep: Int, text: String) -> String {
        var hash = FNV1a()
        mixDecimal(stepIndex, into: &hash); hash.mix(0x1f)
        mixDecimal(indexInStep, into: &hash); hash.mix(0x1f)
        hash.mix(text.utf8)
        // 16 lowercase hex digits, zeros in front, written straight (a route has a few of these for every step).
        let hexDigits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 16) { id in
            for position in 0..<16 {
                let nibble = Int(truncatingIfNeeded: (hash.value >> (4 * UInt64(15 - position))) & 0xf)
                id[position] = hexDigits.utf8Start[nibble]
            }
            return 16
        }
    }

    /// Mixes `number`'s decimal text (as `String(number)` writes it) into `hash`, without making the text.
    private static func mixDecimal(_ number: Int, into hash: inout FNV1a) {
        guard number >= 0 else { return hash.mix(String(number).utf8) }
        var divisor = 1
        while divisor <= number / 10 { divisor *= 10 }
        var rest = number
        while divisor > 0 {
            hash.mix(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
