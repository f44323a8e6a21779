import Guidance
import NavigationCore

/// Writes instructions for servers that send none (plain OSRM), in the spirit of osrm-text-instructions, in the
/// driver's language from navd's language files: "Turn left onto Mikonkatu", "Enter the roundabout and take the
/// 2nd exit onto Bulevardi", "Rechts auf Kaivokatu abbiegen".
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

    /// The language the instructions are written in (`[guidance] language`; English by default).
    public var catalog: GuidanceCatalog

    public init(catalog: GuidanceCatalog = ShippedLanguages.english) {
        self.catalog = catalog
    }

    /// The instruction for one maneuver, without a trailing period.
    public func instruction(for m: ManeuverContext) -> String {
        let way = wayName(m)
        let modifier = m.modifier
        /// `key` with `{way}` when the road has a name, else `plain`.
        func withWay(_ key: InstructionKey, _ plain: InstructionKey, _ values: [String: String] = [:]) -> String {
            guard let way else { return catalog.instruction(plain, values) }
            return catalog.instruction(key, values.merging(["way": way]) { $1 })
        }
        /// `instruction` extended by "onto {way}" when the road has a name.
        func onto(_ instruction: String) -> String {
            way.map { catalog.instruction(.onto, ["instruction": instruction, "way": $0]) } ?? instruction
        }
        switch m.type {
        case .depart:
            let direction = catalog.word(compassDirection(m.bearingAfter ?? 0))
            return withWay(.departOn, .depart, ["direction": direction])
        case .arrive:
            let arrival = m.isFinalLeg ? catalog.instruction(.arrive) : catalog.instruction(.arriveStop, ["ordinal": catalog.ordinal(m.legIndex + 1)])
            switch modifier?.side {
            case .sideLeft?: return catalog.instruction(.arriveLeft, ["arrival": arrival])
            case .sideRight?: return catalog.instruction(.arriveRight, ["arrival": arrival])
            default: return modifier == .straight ? catalog.instruction(.arriveStraight, ["arrival": arrival]) : arrival
            }
        case .turn:
            switch modifier {
            case .straight?: return withWay(.goStraightOnto, .goStraight)
            case .uTurn?: return withWay(.uTurnOnto, .uTurn)
            case let modifier?: return withWay(.turnOnto, .turn, ["modifier": modifierWord(modifier)])
            case nil: return withWay(.turnOnto, .turn, ["modifier": ""]).replacing("  ", with: " ")
            }
        case .newName, .continue, .notification, .useLane, .other:
            switch modifier {
            case .uTurn?: return withWay(.uTurnOnto, .uTurn)
            case nil, .straight?: return withWay(m.type == .newName ? .continueOnto : .continueOn, .continueStraight)
            case let modifier?: return withWay(.continueModifierOnto, .continueModifier, ["modifier": modifierWord(modifier)])
            }
        case .merge:
            return onto(modifier?.side.map { catalog.instruction(.mergeSide, ["side": catalog.word($0)]) } ?? catalog.instruction(.merge))
        case .onRamp:
            return onto(modifier?.side.map { catalog.instruction(.rampSide, ["side": catalog.word($0)]) } ?? catalog.instruction(.ramp))
        case .offRamp:
            let side = modifier?.side.map(catalog.word)
            let exits = m.exits.joined(separator: "/")
            let start: String
            switch (m.exits.isEmpty, side) {
            case (true, nil): start = catalog.instruction(.ramp)
            case (true, let side?): start = catalog.instruction(.rampSide, ["side": side])
            case (false, nil): start = catalog.instruction(.exit, ["exit": exits])
            case (false, let side?): start = catalog.instruction(.exitSide, ["exit": exits, "side": side])
            }
            if let destinations = m.destinations, !destinations.isEmpty {
                return catalog.instruction(.toward, ["instruction": start, "destinations": destinations])
            }
            return onto(start)
        case .fork:
            return onto(modifier?.side.map { catalog.instruction(.fork, ["side": catalog.word($0)]) } ?? catalog.instruction(.forkStraight))
        case .endOfRoad:
            return onto(modifier?.side.map { catalog.instruction(.endOfRoadSide, ["side": catalog.word($0)]) } ?? catalog.instruction(.endOfRoad))
        case .roundabout, .rotary:
            let entry = m.rotaryName.map { catalog.instruction(.rotaryNamed, ["name": $0]) }
                ?? catalog.instruction(m.type == .rotary ? .rotary : .roundabout)
            if let exit = m.roundaboutExit, exit > 0 {
                return onto(catalog.instruction(.roundaboutExit, ["entry": entry, "ordinal": catalog.ordinal(exit)]))
            }
            return onto(entry)
        case .roundaboutTurn:
            switch modifier {
            case nil, .straight?: return onto(catalog.instruction(.roundaboutStraight))
            case let modifier?: return onto(catalog.instruction(.roundaboutTurn, ["modifier": modifierWord(modifier)]))
            }
        case .exitRoundabout, .exitRotary:
            return onto(catalog.instruction(m.type == .exitRotary ? .exitRotary : .exitRoundabout))
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

    /// One of the eight compass directions for a bearing in degrees.
    func compassDirection(_ bearing: Double) -> InstructionKey {
        let names: [InstructionKey] = [.north, .northeast, .east, .southeast, .south, .southwest, .west, .northwest]
        return names[Int((Geodesy.normalizedDegrees(bearing) + 22.5) / 45) % 8]
    }

    /// `n` as an ordinal in the catalog's language ("2nd", "2.").
    public func ordinal(_ n: Int) -> String { catalog.ordinal(n) }
}

extension InstructionSynthesizer {
    /// A turning modifier as a word of the catalog's language; one navd does not know, as the server named it.
    func modifierWord(_ modifier: ManeuverModifier) -> String {
        switch modifier {
        case .left: catalog.word(.left)
        case .right: catalog.word(.right)
        case .slightLeft: catalog.word(.slightLeft)
        case .slightRight: catalog.word(.slightRight)
        case .sharpLeft: catalog.word(.sharpLeft)
        case .sharpRight: catalog.word(.sharpRight)
        case .straight, .uTurn, .other: modifier.name
        }
    }
}

extension ManeuverModifier {
    /// The side of any leftish or rightish modifier.
    var side: InstructionKey? {
        switch self {
        case .left, .slightLeft, .sharpLeft: .sideLeft
        case .right, .slightRight, .sharpRight: .sideRight
        default: nil
        }
    }
}
