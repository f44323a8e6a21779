import NavigationCore

/// Writes English instructions for servers that send none (plain OSRM), in the spirit of
/// osrm-text-instructions: "Turn left onto Mikonkatu", "Enter the roundabout and take the 2nd exit onto
/// Bulevardi", "You have arrived at your destination, on the right".
public struct InstructionSynthesizer: Sendable {
    /// What the synthesizer needs to know about a maneuver.
    public struct ManeuverContext: Sendable {
        public var type: ManeuverType
        public var modifier: ManeuverModifier?
        /// Road name and reference of the road the maneuver leads onto.
        public var roadName: String?
        public var roadRef: String?
        /// Signposted destinations, e.g. "Turku, Espoo".
        public var destinations: String?
        /// Highway exit numbers, e.g. ["12A"].
        public var exits: [String]
        /// Roundabout exit to take (1 = first).
        public var roundaboutExit: Int?
        /// Name of a named rotary.
        public var rotaryName: String?
        /// Heading after the maneuver, degrees clockwise from north (used for "Head north").
        public var bearingAfter: Double?
        /// For `arrive`: 0-based index of the leg that ends here, and whether it is the last leg.
        public var legIndex: Int
        public var isFinalLeg: Bool

        public init(
            type: ManeuverType, modifier: ManeuverModifier? = nil, roadName: String? = nil, roadRef: String? = nil,
            destinations: String? = nil, exits: [String] = [], roundaboutExit: Int? = nil, rotaryName: String? = nil,
            bearingAfter: Double? = nil, legIndex: Int = 0, isFinalLeg: Bool = true
        ) {
            self.type = type
            self.modifier = modifier
            self.roadName = roadName
            self.roadRef = roadRef
            self.destinations = destinations
            self.exits = exits
            self.roundaboutExit = roundaboutExit
            self.rotaryName = rotaryName
            self.bearingAfter = bearingAfter
            self.legIndex = legIndex
            self.isFinalLeg = isFinalLeg
        }
    }

    public init() {}

    /// The instruction for one maneuver, without a trailing period.
    public func instruction(for m: ManeuverContext) -> String {
        let way = wayName(m)
        let onto = way.map { " onto \($0)" } ?? ""
        let modifier = m.modifier
        switch m.type {
        case .depart:
            let heading = m.bearingAfter.map { " \(compassDirection($0))" } ?? ""
            return "Head\(heading)" + (way.map { " on \($0)" } ?? "")
        case .arrive:
            let which = m.isFinalLeg ? "your destination" : "your \(ordinal(m.legIndex + 1)) destination"
            return "You have arrived at \(which)" + arrivalSide(modifier)
        case .turn:
            switch modifier {
            case .straight?: return "Go straight" + onto
            case .uTurn?: return "Make a U-turn" + onto
            case let modifier?: return "Turn \(modifier.spokenName)" + onto
            case nil: return "Turn" + onto
            }
        case .newName:
            switch modifier {
            case .uTurn?: return "Make a U-turn" + onto
            case nil, .straight?: return way.map { "Continue onto \($0)" } ?? "Continue straight"
            case let modifier?: return "Continue \(modifier.spokenName)" + onto
            }
        case .continue, .notification, .useLane, .other:
            switch modifier {
            case .uTurn?: return "Make a U-turn" + onto
            case nil, .straight?: return way.map { "Continue on \($0)" } ?? "Continue straight"
            case let modifier?: return "Continue \(modifier.spokenName)" + onto
            }
        case .merge:
            return "Merge" + (modifier.flatMap(\.side).map { " \($0)" } ?? "") + onto
        case .onRamp:
            return "Take the ramp" + (modifier.flatMap(\.side).map { " on the \($0)" } ?? "") + onto
        case .offRamp:
            let side = modifier.flatMap(\.side).map { " on the \($0)" } ?? ""
            let start = m.exits.isEmpty ? "Take the ramp\(side)" : "Take exit \(m.exits.joined(separator: "/"))\(side)"
            if let destinations = m.destinations, !destinations.isEmpty { return start + " toward \(destinations)" }
            return start + onto
        case .fork:
            let side = modifier.flatMap(\.side) ?? "straight"
            return "Keep \(side) at the fork" + onto
        case .endOfRoad:
            let side = modifier.flatMap(\.side).map { " \($0)" } ?? ""
            return "Turn\(side) at the end of the road" + onto
        case .roundabout, .rotary:
            let place = m.rotaryName.map { "Enter \($0)" } ?? "Enter the \(m.type == .rotary ? "rotary" : "roundabout")"
            if let exit = m.roundaboutExit, exit > 0 { return "\(place) and take the \(ordinal(exit)) exit" + onto }
            return place + onto
        case .roundaboutTurn:
            switch modifier {
            case nil, .straight?: return "At the roundabout, continue straight" + onto
            case let modifier?: return "At the roundabout, turn \(modifier.spokenName)" + onto
            }
        case .exitRoundabout, .exitRotary:
            return "Exit the \(m.type == .exitRotary ? "rotary" : "roundabout")" + onto
        }
    }

    /// "Mannerheimintie (E12)", "E12", or nil for an unnamed road.
    func wayName(_ m: ManeuverContext) -> String? {
        let name = m.roadName.flatMap { $0.isEmpty ? nil : $0 }
        let ref = m.roadRef.flatMap { $0.isEmpty ? nil : $0 }
        switch (name, ref) {
        case let (name?, ref?) where name != ref: return "\(name) (\(ref))"
        case let (name?, _): return name
        case let (nil, ref?): return ref
        case (nil, nil): return nil
        }
    }

    func arrivalSide(_ modifier: ManeuverModifier?) -> String {
        switch modifier {
        case .left?, .slightLeft?, .sharpLeft?: ", on the left"
        case .right?, .slightRight?, .sharpRight?: ", on the right"
        case .straight?: ", straight ahead"
        default: ""
        }
    }

    /// One of the eight compass directions for a bearing in degrees.
    public func compassDirection(_ bearing: Double) -> String {
        let names = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
        let index = Int((Geodesy.normalizedDegrees(bearing) + 22.5) / 45) % 8
        return names[index]
    }

    /// "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st", ...
    public func ordinal(_ n: Int) -> String {
        let lastTwo = n % 100
        if (11...13).contains(lastTwo) { return "\(n)th" }
        switch n % 10 {
        case 1: return "\(n)st"
        case 2: return "\(n)nd"
        case 3: return "\(n)rd"
        default: return "\(n)th"
        }
    }
}

extension ManeuverModifier {
    /// The modifier as words: "sharp left", "slight right", "straight".
    var spokenName: String {
        switch self {
        case .uTurn: "around"
        default: name
        }
    }

    /// "left" or "right" for any leftish or rightish modifier.
    var side: String? {
        switch self {
        case .left, .slightLeft, .sharpLeft: "left"
        case .right, .slightRight, .sharpRight: "right"
        default: nil
        }
    }
}
