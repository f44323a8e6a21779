/// The parts of the maneuver instructions navd writes itself for engines that send none (plain OSRM), each a key
/// in the `instructions` table of every language's data file. Placeholders in braces: `{way}` the road ("Mikonkatu
/// (E12)"), `{modifier}` one of the modifier words (`left`, `slight_right`, ...), `{side}` `side_left` or
/// `side_right`, `{direction}` a compass word, `{ordinal}` from the file's `ordinals`, `{exit}` exit numbers,
/// `{instruction}` a whole instruction that a key extends.
public enum InstructionKey: String, Sendable, CaseIterable {
    case depart, departOn = "depart_on"
    case arrive, arriveStop = "arrive_stop", arriveLeft = "arrive_left", arriveRight = "arrive_right", arriveStraight = "arrive_straight"
    case turn, turnOnto = "turn_onto", goStraight = "go_straight", goStraightOnto = "go_straight_onto", uTurn = "uturn", uTurnOnto = "uturn_onto"
    case continueStraight = "continue_straight", continueOn = "continue_on", continueOnto = "continue_onto"
    case continueModifier = "continue_modifier", continueModifierOnto = "continue_modifier_onto"
    case merge, mergeSide = "merge_side", ramp, rampSide = "ramp_side", exit, exitSide = "exit_side"
    case toward, onto
    case fork, forkStraight = "fork_straight", endOfRoad = "end_of_road", endOfRoadSide = "end_of_road_side"
    case roundabout, rotary, rotaryNamed = "rotary_named", roundaboutExit = "roundabout_exit"
    case roundaboutTurn = "roundabout_turn", roundaboutStraight = "roundabout_straight", exitRoundabout = "exit_roundabout", exitRotary = "exit_rotary"
    /// A prompt before the maneuver: `{distance}`, `{instruction}`.
    case promptAhead = "prompt_ahead"
    /// A departure and the first maneuver said as one sentence: `{first}`, `{second}`.
    case promptThen = "prompt_then"
    // Words that fill placeholders.
    case left, right, slightLeft = "slight_left", slightRight = "slight_right", sharpLeft = "sharp_left", sharpRight = "sharp_right"
    case sideLeft = "side_left", sideRight = "side_right"
    case north, northeast, east, southeast, south, southwest, west, northwest

    /// The placeholders every language's text for this key must have, no more and no fewer.
    public var placeholders: Set<String> {
        switch self {
        case .depart: ["direction"]
        case .departOn: ["direction", "way"]
        case .arriveStop: ["ordinal"]
        case .arriveLeft, .arriveRight, .arriveStraight: ["arrival"]
        case .turn, .continueModifier, .roundaboutTurn: ["modifier"]
        case .turnOnto, .continueModifierOnto: ["modifier", "way"]
        case .goStraightOnto, .uTurnOnto, .continueOn, .continueOnto: ["way"]
        case .mergeSide, .rampSide, .fork, .endOfRoadSide: ["side"]
        case .exit: ["exit"]
        case .exitSide: ["exit", "side"]
        case .toward: ["instruction", "destinations"]
        case .onto: ["instruction", "way"]
        case .rotaryNamed: ["name"]
        case .roundaboutExit: ["entry", "ordinal"]
        case .promptAhead: ["distance", "instruction"]
        case .promptThen: ["first", "second"]
        default: []
        }
    }
}
