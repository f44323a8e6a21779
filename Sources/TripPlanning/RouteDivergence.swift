import NavigationCore

/// Where another route leaves the one being navigated. Pure.
public enum RouteDivergence {
    /// Metres along `candidate` (which starts near `along` metres along `current`) that it stays within
    /// `tolerance` metres of `current`: how far the vehicle drives before the candidate takes another road. The
    /// whole candidate when it never leaves.
    public static func sharedLength(of candidate: RouteIndex, with current: RouteIndex, from along: Double, tolerance: Double = 20) -> Double {
        guard candidate.segmentCount > 0, current.segmentCount > 0 else { return 0 }
        var cursor = current.segment(atDistance: max(0, along - 50))
        for point in 0..<candidate.points.count {
            let here = candidate.points[point]
            let expected = along + candidate.cumulativeDistance[point]
            // The part of the current route near where this point would be on it.
            while cursor + 1 < current.segmentCount, current.cumulativeDistance[cursor + 1] < expected - 100 { cursor += 1 }
            var nearest = Double.infinity
            var segment = cursor
            while segment < current.segmentCount, current.cumulativeDistance[segment] <= expected + 100 {
                nearest = min(nearest, Geodesy.closestPoint(on: current.points[segment], current.points[segment + 1], to: here).distance)
                segment += 1
            }
            if nearest > tolerance { return point == 0 ? 0 : candidate.cumulativeDistance[point - 1] }
        }
        return candidate.totalDistance
    }
}
