import NavigationCore

/// A route re-costed by the engine on the same way: the figures of the refreshed answer (durations, congestion,
/// posted limits, incidents) laid onto the route being navigated for what lies ahead of the vehicle, its geometry,
/// steps and instructions unchanged, so that guidance goes on as it was (the same step, the prompts already
/// spoken) with new times. Pure.
public struct RouteRefresh: Sendable {
    /// Annotation keys that come from the refresh (what traffic and the engine's data change).
    static let refreshedKeys = ["congestion", "congestion_numeric", "maxspeed", "speed"]
    /// Annotation keys that are traffic: dropped when a refresh grows too old.
    static let trafficKeys = ["congestion", "congestion_numeric"]

    /// A stretch of the route ahead with one traffic level.
    public struct CongestionStretch: Sendable, Equatable {
        /// Metres from the vehicle to where it begins (0 while in it) and to where it ends.
        public var from: Double
        public var to: Double
        /// The engine's level: `low`, `moderate`, `heavy`, `severe`, `unknown`.
        public var level: String
    }

    /// An incident on the route ahead.
    public struct IncidentAhead: Sendable, Equatable {
        public var incident: Incident
        /// Metres from the vehicle to where it begins (0 while in it), and its length.
        public var distance: Double
        public var length: Double
    }

    /// What the refresh changed, for the `route_refreshed` event.
    public struct Outcome: Sendable {
        /// The route with the refreshed figures ahead of the vehicle.
        public var route: Route
        /// The engine's seconds from the vehicle to the destination, before and after.
        public var remainingBefore: Double
        public var remainingAfter: Double
        /// Segments ahead whose posted limit changed.
        public var limitsChanged: Int
        public var congestion: [CongestionStretch]
        public var incidents: [IncidentAhead]
    }

    let route: Route
    let index: RouteIndex
    /// Metres along the route where the refreshed answer starts (where the vehicle was).
    let start: Double

    /// `index` is `route`'s; `start`: metres along it where the refreshed answer starts, as
    /// ``SameRouteAhead/start(of:on:from:)`` found it.
    public init(route: Route, index: RouteIndex, start: Double) {
        self.route = route
        self.index = index
        self.start = max(0, min(start, index.totalDistance))
    }

    /// `refreshed`'s figures on the route from ``start`` on. `refreshed` must be the same way to the same end (the
    /// caller checked it); its length may differ by the engines' rounding, so distances are scaled to match.
    public func merged(with refreshed: Route) -> Outcome {
        let fresh = RouteIndex(route: refreshed)
        let profile = DurationProfile(route: refreshed, index: fresh)
        let remaining = index.totalDistance - start
        let ratio = remaining > 0 ? fresh.totalDistance / remaining : 1
        /// Metres along the refreshed route for `distance` metres along ours.
        func freshDistance(_ distance: Double) -> Double { max(0, min(fresh.totalDistance, (distance - start) * ratio)) }

        var merged = route
        var limitsChanged = 0
        for stepIndex in route.steps.indices where index.stepEnd[stepIndex] > start {
            var step = merged.steps[stepIndex]
            let (stepStart, stepEnd) = (index.stepStart[stepIndex], index.stepEnd[stepIndex])
            let from = max(stepStart, start)
            // The part behind the vehicle keeps its share of the old time; the part ahead gets the new one.
            let behind = stepEnd > stepStart ? step.duration * (from - stepStart) / (stepEnd - stepStart) : 0
            step.duration = behind + profile.time(at: freshDistance(stepEnd)) - profile.time(at: freshDistance(from))
            let segmentCount = max(0, step.geometry.count - 1)
            if step.annotations.isEmpty, segmentCount > 0 { step.annotations = SegmentAnnotations(emptySegments: segmentCount) }
            if step.annotations.count == segmentCount {
                for segment in segments(of: stepIndex) where index.cumulativeDistance[segment + 1] > start {
                    let k = index.segmentIndexInStep[segment]
                    let (a, b) = (max(index.cumulativeDistance[segment], start), index.cumulativeDistance[segment + 1])
                    let source = profile.annotation(at: freshDistance((a + b) / 2))
                    var values = step.annotations[k].values
                    let limitBefore = step.annotations[k].maxSpeed
                    for key in Self.refreshedKeys { values[key] = source?[key] }
                    if index.cumulativeDistance[segment] >= start {
                        values["duration"] = .number(profile.time(at: freshDistance(b)) - profile.time(at: freshDistance(a)))
                    }
                    step.annotations.setSegment(k, to: values)
                    if step.annotations[k].maxSpeed != limitBefore { limitsChanged += 1 }
                }
            }
            // Incidents ahead are the refresh's to say: the old ones ahead go, the refreshed ones are added below.
            step.incidents.removeAll { pointDistance(step: stepIndex, point: $0.geometryIndexEnd) > start }
            merged.steps[stepIndex] = step
        }
        for (freshStep, step) in refreshed.steps.enumerated() {
            for incident in step.incidents {
                let begin = start + fresh.pointDistance(step: freshStep, point: incident.geometryIndexStart) / max(ratio, 1e-9)
                let end = start + fresh.pointDistance(step: freshStep, point: incident.geometryIndexEnd) / max(ratio, 1e-9)
                let (stepIndex, first) = index.point(atDistance: begin)
                let (lastStep, last) = index.point(atDistance: end)
                var placed = incident
                placed.geometryIndexStart = first
                // An incident that runs on into later steps ends with its first step here (as the parser clamps).
                placed.geometryIndexEnd = lastStep == stepIndex ? max(first, last) : merged.steps[stepIndex].geometry.count - 1
                merged.steps[stepIndex].incidents.append(placed)
            }
        }
        merged.duration = merged.steps.reduce(0) { $0 + $1.duration }
        let before = Self.remaining(route, index: index, from: start)
        let outcome = Outcome(
            route: merged, remainingBefore: before, remainingAfter: Self.remaining(merged, index: index, from: start), limitsChanged: limitsChanged,
            congestion: Self.congestion(merged, index: index, from: start), incidents: Self.incidents(merged, index: index, from: start))
        return outcome
    }

    /// The route without the traffic of a refresh that grew too old: congestion and incidents ahead of `along`
    /// metres dropped (times and limits stay: they are the engine's best figures still).
    public static func expired(_ route: Route, index: RouteIndex, from along: Double) -> Route {
        var route = route
        for stepIndex in route.steps.indices where index.stepEnd[stepIndex] > along {
            var step = route.steps[stepIndex]
            for k in step.annotations.indices {
                var values = step.annotations[k].values
                for key in trafficKeys { values[key] = nil }
                step.annotations.setSegment(k, to: values)
            }
            step.incidents.removeAll { index.pointDistance(step: stepIndex, point: $0.geometryIndexEnd) > along }
            route.steps[stepIndex] = step
        }
        return route
    }

    /// The engine's seconds of `route` from `along` metres to its end.
    public static func remaining(_ route: Route, index: RouteIndex, from along: Double) -> Double {
        var total = 0.0
        for (i, step) in route.steps.enumerated() where index.stepEnd[i] > along {
            let (a, b) = (index.stepStart[i], index.stepEnd[i])
            total += b > a ? step.duration * (b - max(a, along)) / (b - a) : step.duration
        }
        return total
    }

    /// The traffic levels ahead of `along`, one stretch per run of the same level.
    public static func congestion(_ route: Route, index: RouteIndex, from along: Double) -> [CongestionStretch] {
        var stretches: [CongestionStretch] = []
        // The step's annotations taken once per step, not the whole step copied per segment (on every route change).
        var annotations = SegmentAnnotations()
        var annotationsStep = -1
        for segment in 0..<index.segmentCount where index.cumulativeDistance[segment + 1] > along {
            if index.segmentStep[segment] != annotationsStep {
                annotationsStep = index.segmentStep[segment]
                annotations = route.steps[annotationsStep].annotations
            }
            let k = index.segmentIndexInStep[segment]
            guard k < annotations.count, let level = annotations[k].congestion else { continue }
            let from = max(0, index.cumulativeDistance[segment] - along), to = index.cumulativeDistance[segment + 1] - along
            if let last = stretches.last, last.level == level, abs(last.to - from) < 0.5 {
                stretches[stretches.count - 1].to = to
            } else {
                stretches.append(CongestionStretch(from: from, to: to, level: level))
            }
        }
        return stretches
    }

    /// The incidents not yet passed at `along`, nearest first.
    public static func incidents(_ route: Route, index: RouteIndex, from along: Double) -> [IncidentAhead] {
        var ahead: [IncidentAhead] = []
        for (stepIndex, step) in route.steps.enumerated() {
            for incident in step.incidents {
                let begin = index.pointDistance(step: stepIndex, point: incident.geometryIndexStart)
                let end = index.pointDistance(step: stepIndex, point: incident.geometryIndexEnd)
                guard end > along else { continue }
                ahead.append(IncidentAhead(incident: incident, distance: max(0, begin - along), length: max(0, end - max(begin, along))))
            }
        }
        return ahead.sorted { $0.distance < $1.distance }
    }

    /// The global segments of step `stepIndex`.
    private func segments(of stepIndex: Int) -> Range<Int> {
        let first = index.stepFirstSegment[stepIndex]
        var end = first
        while end < index.segmentCount, index.segmentStep[end] == stepIndex { end += 1 }
        return index.segmentStep.indices.contains(first) && index.segmentStep[first] == stepIndex ? first..<end : first..<first
    }

    private func pointDistance(step: Int, point: Int) -> Double { index.pointDistance(step: step, point: point) }
}

/// The engine's time along a route by distance: cumulative seconds at each point, each step's duration spread over
/// its segments by their annotated durations (or their lengths), so that the steps' sums stay the engine's.
struct DurationProfile {
    let index: RouteIndex
    let cumulativeTime: [Double]
    let annotations: [SegmentAnnotation?]

    init(route: Route, index: RouteIndex) {
        self.index = index
        var seconds = [Double](repeating: 0, count: index.segmentCount)
        var annotations = [SegmentAnnotation?](repeating: nil, count: index.segmentCount)
        // One pass over the segments, a run of segments per step.
        var first = 0
        while first < index.segmentCount {
            let stepIndex = index.segmentStep[first]
            var end = first
            while end < index.segmentCount, index.segmentStep[end] == stepIndex { end += 1 }
            let step = route.steps[stepIndex]
            let annotated = step.annotations.count == step.geometry.count - 1
            let weights = (first..<end).map { segment -> Double in
                let k = index.segmentIndexInStep[segment]
                if annotated, k < step.annotations.count, let d = step.annotations[k].duration { return d }
                return index.cumulativeDistance[segment + 1] - index.cumulativeDistance[segment]
            }
            let sum = weights.reduce(0, +)
            for segment in first..<end {
                seconds[segment] = sum > 0 ? step.duration * weights[segment - first] / sum : step.duration / Double(end - first)
                let k = index.segmentIndexInStep[segment]
                if annotated, k < step.annotations.count { annotations[segment] = step.annotations[k] }
            }
            first = end
        }
        var cumulative = [0.0]
        for s in seconds { cumulative.append(cumulative[cumulative.count - 1] + s) }
        cumulativeTime = cumulative
        self.annotations = annotations
    }

    /// Seconds from the start to `distance` metres along.
    func time(at distance: Double) -> Double {
        guard index.segmentCount > 0 else { return 0 }
        let segment = index.segment(atDistance: distance)
        let (a, b) = (index.cumulativeDistance[segment], index.cumulativeDistance[segment + 1])
        let fraction = b > a ? min(1, max(0, (distance - a) / (b - a))) : 0
        return cumulativeTime[segment] + fraction * (cumulativeTime[segment + 1] - cumulativeTime[segment])
    }

    /// The annotation of the segment at `distance` metres along.
    func annotation(at distance: Double) -> SegmentAnnotation? {
        guard index.segmentCount > 0 else { return nil }
        return annotations[index.segment(atDistance: distance)]
    }
}

extension RouteIndex {
    /// Metres along the route of point `point` of step `step`'s geometry (clamped into the step).
    func pointDistance(step: Int, point: Int) -> Double {
        guard stepStart.indices.contains(step) else { return totalDistance }
        let first = stepFirstSegment[step]
        // A step's points after its first follow its first segment's start (the shared point counted once).
        let global = min(cumulativeDistance.count - 1, first + max(0, point))
        return max(stepStart[step], min(stepEnd[step], cumulativeDistance[global]))
    }

    /// The step and the index in its geometry of the point at or before `distance` metres along.
    func point(atDistance distance: Double) -> (step: Int, point: Int) {
        let segment = self.segment(atDistance: distance)
        guard segmentStep.indices.contains(segment) else { return (0, 0) }
        return (segmentStep[segment], segmentIndexInStep[segment])
    }
}
