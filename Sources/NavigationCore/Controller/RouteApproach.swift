/// A trip that starts away from its route: the vehicle stands in a parking lot, a yard or a fuel station that the
/// engine's roads do not reach, and the engine moved the origin to the nearest road. Until the vehicle is on the
/// route, navd says where the route is (``distance``, ``bearing``, ``roadName``) instead of maneuvers the vehicle
/// cannot drive yet, and does not call the vehicle off the route while it stands or heads there.
public struct RouteApproach: Hashable, Sendable {
    /// Metres from the fix to the nearest point of the route near its start.
    public var distance: Double
    /// Degrees clockwise from north, from the fix to that point.
    public var bearing: Double
    /// The point of the route the vehicle is heading for.
    public var target: GeographicCoordinate
    /// The road the route starts on (where the vehicle joins it), when the route names it.
    public var roadName: String?
    /// Metres the engine moved the origin onto its road, when it said (``Waypoint/snapDistance``).
    public var originSnapDistance: Double?

    // Memory between fixes.
    /// Metres from the route at the first fix of the approach.
    var initialDistance: Double
    /// Metres from the route at the previous moving fix.
    var lastDistance: Double
    /// The closest the vehicle came to the route, metres: the least mean of two consecutive moving fixes' distances.
    var closest: Double
    /// Metres driven since the approach began.
    var driven = 0.0
    /// Fixes in a row driving along the route within ``RouteApproachRules/alongDistance`` of it.
    var alongFixes = 0
}

/// When an approach begins and ends. Distances in metres.
public struct RouteApproachRules: Hashable, Sendable {
    /// A first fix farther than this from the route (and than 2.5 × its 68% accuracy) starts an approach: the
    /// route's tight enter threshold near a maneuver (20 m) plus a lane. City error beside the road stays below it.
    public var startDistance: Double = 25
    /// The vehicle has joined the route within this distance (or within its fix's 68% accuracy).
    public var joinDistance: Double = 15
    /// A vehicle driving along the route (course within ``alongAngle`` of it, at 4 m/s or more) within this distance
    /// on ``alongFixes`` fixes in a row has joined it: a biased fix beside the road it drives on.
    public var alongDistance: Double = 30
    /// Degrees.
    public var alongAngle: Double = 30
    public var alongFixes: Int = 2
    /// Metres farther from the route than the closest the vehicle came (both as the mean of two consecutive moving
    /// fixes) that say it is not heading for the route: then it is off the route and a reroute starts the route
    /// where it is. 15 m is 5 × the 2 m error of a two-fix mean with 3 m open-sky error: jitter never adds up to it.
    public var awayGrowth: Double = 15
    /// Metres of driving after which a vehicle that came no closer than `noCloser` metres to the route is not heading
    /// for it either (it drives along a road the route does not use).
    public var wanderDistance: Double = 300
    public var noCloser: Double = 10

    public init() {}
}
