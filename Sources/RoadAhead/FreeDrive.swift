import FoundationEssentials
import NavigationCore

/// When navd matches the vehicle's last fixes to the road network while there is no trip (`[free_drive]`).
public struct FreeDriveRules: Hashable, Sendable {
    /// False: no matching without a trip (the idle state carries the raw position only).
    public var enabled = true
    /// Seconds (fix time) between two match requests at the most: the engine's load is 60 / interval requests a
    /// minute while driving, none while standing.
    public var interval = 10.0
    /// Metres of the latest driving sent to the engine (the matching window).
    public var window = 300.0
    /// Metres the vehicle must have moved since the last match before another is asked for.
    public var minimumMovement = 25.0
    /// Seconds (fix time) after which a match no longer describes where the vehicle is.
    public var maximumAge = 30.0

    public init() {}
}

/// What the idle state says about the road the vehicle is on, from the last match.
public struct FreeDriveMatch: Sendable {
    public var roadName: String?
    /// The posted limit at the end of the match, in its own unit.
    public var limit: (value: Double, unit: SpeedUnit)?
    /// The stretches the vehicle is in (a tunnel, a toll road, a motorway, a ferry), from the match's features.
    public var roadAhead: [RoadObjectAhead]
    /// Fix time of the last point matched.
    public var matchedAt: Date

    /// The road at the end of a matched route (the end is where the vehicle was): the last named step's road, the
    /// limit of the last segment that has one, and the stretches that reach the end.
    public init(route: Route, at time: Date) {
        let steps = route.steps.filter { $0.maneuver.type != .arrive }
        roadName = steps.last(where: { $0.roadName != nil })?.roadName
        matchedAt = time
        for step in steps.reversed() {
            if case .limit(let value, let unit)? = step.annotations.last(where: { $0.maxSpeed?.metersPerSecond != nil })?.maxSpeed {
                limit = (value, unit)
                break
            }
        }
        let index = RouteIndex(route: route)
        roadAhead = RouteObjects(route: route, index: index).objects.filter { $0.isStretch && $0.end >= index.totalDistance - 1 }
            .map { RoadObjectAhead(kind: $0.kind, distance: 0, name: $0.name, detail: $0.detail) }
    }
}

/// Free drive, decided fix by fix: which fixes to send for matching and when, and what the last answer says.
/// Pure: the coordinator sends the trace this returns and hands back the engine's answer or error.
public struct FreeDriveTracker: Sendable {
    public enum Status: String, Sendable, Codable {
        /// No match asked for yet, or the last one is too old (standing, or waiting for the next request).
        case waiting
        /// The road is known from a match within ``FreeDriveRules/maximumAge``.
        case matched
        /// The last request failed: the engine is unreachable or could not match; `detail` says why.
        case unavailable
    }

    public var rules: FreeDriveRules
    /// The latest fixes, oldest first, reaching back ``FreeDriveRules/window`` metres of driving.
    public private(set) var trace: [UserLocation] = []
    /// True while a request is out: no second one is sent meanwhile (a slow engine never piles up requests).
    public private(set) var inFlight = false
    public private(set) var match: FreeDriveMatch?
    public private(set) var failure: String?
    private var lastRequest: (time: Date, coordinate: GeographicCoordinate)?

    public init(rules: FreeDriveRules = FreeDriveRules()) {
        self.rules = rules
    }

    /// Takes an accepted fix without a trip; returns the trace to match when a request is due (at least three
    /// fixes over the window, `interval` since the last request, `minimumMovement` since then, none in flight).
    public mutating func observe(_ fix: UserLocation) -> [UserLocation]? {
        guard rules.enabled else { return nil }
        if let last = trace.last, fix.timestamp <= last.timestamp { return nil }
        trace.append(fix)
        var length = 0.0
        var keepFrom = trace.count - 1
        while keepFrom > 0 {
            length += Geodesy.distance(trace[keepFrom - 1].coordinate, trace[keepFrom].coordinate)
            if length > rules.window { break }
            keepFrom -= 1
        }
        if keepFrom > 0 { trace.removeFirst(keepFrom) }
        guard !inFlight, trace.count >= 3 else { return nil }
        if let last = lastRequest {
            guard fix.timestamp.timeIntervalSince(last.time) >= rules.interval - 0.001,
                Geodesy.distance(last.coordinate, fix.coordinate) >= rules.minimumMovement
            else { return nil }
        } else if Geodesy.distance(trace[0].coordinate, fix.coordinate) < rules.minimumMovement {
            return nil
        }
        inFlight = true
        lastRequest = (fix.timestamp, fix.coordinate)
        return trace
    }

    /// The engine's answer for the trace sent last.
    public mutating func matched(_ route: Route?, failure: String?) {
        inFlight = false
        if let route, let time = lastRequest?.time {
            match = FreeDriveMatch(route: route, at: time)
            self.failure = nil
        } else {
            self.failure = failure ?? "the engine returned no match"
        }
    }

    /// The request was dropped (a trip began): nothing came back.
    public mutating func abandon() {
        inFlight = false
        trace.removeAll()
    }

    /// The match that still describes the vehicle at fix time `time`, if any.
    public func current(at time: Date) -> FreeDriveMatch? {
        guard let match, failure == nil, time.timeIntervalSince(match.matchedAt) <= rules.maximumAge else { return nil }
        return match
    }

    public func status(at time: Date) -> Status {
        if failure != nil { return .unavailable }
        return current(at: time) != nil ? .matched : .waiting
    }
}

extension FreeDriveTracker {
    /// What the tracker remembers between fixes, for a recording that starts mid-run (its replay starts from it).
    /// Times as seconds since 2001-01-01 UTC; the trace as `[lat, lon, time, accuracy]`.
    public struct Memory: Codable, Sendable, Equatable {
        public var trace: [[Double]]
        public var inFlight: Bool
        public var failure: String?
        public var lastRequest: [Double]?
        public var match: MatchMemory?
    }

    public struct MatchMemory: Codable, Sendable, Equatable {
        public var roadName: String?
        public var limit: Double?
        public var unit: String?
        public var roadAhead: [RoadObjectAhead]
        public var matchedAt: Double
    }

    public var memory: Memory {
        Memory(
            trace: trace.map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.timestamp.timeIntervalSinceReferenceDate, $0.horizontalAccuracy] },
            inFlight: inFlight, failure: failure,
            lastRequest: lastRequest.map { [$0.time.timeIntervalSinceReferenceDate, $0.coordinate.latitude, $0.coordinate.longitude] },
            match: match.map {
                MatchMemory(
                    roadName: $0.roadName, limit: $0.limit?.value, unit: $0.limit?.unit.rawValue, roadAhead: $0.roadAhead,
                    matchedAt: $0.matchedAt.timeIntervalSinceReferenceDate)
            })
    }

    /// A tracker that remembers `memory` (a replay's start). Entries that do not fit are left out.
    public init(rules: FreeDriveRules, memory: Memory) {
        self.init(rules: rules)
        trace = memory.trace.compactMap { v in
            guard v.count == 4 else { return nil }
            return UserLocation(
                coordinate: GeographicCoordinate(latitude: v[0], longitude: v[1]), horizontalAccuracy: v[3],
                timestamp: Date(timeIntervalSinceReferenceDate: v[2]))
        }
        inFlight = memory.inFlight
        failure = memory.failure
        if let r = memory.lastRequest, r.count == 3 {
            lastRequest = (Date(timeIntervalSinceReferenceDate: r[0]), GeographicCoordinate(latitude: r[1], longitude: r[2]))
        }
        match = memory.match.map { saved in
            var limit: (value: Double, unit: SpeedUnit)?
            if let value = saved.limit, let unit = saved.unit.flatMap(SpeedUnit.init(rawValue:)) { limit = (value, unit) }
            return FreeDriveMatch(
                roadName: saved.roadName, limit: limit, roadAhead: saved.roadAhead, matchedAt: Date(timeIntervalSinceReferenceDate: saved.matchedAt))
        }
    }
}

extension FreeDriveMatch {
    init(roadName: String?, limit: (value: Double, unit: SpeedUnit)?, roadAhead: [RoadObjectAhead], matchedAt: Date) {
        self.roadName = roadName
        self.limit = limit
        self.roadAhead = roadAhead
        self.matchedAt = matchedAt
    }
}
