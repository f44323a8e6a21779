// The controller configuration as a document (JSON here; the daemon's TOML maps onto the same shape).
// Tagged unions are objects with one key naming the case:
//
//   {"stepAdvance": {"or": [{"distanceEntryAndExit": {"entry": 30, "exit": 5, "minimumHorizontalAccuracy": 32}},
//                           {"distanceFromStep": {"distance": 40, "minimumHorizontalAccuracy": 32, "policy": "whileOnCurrentStep"}}]},
//    "arrival": {"distanceToEndOfStep": {"distance": 20, "minimumHorizontalAccuracy": 32}},
//    "waypointAdvance": {"withinRange": 100},
//    "deviationTracking": {"staticThreshold": {"enterDistance": 50, "exitDistance": 30}},
//    "courseFiltering": "snapToRoute",
//    "promptTiming": {"scaleSpoken": 1.5}}
//
// Every key is optional; a missing key keeps its default. Case names without parameters may be plain strings
// ("manual", "none", "unchanged").

struct TagKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Reads a one-key object (or a bare string) naming a case; returns the case name and a container for its value.
private func tag(in decoder: any Decoder, expected: [String]) throws -> (String, KeyedDecodingContainer<TagKey>?) {
    if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
        guard expected.contains(name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown value '\(name)' (expected one of \(expected.joined(separator: ", ")))"))
        }
        return (name, nil)
    }
    let container = try decoder.container(keyedBy: TagKey.self)
    guard container.allKeys.count == 1, let key = container.allKeys.first else {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "expected an object with exactly one of \(expected.joined(separator: ", "))"))
    }
    guard expected.contains(key.stringValue) else {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath + [key], debugDescription: "unknown '\(key.stringValue)' (expected one of \(expected.joined(separator: ", ")))"))
    }
    return (key.stringValue, container)
}

extension StepAdvanceCondition: Codable {
    private struct Distance: Codable { var distance: Double; var minimumHorizontalAccuracy: Double }
    private struct FromStep: Codable { var distance: Double; var minimumHorizontalAccuracy: Double; var policy: DistanceFromStepPolicy? }
    private struct EntryExit: Codable { var entry: Double; var exit: Double; var minimumHorizontalAccuracy: Double }

    static let caseNames = ["manual", "distanceToEndOfStep", "distanceFromStep", "distanceEntryAndExit", "distanceEntryAndSnappedExit", "and", "or"]

    public init(from decoder: any Decoder) throws {
        let (name, container) = try tag(in: decoder, expected: Self.caseNames)
        let key = TagKey(name)
        switch name {
        case "manual":
            self = .manual
        case "distanceToEndOfStep":
            let d = try container!.decode(Distance.self, forKey: key)
            self = .distanceToEndOfStep(distance: d.distance, minimumHorizontalAccuracy: d.minimumHorizontalAccuracy)
        case "distanceFromStep":
            let d = try container!.decode(FromStep.self, forKey: key)
            self = .distanceFromStep(distance: d.distance, minimumHorizontalAccuracy: d.minimumHorizontalAccuracy, policy: d.policy ?? .always)
        case "distanceEntryAndExit", "distanceEntryAndSnappedExit":
            let d = try container!.decode(EntryExit.self, forKey: key)
            self =
                name == "distanceEntryAndExit"
                ? .distanceEntryAndExit(entry: d.entry, exit: d.exit, minimumHorizontalAccuracy: d.minimumHorizontalAccuracy)
                : .distanceEntryAndSnappedExit(entry: d.entry, exit: d.exit, minimumHorizontalAccuracy: d.minimumHorizontalAccuracy)
        default:
            let children = try container!.decode([StepAdvanceCondition].self, forKey: key)
            self = name == "and" ? .and(children) : .or(children)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .manual = self {
            var single = encoder.singleValueContainer()
            try single.encode("manual")
            return
        }
        var c = encoder.container(keyedBy: TagKey.self)
        switch self {
        case .manual: break
        case .distanceToEndOfStep(let distance, let accuracy):
            try c.encode(Distance(distance: distance, minimumHorizontalAccuracy: accuracy), forKey: TagKey("distanceToEndOfStep"))
        case .distanceFromStep(let distance, let accuracy, let policy):
            try c.encode(FromStep(distance: distance, minimumHorizontalAccuracy: accuracy, policy: policy), forKey: TagKey("distanceFromStep"))
        case .distanceEntryAndExit(let entry, let exit, let accuracy):
            try c.encode(EntryExit(entry: entry, exit: exit, minimumHorizontalAccuracy: accuracy), forKey: TagKey("distanceEntryAndExit"))
        case .distanceEntryAndSnappedExit(let entry, let exit, let accuracy):
            try c.encode(EntryExit(entry: entry, exit: exit, minimumHorizontalAccuracy: accuracy), forKey: TagKey("distanceEntryAndSnappedExit"))
        case .and(let children): try c.encode(children, forKey: TagKey("and"))
        case .or(let children): try c.encode(children, forKey: TagKey("or"))
        }
    }
}

extension WaypointAdvanceMode: Codable {
    public init(from decoder: any Decoder) throws {
        let (name, container) = try tag(in: decoder, expected: ["withinRange", "alongAdvancingStep"])
        let range = try container!.decode(Double.self, forKey: TagKey(name))
        self = name == "withinRange" ? .withinRange(range) : .alongAdvancingStep(range)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: TagKey.self)
        switch self {
        case .withinRange(let range): try c.encode(range, forKey: TagKey("withinRange"))
        case .alongAdvancingStep(let range): try c.encode(range, forKey: TagKey("alongAdvancingStep"))
        }
    }
}

extension StaticThresholdDeviation: Codable {
    enum CodingKeys: String, CodingKey {
        case minimumHorizontalAccuracy, enterDistance, maneuverEnterDistance, maneuverZone, headingMismatch, minimumSpeedForHeading
        case exitDistance, requiredConsecutiveFixes, minimumDistanceMovingAway, requiredDuration, accuracyMultiplier, wrongWayAngle
        case wrongWayDistance, partingDistance, partingWindow, partingGrowth, partingCourse, partingAngle
    }

    /// Missing keys keep their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = StaticThresholdDeviation()
        self.init(
            minimumHorizontalAccuracy: try c.decodeIfPresent(Double.self, forKey: .minimumHorizontalAccuracy) ?? d.minimumHorizontalAccuracy,
            enterDistance: try c.decodeIfPresent(Double.self, forKey: .enterDistance) ?? d.enterDistance,
            maneuverEnterDistance: try c.decodeIfPresent(Double.self, forKey: .maneuverEnterDistance) ?? d.maneuverEnterDistance,
            maneuverZone: try c.decodeIfPresent(Double.self, forKey: .maneuverZone) ?? d.maneuverZone,
            headingMismatch: try c.decodeIfPresent(Double.self, forKey: .headingMismatch) ?? d.headingMismatch,
            minimumSpeedForHeading: try c.decodeIfPresent(Double.self, forKey: .minimumSpeedForHeading) ?? d.minimumSpeedForHeading,
            exitDistance: try c.decodeIfPresent(Double.self, forKey: .exitDistance) ?? d.exitDistance,
            requiredConsecutiveFixes: try c.decodeIfPresent(Int.self, forKey: .requiredConsecutiveFixes) ?? d.requiredConsecutiveFixes,
            minimumDistanceMovingAway: try c.decodeIfPresent(Double.self, forKey: .minimumDistanceMovingAway) ?? d.minimumDistanceMovingAway,
            requiredDuration: try c.decodeIfPresent(Double.self, forKey: .requiredDuration) ?? d.requiredDuration,
            accuracyMultiplier: try c.decodeIfPresent(Double.self, forKey: .accuracyMultiplier) ?? d.accuracyMultiplier,
            wrongWayAngle: try c.decodeIfPresent(Double.self, forKey: .wrongWayAngle) ?? d.wrongWayAngle,
            wrongWayDistance: try c.decodeIfPresent(Double.self, forKey: .wrongWayDistance) ?? d.wrongWayDistance)
        partingDistance = try c.decodeIfPresent(Double.self, forKey: .partingDistance) ?? d.partingDistance
        partingWindow = try c.decodeIfPresent(Double.self, forKey: .partingWindow) ?? d.partingWindow
        partingGrowth = try c.decodeIfPresent(Double.self, forKey: .partingGrowth) ?? d.partingGrowth
        partingCourse = try c.decodeIfPresent(Double.self, forKey: .partingCourse) ?? d.partingCourse
        partingAngle = try c.decodeIfPresent(Double.self, forKey: .partingAngle) ?? d.partingAngle
        guard exitDistance < min(enterDistance, maneuverEnterDistance) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "exitDistance (\(exitDistance)) must be below enterDistance and maneuverEnterDistance, or the deviation would flap"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(minimumHorizontalAccuracy, forKey: .minimumHorizontalAccuracy)
        try c.encode(enterDistance, forKey: .enterDistance)
        try c.encode(maneuverEnterDistance, forKey: .maneuverEnterDistance)
        try c.encode(maneuverZone, forKey: .maneuverZone)
        try c.encode(headingMismatch, forKey: .headingMismatch)
        try c.encode(minimumSpeedForHeading, forKey: .minimumSpeedForHeading)
        try c.encode(exitDistance, forKey: .exitDistance)
        try c.encode(requiredConsecutiveFixes, forKey: .requiredConsecutiveFixes)
        try c.encode(minimumDistanceMovingAway, forKey: .minimumDistanceMovingAway)
        try c.encode(requiredDuration, forKey: .requiredDuration)
        try c.encode(accuracyMultiplier, forKey: .accuracyMultiplier)
        try c.encode(wrongWayAngle, forKey: .wrongWayAngle)
        try c.encode(wrongWayDistance, forKey: .wrongWayDistance)
        try c.encode(partingDistance, forKey: .partingDistance)
        try c.encode(partingWindow, forKey: .partingWindow)
        try c.encode(partingGrowth, forKey: .partingGrowth)
        try c.encode(partingCourse, forKey: .partingCourse)
        try c.encode(partingAngle, forKey: .partingAngle)
    }
}

extension RouteDeviationTracking: Codable {
    public init(from decoder: any Decoder) throws {
        let (name, container) = try tag(in: decoder, expected: ["none", "staticThreshold"])
        self = name == "none" ? .none : .staticThreshold(try container!.decode(StaticThresholdDeviation.self, forKey: TagKey(name)))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .none:
            var single = encoder.singleValueContainer()
            try single.encode("none")
        case .staticThreshold(let threshold):
            var c = encoder.container(keyedBy: TagKey.self)
            try c.encode(threshold, forKey: TagKey("staticThreshold"))
        case .custom:
            // A detector is code: it cannot be written to a file.
            var single = encoder.singleValueContainer()
            try single.encode("custom")
        }
    }
}

extension PromptTiming: Codable {
    private struct SpeedAdaptive: Codable { var referenceSpeed: Double?; var minimumFactor: Double?; var maximumFactor: Double? }

    public init(from decoder: any Decoder) throws {
        let (name, container) = try tag(in: decoder, expected: ["unchanged", "scaleSpoken", "speedAdaptive"])
        switch name {
        case "unchanged": self = .unchanged
        case "scaleSpoken": self = .scaleSpoken(factor: try container!.decode(Double.self, forKey: TagKey(name)))
        default:
            // "speedAdaptive" alone takes the defaults; an object is read strictly (a typo or a wrong type is an
            // error, not the defaults in disguise).
            var p = SpeedAdaptive()
            if let container {
                let keys = try container.nestedContainer(keyedBy: TagKey.self, forKey: TagKey(name)).allKeys.map(\.stringValue)
                let known = ["referenceSpeed", "minimumFactor", "maximumFactor"]
                if let unknown = keys.first(where: { !known.contains($0) }) {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: decoder.codingPath + [TagKey(name)],
                            debugDescription: "unknown key '\(unknown)' (expected \(known.joined(separator: ", ")))"))
                }
                p = try container.decode(SpeedAdaptive.self, forKey: TagKey(name))
            }
            let reference = p.referenceSpeed ?? 13.9, minimum = p.minimumFactor ?? 0.6, maximum = p.maximumFactor ?? 2
            guard reference > 0, minimum > 0, minimum <= maximum else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath + [TagKey(name)],
                        debugDescription: "needs referenceSpeed > 0 and 0 < minimumFactor <= maximumFactor (got \(reference), \(minimum), \(maximum))"))
            }
            self = .speedAdaptive(referenceSpeed: reference, minimumFactor: minimum, maximumFactor: maximum)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .unchanged, .custom:
            var single = encoder.singleValueContainer()
            try single.encode(self.isCustom ? "custom" : "unchanged")
        case .scaleSpoken(let factor):
            var c = encoder.container(keyedBy: TagKey.self)
            try c.encode(factor, forKey: TagKey("scaleSpoken"))
        case .speedAdaptive(let reference, let minimum, let maximum):
            var c = encoder.container(keyedBy: TagKey.self)
            try c.encode(SpeedAdaptive(referenceSpeed: reference, minimumFactor: minimum, maximumFactor: maximum), forKey: TagKey("speedAdaptive"))
        }
    }

    private var isCustom: Bool {
        if case .custom = self { return true }
        return false
    }
}

extension NavigationControllerConfig: Codable {
    private enum CodingKeys: String, CodingKey {
        case stepAdvance, arrival, waypointAdvance, deviationTracking, courseFiltering, promptTiming
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = NavigationControllerConfig()
        self.init(
            stepAdvance: try c.decodeIfPresent(StepAdvanceCondition.self, forKey: .stepAdvance) ?? d.stepAdvance,
            arrival: try c.decodeIfPresent(StepAdvanceCondition.self, forKey: .arrival) ?? d.arrival,
            waypointAdvance: try c.decodeIfPresent(WaypointAdvanceMode.self, forKey: .waypointAdvance) ?? d.waypointAdvance,
            deviationTracking: try c.decodeIfPresent(RouteDeviationTracking.self, forKey: .deviationTracking) ?? d.deviationTracking,
            courseFiltering: try c.decodeIfPresent(CourseFiltering.self, forKey: .courseFiltering) ?? d.courseFiltering,
            promptTiming: try c.decodeIfPresent(PromptTiming.self, forKey: .promptTiming) ?? d.promptTiming)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stepAdvance, forKey: .stepAdvance)
        try c.encode(arrival, forKey: .arrival)
        try c.encode(waypointAdvance, forKey: .waypointAdvance)
        try c.encode(deviationTracking, forKey: .deviationTracking)
        try c.encode(courseFiltering, forKey: .courseFiltering)
        try c.encode(promptTiming, forKey: .promptTiming)
    }
}
