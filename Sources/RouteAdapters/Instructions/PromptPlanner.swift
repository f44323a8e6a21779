import FoundationEssentials
import Glibc
import Guidance
import NavigationCore

/// Plans banners and voice prompts for routes whose server sent none, so that navigation over plain OSRM
/// is as complete as over Valhalla.
///
/// Trigger distances are chosen for a car on urban and rural roads:
/// - the banner for the next maneuver shows for the whole step (as Valhalla and Mapbox do);
/// - a prompt at 1 km when the step is at least 1.5 km long (about 45 s ahead at 80 km/h);
/// - a prompt at 400 m when the step is at least 600 m long (about 30 s ahead at 50 km/h);
/// - a final prompt at 80 m, or at the start of the step when it is shorter (about 6 s ahead at 50 km/h,
///   the time to slow down and turn);
/// - the first step of each leg also announces its own departure at its start (merged with the first
///   maneuver prompt when the two would be less than ``mergeDistance`` apart).
public struct PromptPlanner: Sendable {
    /// The language of the prompts, and how their distances are said.
    public var catalog: GuidanceCatalog
    public var units: UnitSystem
    /// (trigger distance before the maneuver in metres, minimum step length in metres): round distances in the
    /// driver's units (1 km and 400 m; 1 mi and 0.3 mi).
    public var advanceNotices: [(trigger: Double, minimumStepLength: Double)]
    /// Distance before the maneuver of the last prompt, metres.
    public var finalPromptDistance: Double = 80
    /// A departure prompt and the first maneuver prompt closer than this, metres, are spoken as one sentence
    /// ("Head west on Kaivokatu, then turn right"): about 3 s at 50 km/h, too little time for two prompts.
    public var mergeDistance: Double = 40

    public init(catalog: GuidanceCatalog = ShippedLanguages.english, units: UnitSystem = .metric) {
        self.catalog = catalog
        self.units = units
        advanceNotices = units == .metric ? [(1000, 1500), (400, 600)] : [(1609.344, 2400), (482.8032, 700)]
    }

    /// The banner for the maneuver that ends a step.
    public func banner(
        forStepOfLength length: Double, next: NextManeuver
    ) -> VisualInstruction {
        let primaryText = next.displayName ?? next.instruction
        let lanes = next.lanes
        return VisualInstruction(
            primary: VisualInstructionContent(
                text: primaryText, maneuverType: next.type, maneuverModifier: next.modifier,
                roundaboutExitDegrees: nil, exitNumbers: next.exits),
            secondary: next.displayName != nil && next.destinations != nil
                ? VisualInstructionContent(text: next.destinations!) : nil,
            sub: lanes.isEmpty ? nil : VisualInstructionContent(text: "", lanes: lanes),
            triggerDistanceBeforeManeuver: length)
    }

    /// Voice prompts for the maneuver that ends a step, in order of decreasing trigger distance.
    /// `departure` is this step's own instruction when the step starts a leg.
    public func prompts(forStepOfLength length: Double, next: NextManeuver, departure: String?) -> [(String, Double)] {
        var prompts: [(String, Double)] = []
        let finalTrigger = min(length, finalPromptDistance)
        if let departure {
            if length - finalTrigger < mergeDistance {
                return [(catalog.instruction(.promptThen, ["first": Self.clause(departure), "second": lowercasingFirst(next.instruction)]), length)]
            }
            prompts.append((departure, length))
        }
        for notice in advanceNotices where length >= notice.minimumStepLength {
            let ahead = catalog.instruction(
                .promptAhead, ["distance": catalog.distance(notice.trigger, units: units), "instruction": lowercasingFirst(next.instruction)])
            prompts.append((ahead, notice.trigger))
        }
        prompts.append((next.instruction, finalTrigger))
        return prompts
    }

    /// A sentence used as the first clause of a longer one: without its closing punctuation ("Drive southeast."
    /// becomes "Drive southeast", so the merged prompt does not read "Drive southeast., then ...").
    static func clause(_ text: String) -> String {
        var clause = Substring(text)
        while let last = clause.last, ".;, ".contains(last) { clause = clause.dropLast() }
        return String(clause)
    }

    /// SSML for a prompt: the text inside `<speak>`, XML-escaped byte by byte (the five characters XML escapes are
    /// ASCII, and no other character's UTF-8 has an ASCII byte in it), so a mark combined with one of them cannot
    /// hide it.
    public func ssml(_ text: String) -> String {
        var out: [UInt8] = Array("<speak>".utf8)
        out.reserveCapacity(text.utf8.count + 20)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: ">"): out += "&gt;".utf8
            case UInt8(ascii: "\""): out += "&quot;".utf8
            case UInt8(ascii: "'"): out += "&apos;".utf8
            default: out.append(byte)
            }
        }
        out += "</speak>".utf8
        return String(decoding: out, as: UTF8.self)
    }

    func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        // Keep road names and "U-turn" as they are; only the leading verb changes case.
        return first.lowercased() + text.dropFirst()
    }
}

/// The maneuver at the end of a step, as the planner needs it.
public struct NextManeuver: Sendable {
    public var instruction: String
    public var type: ManeuverType
    public var modifier: ManeuverModifier?
    /// The road the maneuver leads onto, for the banner ("Mikonkatu"); nil when unnamed.
    public var displayName: String?
    public var destinations: String?
    public var exits: [String]
    public var lanes: [LaneInfo]

    public init(
        instruction: String, type: ManeuverType, modifier: ManeuverModifier?, displayName: String?,
        destinations: String?, exits: [String], lanes: [LaneInfo]
    ) {
        self.instruction = instruction
        self.type = type
        self.modifier = modifier
        self.displayName = displayName
        self.destinations = destinations
        self.exits = exits
        self.lanes = lanes
    }
}
