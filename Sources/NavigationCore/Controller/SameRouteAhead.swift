/// Whether a new route is the route already being driven: a reroute whose answer lies, all the way to its end,
/// within `tolerance` of the current route from the vehicle's progress on, and is as long as what is left of it.
/// Such an answer is no new route (engines answer it when a vehicle off the road network is snapped to the same
/// road again): navd keeps the route it has, with its prompts and progress.
public struct SameRouteAhead: Sendable {
    /// Metres a point of the new route may lie from the current one (engines draw the same road to within a metre).
    public var tolerance: Double = 5
    /// Metres behind the vehicle's progress where the new route may start (the engine snapped the vehicle a little
    /// back).
    public var lookBehind: Double = 200
    /// Metres between checked points of the new route (every vertex is checked, too).
    public var spacing: Double = 10

    public init() {}

    /// True when `candidate` is the current route (`current`) from `progress` metres along it on.
    public func isSame(_ candidate: RouteIndex, as current: RouteIndex, from progress: Double) -> Bool {
        start(of: candidate, on: current, from: progress) != nil
    }

    /// Metres along `current` where `candidate` starts, when `candidate` is `current` from about `progress`
    /// metres on (the same way to the same end); nil when it is another way.
    public func start(of candidate: RouteIndex, on current: RouteIndex, from progress: Double) -> Double? {
        guard candidate.segmentCount > 0, current.segmentCount > 0, let start = candidate.points.first else { return nil }
        // Where the new route starts on the current one.
        var along = -1.0
        var nearest = Double.infinity
        var segment = current.segment(atDistance: max(0, progress - lookBehind))
        // The start's metres per degree of longitude, once for every segment it is measured to (a cosine each).
        let startScale = Geodesy.metersPerDegreeLongitude(at: start.latitude)
        while segment < current.segmentCount {
            let projection = Geodesy.closestPoint(
                on: current.points[segment], current.points[segment + 1], to: start, metersPerDegreeLongitude: startScale)
            if projection.distance < nearest {
                nearest = projection.distance
                let length = current.cumulativeDistance[segment + 1] - current.cumulativeDistance[segment]
                along = current.cumulativeDistance[segment] + projection.fraction * length
            }
            segment += 1
        }
        guard nearest <= tolerance, along >= 0 else { return nil }
        // As long as what is left (1% for engines that measure lengths differently).
        let remaining = current.totalDistance - along
        guard abs(remaining - candidate.totalDistance) <= max(2 * tolerance, 0.01 * remaining) else { return nil }
        // Every checked point near the current route at about the same distance along it.
        let slack = 2 * tolerance + 0.01 * candidate.totalDistance
        var cursor = current.segment(atDistance: along)
        for index in 0..<candidate.segmentCount {
            let length = candidate.cumulativeDistance[index + 1] - candidate.cumulativeDistance[index]
            let pieces = CheckedNumber.clampedWhole(length / spacing, rounding: .up, in: 1...10_000)
            for piece in 0...pieces where index == 0 || piece > 0 {
                let fraction = Double(piece) / Double(pieces)
                let candidateAlong = candidate.cumulativeDistance[index] + fraction * length
                let point = candidate.coordinate(onSegment: index, atDistance: candidateAlong)
                let expected = along + candidateAlong
                guard let distance = distance(from: point, to: current, near: expected, slack: slack, cursor: &cursor), distance <= tolerance else {
                    return nil
                }
            }
        }
        return along
    }

    /// Metres from `point` to the part of `route` within `slack` of `expected` metres along it; `cursor` is the
    /// segment to start from (moved forward as the walk proceeds).
    private func distance(from point: GeographicCoordinate, to route: RouteIndex, near expected: Double, slack: Double, cursor: inout Int) -> Double? {
        while cursor > 0, route.cumulativeDistance[cursor] > expected - slack { cursor -= 1 }
        while cursor + 1 < route.segmentCount, route.cumulativeDistance[cursor + 1] < expected - slack { cursor += 1 }
        var best: Double?
        var segment = cursor
        let scale = Geodesy.metersPerDegreeLongitude(at: point.latitude)
        while segment < route.segmentCount, route.cumulativeDistance[segment] <= expected + slack {
            let d = Geodesy.closestPoint(on: route.points[segment], route.points[segment + 1], to: point, metersPerDegreeLongitude: scale).distance
            best = min(best ?? d, d)
            segment += 1
        }
        return best
    }
}
