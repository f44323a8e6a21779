/// A route's step geometries joined into one polyline with cumulative distances, computed once per route so
/// that every per-fix question (where am I along the route, how far to the maneuver, how long remains) is
/// answered in time independent of the route's length.
public struct RouteIndex: Sendable {
    /// All points of all steps in order; the shared point between consecutive steps appears once.
    public let points: [GeographicCoordinate]
    /// `cumulativeDistance[i]`: distance along the route from the first point to `points[i]`, metres.
    public let cumulativeDistance: [Double]
    /// `segmentStep[i]`: the step that segment `i` (from `points[i]` to `points[i + 1]`) belongs to.
    public let segmentStep: [Int]
    /// `segmentIndexInStep[i]`: which segment of its step segment `i` is (indexes the step's annotations).
    public let segmentIndexInStep: [Int]
    /// Distance along the route where each step starts and ends, metres.
    public let stepStart: [Double]
    public let stepEnd: [Double]
    /// First global segment of each step (a zero-length step has none of its own and points at its neighbour's).
    public let stepFirstSegment: [Int]
    /// `durationAfterStep[i]`: expected time of all steps after step `i`, seconds.
    public let durationAfterStep: [Double]

    /// Length of the route's geometry, metres.
    public var totalDistance: Double { cumulativeDistance.last ?? 0 }
    public var segmentCount: Int { max(0, points.count - 1) }

    public init(route: Route) {
        var points: [GeographicCoordinate] = []
        var cumulative: [Double] = []
        var segmentStep: [Int] = []
        var segmentIndexInStep: [Int] = []
        var stepStart: [Double] = []
        var stepEnd: [Double] = []
        var stepFirstSegment: [Int] = []
        // Room for every point at once (steps share their ends, so a few too many), not grown as they come.
        let pointCount = route.steps.reduce(0) { $0 + $1.geometry.count }
        points.reserveCapacity(pointCount)
        cumulative.reserveCapacity(pointCount)
        segmentStep.reserveCapacity(pointCount)
        segmentIndexInStep.reserveCapacity(pointCount)
        // The last point's latitude's cosine, for the next segment's length.
        var lastCos = 0.0
        for (stepIndex, step) in route.steps.enumerated() {
            stepStart.append(cumulative.last ?? 0)
            stepFirstSegment.append(max(0, points.count - 1))
            var indexInStep = 0
            for (i, point) in step.geometry.enumerated() {
                guard let last = points.last else {
                    points.append(point)
                    cumulative.append(0)
                    lastCos = Geodesy.cosLatitude(of: point)
                    continue
                }
                // The first point of a step repeats the last point of the previous one.
                if i == 0, last == point { continue }
                let cosine = Geodesy.cosLatitude(of: point)
                points.append(point)
                cumulative.append(cumulative[cumulative.count - 1] + Geodesy.distance(last, point, cosLatitudes: (lastCos, cosine)))
                lastCos = cosine
                segmentStep.append(stepIndex)
                segmentIndexInStep.append(indexInStep)
                indexInStep += 1
            }
            stepEnd.append(cumulative.last ?? 0)
        }
        if points.count == 1 {
            // A route of a single point still has one (zero-length) segment to project onto.
            points.append(points[0])
            cumulative.append(0)
            segmentStep.append(0)
            segmentIndexInStep.append(0)
        }
        var durationAfter = [Double](repeating: 0, count: route.steps.count)
        var sum = 0.0
        for i in stride(from: route.steps.count - 1, through: 0, by: -1) {
            durationAfter[i] = sum
            sum += route.steps[i].duration
        }
        self.points = points
        self.cumulativeDistance = cumulative
        self.segmentStep = segmentStep
        self.segmentIndexInStep = segmentIndexInStep
        self.stepStart = stepStart
        self.stepEnd = stepEnd
        self.stepFirstSegment = stepFirstSegment.map { min($0, max(0, segmentStep.count - 1)) }
        self.durationAfterStep = durationAfter
    }

    /// The global segment that contains the point at `distance` along the route (the later one at a vertex).
    /// Binary search: used when a window must be re-anchored, not on every fix.
    public func segment(atDistance distance: Double) -> Int {
        guard segmentCount > 0 else { return 0 }
        var low = 0, high = segmentCount - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if cumulativeDistance[mid] <= distance { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The point at `distance` metres along the route.
    public func coordinate(atDistance distance: Double) -> GeographicCoordinate {
        guard segmentCount > 0 else { return points.first ?? GeographicCoordinate(latitude: 0, longitude: 0) }
        let segment = self.segment(atDistance: distance)
        return coordinate(onSegment: segment, atDistance: distance)
    }

    /// The point at `distance` metres along the route, known to lie on `segment`.
    public func coordinate(onSegment segment: Int, atDistance distance: Double) -> GeographicCoordinate {
        let start = cumulativeDistance[segment], length = cumulativeDistance[segment + 1] - start
        let t = length > 0 ? min(1, max(0, (distance - start) / length)) : 0
        let a = points[segment], b = points[segment + 1]
        return GeographicCoordinate(
            latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude))
    }

    /// Bearing of a segment, degrees clockwise from north.
    public func bearing(ofSegment segment: Int) -> Double {
        Geodesy.bearing(from: points[segment], to: points[segment + 1])
    }
}
