/// One object on the route ahead of the vehicle, as `trip_state.roadAhead` lists it: a stretch (a tunnel, a toll
/// road, a ferry, a motorway) or a point (a toll booth or gantry, a rest or service area, a motorway entry or exit,
/// a border crossing), or an incident the engine reported.
public struct RoadObjectAhead: Hashable, Sendable, Codable {
    /// `tunnel`, `toll_road`, `ferry`, `motorway`, `toll_booth`, `toll_gantry`, `rest_area`, `service_area`,
    /// `motorway_entry`, `motorway_exit`, `border_crossing`, `incident`.
    public var kind: String
    /// Metres from the vehicle to where it begins along the route; 0 while the vehicle is in it.
    public var distance: Double
    /// For a stretch, the metres of it still ahead (all of it before it begins); absent for a point.
    public var length: Double?
    /// A tunnel's or rest stop's name, an incident's description.
    public var name: String?
    /// A border crossing's countries, from and to (ISO 3166-1 codes as the engine gives them); an incident's type.
    public var detail: String?

    public init(kind: String, distance: Double, length: Double? = nil, name: String? = nil, detail: String? = nil) {
        self.kind = kind
        self.distance = distance
        self.length = length
        self.name = name
        self.detail = detail
    }
}
