import NavigationCore

/// A route's posted speed limits along its length, from the engine's `maxspeed` annotations, built once per route:
/// runs of one limit with where they begin and end (metres along the route, as ``RouteIndex`` measures it).
public struct RouteLimits: Sendable {
    public struct Run: Hashable, Sendable {
        /// Metres along the route where the run begins and ends.
        public var start: Double
        public var end: Double
        /// The limit, in its own unit.
        public var value: Double
        public var unit: SpeedUnit

        /// The limit in metres per second.
        public var metersPerSecond: Double { value * unit.metersPerSecond }
    }

    /// Runs with a known numeric limit, in order; stretches without one (no annotation, `none`, `unknown`) have none.
    public let runs: [Run]

    public init(route: Route, index: RouteIndex) {
        var runs: [Run] = []
        // The step's annotations taken once per step, not the whole step copied per segment.
        var annotations = SegmentAnnotations()
        var annotationsStep = -1
        var maxSpeedMember: Int?
        // The last `maxspeed` read, and its limit: a street's segments share one (``JSONValue/isIdentical(to:)``).
        var lastMember: JSONValue?
        var lastLimit: MaxSpeed?
        for segment in 0..<index.segmentCount {
            if index.segmentStep[segment] != annotationsStep {
                annotationsStep = index.segmentStep[segment]
                annotations = route.steps[annotationsStep].annotations
                maxSpeedMember = annotations.memberIndex("maxspeed")
            }
            let inStep = index.segmentIndexInStep[segment]
            let start = index.cumulativeDistance[segment], end = index.cumulativeDistance[segment + 1]
            guard inStep < annotations.count, let maxSpeedMember, let member = annotations.value(member: maxSpeedMember, at: inStep) else { continue }
            if lastMember.map({ !$0.isIdentical(to: member) }) ?? true {
                lastMember = member
                lastLimit = MaxSpeed(annotation: member)
            }
            guard case .limit(let value, let unit)? = lastLimit else { continue }
            if var last = runs.last, last.value == value, last.unit == unit, abs(last.end - start) < 0.01 {
                last.end = end
                runs[runs.count - 1] = last
            } else {
                runs.append(Run(start: start, end: end, value: value, unit: unit))
            }
        }
        self.runs = runs
    }

    /// The limit in force at `along` metres, or nil.
    public func limit(at along: Double) -> Run? {
        guard let i = firstRun(endingAfter: along), runs[i].start <= along else { return nil }
        return runs[i]
    }

    /// The first run that begins after `along` metres, no more than `within` metres beyond it, for which `isOver`
    /// holds (the vehicle's speed is over that run's limit). O(log n + the runs looked at).
    public func firstLimitAhead(of along: Double, within: Double, over isOver: (Run) -> Bool) -> Run? {
        guard var i = firstRun(endingAfter: along) else { return nil }
        while i < runs.count, runs[i].start <= along + within {
            if runs[i].start > along, isOver(runs[i]) { return runs[i] }
            i += 1
        }
        return nil
    }

    /// Index of the first run that ends after `along` (binary search), or nil.
    private func firstRun(endingAfter along: Double) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let mid = (low + high) / 2
            if runs[mid].end <= along { low = mid + 1 } else { high = mid }
        }
        return low < runs.count ? low : nil
    }
}
