/// One step of a route: a maneuver and the stretch of road up to the next maneuver.
///
/// Instructions attached to a step (visual and spoken) describe the maneuver at the **end** of the step
/// (the next step's maneuver), with trigger distances measured backwards from that end, as in the
/// Mapbox Directions API. ``instruction`` describes this step's own maneuver.
public struct RouteStep: Hashable, Sendable {
    /// The step's polyline, from its maneuver to the next maneuver. At least one point.
    public var geometry: [GeographicCoordinate]
    /// Length of the step, metres.
    public var distance: Double
    /// Expected travel time, seconds.
    public var duration: Double
    /// Name of the road travelled in this step, nil when unnamed.
    public var roadName: String?
    /// Road reference such as `E12` or `CR 501`.
    public var roadRef: String?
    /// Signposted destinations, e.g. `Turku, Espoo`.
    public var destinations: String?
    /// Exit numbers of a highway exit taken at this step's maneuver.
    public var exits: [String]
    /// Human-readable instruction for this step's own maneuver, e.g. "Turn left onto Mikonkatu".
    public var instruction: String
    public var maneuver: Maneuver
    public var drivingSide: DrivingSide?
    /// For roundabout and rotary maneuvers: which exit to take (1 = first).
    public var roundaboutExitNumber: Int?
    /// Banners for the maneuver at the end of this step, in order of decreasing trigger distance.
    public var visualInstructions: [VisualInstruction]
    /// Voice prompts for the maneuver at the end of this step, in order of decreasing trigger distance.
    public var spokenInstructions: [SpokenInstruction]
    /// One entry per segment of ``geometry`` (so `geometry.count - 1` entries) when the server sent annotations.
    public var annotations: SegmentAnnotations
    public var incidents: [Incident]
    /// Where the road's kind changes along the step (tunnels, tolls, ferries, motorways, rest stops, countries), in
    /// order; empty when the engine said nothing of them.
    public var features: [RoadFeature]
    /// Which leg of the route (0-based) this step belongs to.
    public var legIndex: Int

    public init(
        geometry: [GeographicCoordinate], distance: Double, duration: Double, roadName: String? = nil,
        roadRef: String? = nil, destinations: String? = nil, exits: [String] = [], instruction: String,
        maneuver: Maneuver, drivingSide: DrivingSide? = nil, roundaboutExitNumber: Int? = nil,
        visualInstructions: [VisualInstruction] = [], spokenInstructions: [SpokenInstruction] = [],
        annotations: SegmentAnnotations = [], incidents: [Incident] = [], features: [RoadFeature] = [], legIndex: Int = 0
    ) {
        self.geometry = geometry
        self.distance = distance
        self.duration = duration
        self.roadName = roadName
        self.roadRef = roadRef
        self.destinations = destinations
        self.exits = exits
        self.instruction = instruction
        self.maneuver = maneuver
        self.drivingSide = drivingSide
        self.roundaboutExitNumber = roundaboutExitNumber
        self.visualInstructions = visualInstructions
        self.spokenInstructions = spokenInstructions
        self.annotations = annotations
        self.incidents = incidents
        self.features = features
        self.legIndex = legIndex
    }
}

extension RouteStep: Codable {
    private enum CodingKeys: String, CodingKey {
        case geometry, distance, duration, roadName, roadRef, destinations, exits, instruction, maneuver
        case drivingSide, roundaboutExitNumber, visualInstructions, spokenInstructions, annotations, incidents, features, legIndex
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        geometry = try c.decode(LineStringCoding.self, forKey: .geometry).coordinates
        distance = try c.decode(Double.self, forKey: .distance)
        duration = try c.decode(Double.self, forKey: .duration)
        roadName = try c.decodeIfPresent(String.self, forKey: .roadName)
        roadRef = try c.decodeIfPresent(String.self, forKey: .roadRef)
        destinations = try c.decodeIfPresent(String.self, forKey: .destinations)
        exits = try c.decodeIfPresent([String].self, forKey: .exits) ?? []
        instruction = try c.decode(String.self, forKey: .instruction)
        maneuver = try c.decode(Maneuver.self, forKey: .maneuver)
        drivingSide = try c.decodeIfPresent(DrivingSide.self, forKey: .drivingSide)
        roundaboutExitNumber = try c.decodeIfPresent(Int.self, forKey: .roundaboutExitNumber)
        visualInstructions = try c.decodeIfPresent([VisualInstruction].self, forKey: .visualInstructions) ?? []
        spokenInstructions = try c.decodeIfPresent([SpokenInstruction].self, forKey: .spokenInstructions) ?? []
        annotations = try c.decodeIfPresent(SegmentAnnotations.self, forKey: .annotations) ?? []
        incidents = try c.decodeIfPresent([Incident].self, forKey: .incidents) ?? []
        features = try c.decodeIfPresent([RoadFeature].self, forKey: .features) ?? []
        legIndex = try c.decodeIfPresent(Int.self, forKey: .legIndex) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(LineStringCoding(geometry), forKey: .geometry)
        try c.encode(distance, forKey: .distance)
        try c.encode(duration, forKey: .duration)
        // Always present (null when unnamed) so that clients can rely on the key.
        try c.encode(roadName, forKey: .roadName)
        try c.encodeIfPresent(roadRef, forKey: .roadRef)
        try c.encodeIfPresent(destinations, forKey: .destinations)
        try c.encode(exits, forKey: .exits)
        try c.encode(instruction, forKey: .instruction)
        try c.encode(maneuver, forKey: .maneuver)
        try c.encodeIfPresent(drivingSide, forKey: .drivingSide)
        try c.encodeIfPresent(roundaboutExitNumber, forKey: .roundaboutExitNumber)
        try c.encode(visualInstructions, forKey: .visualInstructions)
        try c.encode(spokenInstructions, forKey: .spokenInstructions)
        try c.encode(annotations, forKey: .annotations)
        try c.encode(incidents, forKey: .incidents)
        // Only where the engine said something: routes without them keep their bytes.
        if !features.isEmpty { try c.encode(features, forKey: .features) }
        try c.encode(legIndex, forKey: .legIndex)
    }
}
