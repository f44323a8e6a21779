import NavigationCore

/// Valhalla's per-location options, typed. ``asProperties`` gives the `[String: JSONValue]` to put in
/// ``Waypoint/properties``; the Valhalla generator merges them into the location object.
///
/// See Valhalla's API reference, "Locations": every field here maps to the key named in its comment.
public struct ValhallaWaypointProperties: Hashable, Sendable {
    public enum PreferredSide: String, Hashable, Sendable { case same, opposite, either }

    /// Direction of travel at the location, degrees clockwise from north (`heading`).
    public var heading: Double?
    /// How far the road's direction may differ from ``heading``, degrees (`heading_tolerance`, default 60).
    public var headingTolerance: Double?
    /// Search radius around the location for candidate roads, metres (`radius`).
    public var radius: Double?
    /// Which side of the street to arrive on (`preferred_side`).
    public var preferredSide: PreferredSide?
    /// Minimum count of nodes reachable from a candidate road, to avoid islands (`minimum_reachability`).
    public var minimumReachability: Int?
    /// Filters on candidate roads, e.g. `["exclude_tunnel": true, "min_road_class": "residential"]` (`search_filter`).
    public var searchFilter: [String: JSONValue]?
    /// Within this distance of the road, metres, the side of street is ignored (`street_side_tolerance`).
    public var streetSideTolerance: Double?
    /// Where the place really is (e.g. a building entrance) when it differs from the routing coordinate
    /// (`display_lat`, `display_lon`); used to tell the side of the street.
    public var displayCoordinate: GeographicCoordinate?
    /// Name shown for the location (`name`).
    public var name: String?
    /// `false` forbids U-turns at the location: the generator sends type `through` for via points and
    /// `break_through` for stops instead of `via` and `break`.
    public var allowUTurns: Bool?

    public init(
        heading: Double? = nil, headingTolerance: Double? = nil, radius: Double? = nil,
        preferredSide: PreferredSide? = nil, minimumReachability: Int? = nil, searchFilter: [String: JSONValue]? = nil,
        streetSideTolerance: Double? = nil, displayCoordinate: GeographicCoordinate? = nil, name: String? = nil,
        allowUTurns: Bool? = nil
    ) {
        self.heading = heading
        self.headingTolerance = headingTolerance
        self.radius = radius
        self.preferredSide = preferredSide
        self.minimumReachability = minimumReachability
        self.searchFilter = searchFilter
        self.streetSideTolerance = streetSideTolerance
        self.displayCoordinate = displayCoordinate
        self.name = name
        self.allowUTurns = allowUTurns
    }

    public var asProperties: [String: JSONValue] {
        var p: [String: JSONValue] = [:]
        if let heading { p["heading"] = .number(heading.rounded()) }
        if let headingTolerance { p["heading_tolerance"] = .number(headingTolerance.rounded()) }
        if let radius { p["radius"] = .number(radius.rounded()) }
        if let preferredSide { p["preferred_side"] = .string(preferredSide.rawValue) }
        if let minimumReachability { p["minimum_reachability"] = .number(Double(minimumReachability)) }
        if let searchFilter { p["search_filter"] = .object(searchFilter) }
        if let streetSideTolerance { p["street_side_tolerance"] = .number(streetSideTolerance.rounded()) }
        if let displayCoordinate {
            p["display_lat"] = .number(displayCoordinate.latitude)
            p["display_lon"] = .number(displayCoordinate.longitude)
        }
        if let name { p["name"] = .string(name) }
        if let allowUTurns { p["allow_uturns"] = .bool(allowUTurns) }
        return p
    }
}
