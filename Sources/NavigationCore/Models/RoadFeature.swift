/// What the engine says about the road from one point of a step on: the classes of the road (tunnel, toll, ferry,
/// motorway), a tunnel's name, a toll booth or gantry, a rest stop passed, the country. From OSRM-style
/// `intersections` (Valhalla fills them; plain OSRM gives classes only). The parser keeps an entry only where
/// something changes, so a route through a city without any of these carries none.
public struct RoadFeature: Hashable, Sendable, Codable {
    /// A rest stop the route passes.
    public struct RestStop: Hashable, Sendable, Codable {
        /// `rest_area` or `service_area`.
        public var type: String
        public var name: String?

        public init(type: String, name: String? = nil) {
            self.type = type
            self.name = name
        }
    }

    /// Where it begins: an intersection of the step (a point of its geometry).
    public var location: GeographicCoordinate
    /// The road from here until the next entry: any of `tunnel`, `toll`, `ferry`, `motorway`, `restricted`.
    public var classes: [String]
    /// The tunnel's name, while `classes` has `tunnel` and the engine knows it.
    public var tunnelName: String?
    /// `toll_booth` or `toll_gantry` at this point.
    public var tollCollection: String?
    public var restStop: RestStop?
    /// The country here (ISO 3166-1 code, as the engine gives it in the leg's `admins`).
    public var country: String?

    public init(
        location: GeographicCoordinate, classes: [String] = [], tunnelName: String? = nil, tollCollection: String? = nil,
        restStop: RestStop? = nil, country: String? = nil
    ) {
        self.location = location
        self.classes = classes
        self.tunnelName = tunnelName
        self.tollCollection = tollCollection
        self.restStop = restStop
        self.country = country
    }

    /// The classes navd knows, in a fixed order (a parser may number them); anything else an engine sends is dropped
    /// at parsing.
    public static let knownClasses: [String] = ["tunnel", "toll", "ferry", "motorway", "restricted"]
}
