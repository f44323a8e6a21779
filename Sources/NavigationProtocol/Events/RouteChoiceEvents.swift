import NavigationCore

/// A route a driver may choose, as `route_alternatives` and `faster_route` describe it: enough to tell it apart
/// and to draw it, not its steps (the chosen route comes whole in its `route` event).
public struct RouteOption: Codable, Hashable, Sendable {
    /// What `choose_route` takes to select it.
    public var index: Int
    /// Metres and the engine's seconds (one decimal).
    public var distance: Double
    public var duration: Double
    /// Seconds and metres more (positive) or fewer than the route being navigated (one decimal).
    public var durationDelta: Double
    public var distanceDelta: Double
    /// Some stretch has tolls; some stretch is a motorway.
    public var tolls: Bool
    public var motorways: Bool
    /// The roads it follows longest, longest first ("via ...").
    public var mainRoads: [String]
    /// `[[lon, lat], ...]`, as route geometries are written.
    public var geometry: LineStringCoding

    public init(
        index: Int, distance: Double, duration: Double, durationDelta: Double, distanceDelta: Double, tolls: Bool, motorways: Bool,
        mainRoads: [String], geometry: [GeographicCoordinate]
    ) {
        self.index = index
        self.distance = distance
        self.duration = duration
        self.durationDelta = durationDelta
        self.distanceDelta = distanceDelta
        self.tolls = tolls
        self.motorways = motorways
        self.mainRoads = mainRoads
        self.geometry = LineStringCoding(geometry)
    }
}

/// Where an offer of routes stands.
public enum RouteOfferStatus: String, Codable, Hashable, Sendable {
    /// Open: `choose_route` until `chooseBefore`.
    case offered
    /// A client chose (`chosen`: the index).
    case chosen
    /// Taken without asking (`routing.faster_route = "switch"`).
    case taken
    /// The time ran out: the route being navigated stays.
    case expired
    /// A newer route (a reroute, a change of stops, another offer) made it moot.
    case withdrawn
}

/// `route_alternatives`: the routes `navigate` asked for with `alternatives`, index 0 being the route navigd
/// navigates meanwhile; and later how the choice ended.
public struct RouteAlternativesEvent: Codable, Hashable, Sendable {
    /// The `navigate` calculation they came from.
    public var session: Int
    public var status: RouteOfferStatus
    /// Until when `choose_route` is taken (ISO 8601 UTC), while offered.
    public var chooseBefore: String?
    /// The index chosen (with `status: chosen`).
    public var chosen: Int?
    /// Every route of the answer, index 0 first (with `status: offered`; empty afterwards).
    public var routes: [RouteOption]

    public init(session: Int, status: RouteOfferStatus, chooseBefore: String? = nil, chosen: Int? = nil, routes: [RouteOption] = []) {
        self.session = session
        self.status = status
        self.chooseBefore = chooseBefore
        self.chosen = chosen
        self.routes = routes
    }
}

/// `faster_route`: a way from the vehicle faster than the route being navigated, offered (`choose_route` with
/// index 0 takes it) or taken; and later how the offer ended.
public struct FasterRouteEvent: Codable, Hashable, Sendable {
    /// The calculation that found it.
    public var session: Int
    public var status: RouteOfferStatus
    /// Seconds it saves, and that as a fraction of the time left on the route (one decimal; two for the fraction).
    public var saving: Double
    public var savingFraction: Double
    /// Until when `choose_route` takes it (ISO 8601 UTC), while offered.
    public var chooseBefore: String?
    /// The way, with its deltas against the route being navigated (absent once the offer ended).
    public var route: RouteOption?

    public init(session: Int, status: RouteOfferStatus, saving: Double, savingFraction: Double, chooseBefore: String? = nil, route: RouteOption? = nil) {
        self.session = session
        self.status = status
        self.saving = saving
        self.savingFraction = savingFraction
        self.chooseBefore = chooseBefore
        self.route = route
    }
}

extension RouteOption {
    /// "2.4 km, 6 min, +1 min, via Mannerheimintie, tolls".
    public var summary: String {
        var parts = [HumanReadable.distance(distance), HumanReadable.duration(duration)]
        if durationDelta != 0 { parts.append((durationDelta > 0 ? "+" : "−") + HumanReadable.duration(abs(durationDelta))) }
        if !mainRoads.isEmpty { parts.append("via " + mainRoads.joined(separator: ", ")) }
        if tolls { parts.append("tolls") }
        if motorways { parts.append("motorway") }
        return parts.joined(separator: ", ")
    }
}

extension RouteAlternativesEvent {
    /// One line for logs and timelines.
    public var summary: String {
        switch status {
        case .offered: "\(routes.count) routes to choose from: " + routes.map { "[\($0.index)] \($0.summary)" }.joined(separator: "; ")
        case .chosen: "route \(chosen ?? 0) chosen"
        default: "route choice \(status.rawValue)"
        }
    }
}

extension FasterRouteEvent {
    /// One line for logs and timelines.
    public var summary: String {
        let saves = "\(HumanReadable.duration(saving)) faster"
        switch status {
        case .offered: return "faster route offered: \(saves)" + (route.map { " (\($0.summary))" } ?? "")
        case .taken: return "faster route taken: \(saves)"
        case .chosen: return "faster route chosen: \(saves)"
        default: return "faster route offer \(status.rawValue)"
        }
    }
}
