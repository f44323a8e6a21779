/// Where a fix lies on the route, found by searching a bounded window around the current progress.
public struct RouteMatch: Hashable, Sendable {
    /// Global segment index in the ``RouteIndex``.
    public var segment: Int
    /// Distance along the route of the projected point, metres.
    public var distanceAlong: Double
    /// The projected point.
    public var coordinate: GeographicCoordinate
    /// Distance from the fix to the projected point, metres.
    public var distanceFromRoute: Double
    /// Distance from the fix to the current step's geometry (the part inside the window), metres.
    public var distanceFromCurrentStep: Double
}

/// Matches fixes to the route within a window that moves with the vehicle: it looks back a little (GPS
/// jitter) and forward as far as the vehicle can have driven since the last fix. Nothing outside the window
/// is considered, so a route that loops back over itself never jumps ahead, and the cost of a match does not
/// grow with the route's length.
public struct RouteMatcher: Sendable {
    /// How far behind the current progress to look, metres.
    public var lookBehind: Double = 30
    /// Smallest forward window, metres.
    public var minimumLookAhead: Double = 150
    /// Largest forward window, metres (after a long GNSS gap).
    public var maximumLookAhead: Double = 3000
    /// Speed assumed when the fix has none, metres per second (about 110 km/h: errs on a wide window).
    public var assumedSpeed: Double = 30
    /// Extra cost, in metres, of a segment whose direction differs from the vehicle's course by 90° or more (an
    /// opposite carriageway or the other direction of a route that comes back along the same road); between 30°
    /// and 90° a proportional part of it, so that past a corner a biased fix matches the street the vehicle drives
    /// along rather than the one it left.
    public var wrongDirectionPenalty: Double = 40
    /// Extra cost per metre of distance along the route from the current progress: among equally close
    /// candidates the nearest in sequence wins.
    public var sequencePenalty: Double = 0.05
    /// Extra cost per metre by which a candidate lies farther ahead than the vehicle can have driven since the
    /// previous fix (1.5 × its speed × the time, plus 2.5 × the fix's accuracy, plus 20 m): a biased city fix
    /// closer to a later part of the route (the way back after a U-turn, a parallel carriageway) does not pull
    /// progress a block ahead.
    public var implausibleAdvancePenalty: Double = 0.5

    public init() {}

    /// Forward window for a fix `elapsed` seconds after the previous one, metres.
    public func lookAhead(elapsed: Double, speed: Double?) -> Double {
        let travel = max(speed ?? assumedSpeed, 5) * max(elapsed, 1) * 2
        return min(maximumLookAhead, max(minimumLookAhead, travel + 50))
    }

    /// The best match for `location` in the window around `progress` (metres along the route), starting the
    /// scan at `segmentHint` (a segment at or near `progress`), and its distance from step `currentStep`.
    /// `expectedTravel`: metres the vehicle can have driven since the previous fix (speed × time), when known.
    public func match(
        _ location: UserLocation, index: RouteIndex, progress: Double, segmentHint: Int, lookAhead: Double, currentStep: Int,
        expectedTravel: Double? = nil
    ) -> RouteMatch {
        let plausibleAdvance = expectedTravel.map { 1.5 * $0 + 2.5 * location.horizontalAccuracy + 20 }
        let from = progress - lookBehind
        let to = progress + lookAhead
        var first = min(max(0, segmentHint), max(0, index.segmentCount - 1))
        while first > 0, index.cumulativeDistance[first] > from { first -= 1 }
        var best: RouteMatch?
        var bestCost = Double.infinity
        var currentStepDistance = Double.infinity
        let course = (location.speed?.metersPerSecond ?? 0) >= UserLocation.minimumSpeedForCourse ? location.course?.degrees : nil
        let metersPerDegreeLongitude = Geodesy.metersPerDegreeLongitude(at: location.coordinate.latitude)
        var segment = first
        while segment < index.segmentCount, index.cumulativeDistance[segment] <= to {
            defer { segment += 1 }
            let a = index.points[segment], b = index.points[segment + 1]
            let projection = Geodesy.closestPoint(on: a, b, to: location.coordinate, metersPerDegreeLongitude: metersPerDegreeLongitude)
            if index.segmentStep[segment] == currentStep { currentStepDistance = min(currentStepDistance, projection.distance) }
            let length = index.cumulativeDistance[segment + 1] - index.cumulativeDistance[segment]
            let along = index.cumulativeDistance[segment] + projection.fraction * length
            guard along >= from - length else { continue }
            var cost = projection.distance + abs(along - progress) * sequencePenalty
            if let plausibleAdvance { cost += max(0, along - progress - plausibleAdvance) * implausibleAdvancePenalty }
            // The direction's penalty only adds: a candidate already dearer than the best cannot win, and its
            // segment's bearing (three sines, three cosines and an arctangent, on every fix) is not worked out.
            if cost > bestCost, wrongDirectionPenalty >= 0 { continue }
            if let course, length > 1 {
                // Graded from 30° (a lane change, a curve) to the full penalty at 90° and beyond.
                let angle = Geodesy.angleBetween(course, index.bearing(ofSegment: segment))
                cost += wrongDirectionPenalty * min(1, max(0, (angle - 30) / 60))
            }
            // On a tie (a vertex shared by two segments) the later segment wins: past a corner, the route's
            // direction is the outgoing one.
            if cost <= bestCost {
                bestCost = cost
                best = RouteMatch(
                    segment: segment, distanceAlong: along, coordinate: projection.coordinate,
                    distanceFromRoute: projection.distance, distanceFromCurrentStep: 0)
            }
        }
        if currentStepDistance == .infinity, currentStep < index.stepEnd.count {
            // The current step lies outside the window: its nearest end stands in for it.
            let end = index.coordinate(atDistance: index.stepEnd[currentStep])
            let start = index.coordinate(atDistance: index.stepStart[currentStep])
            currentStepDistance = min(Geodesy.distance(end, location.coordinate), Geodesy.distance(start, location.coordinate))
        }
        var result =
            best
            ?? RouteMatch(
                segment: first, distanceAlong: progress, coordinate: index.coordinate(atDistance: progress),
                distanceFromRoute: Geodesy.distance(index.coordinate(atDistance: progress), location.coordinate),
                distanceFromCurrentStep: 0)
        result.distanceFromCurrentStep = currentStepDistance
        return result
    }
}
