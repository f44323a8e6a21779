import FoundationEssentials
import Glibc

/// One trip state as a JSON object: what `navctl replay` prints per fix (docs/replay-format.md).
/// Field names and meanings match the daemon's `trip_state` event.
public struct TripStateRecord: Hashable, Sendable, Codable {
    public struct Point: Hashable, Sendable, Codable {
        public var lat: Double
        public var lon: Double
        /// Degrees clockwise from north, when known.
        public var course: Double?
        /// Ground speed, metres per second, when the receiver said.
        public var speed: Double?
    }

    public struct Deviation: Hashable, Sendable, Codable {
        /// `none`, `off_step`, `leaving`, `off_route` or `approaching` (protocol 2; protocol 1 said `offStep`,
        /// `offRoute`).
        public var kind: String
        /// Metres from the current step (`off_step`) or from the route (the others); 0 for `none`.
        public var distance: Double
    }

    /// Where the route is while the trip starts away from it (see ``RouteApproach``).
    public struct Approach: Hashable, Sendable, Codable {
        /// Metres from the vehicle to the route.
        public var distance: Double
        /// Degrees clockwise from north, from the vehicle to the route.
        public var bearing: Double
        public var lat: Double
        public var lon: Double
        public var roadName: String?
        /// Metres the engine moved the origin onto its road, when it said.
        public var originSnapDistance: Double?
    }

    public struct SpeedLimit: Hashable, Sendable, Codable {
        public var value: Double
        public var unit: String

        public init(value: Double, unit: String) {
            self.value = value
            self.unit = unit
        }
    }

    /// `idle`, `navigating` or `complete`.
    public var state: String
    /// Fix time, ISO 8601 UTC.
    public var time: String
    public var rawLocation: Point?
    public var snappedLocation: Point?
    public var stepIndex: Int?
    public var remainingSteps: Int?
    public var remainingWaypoints: Int?
    public var progress: TripProgress?
    public var deviation: Deviation?
    public var roadName: String?
    public var visualInstruction: VisualInstruction?
    /// A prompt that became due with this fix (each is reported once).
    public var spokenInstruction: SpokenInstruction?
    public var speedLimit: SpeedLimit?
    /// The speed alert where a limit is known or an alert or slow-down warning is on (set by the daemon, which
    /// decides it over fixes); absent otherwise.
    public var speedAlert: SpeedAlert?
    /// Without a trip: what matching the last fixes to the road network says (`status`: `waiting`, `matched`,
    /// `unavailable`; `detail` why it is unavailable). Set by the daemon; absent while free drive is off.
    public var freeDrive: FreeDrive?
    public struct FreeDrive: Hashable, Sendable, Codable {
        public var status: String
        public var detail: String?

        public init(status: String, detail: String? = nil) {
            self.status = status
            self.detail = detail
        }
    }
    /// While navigating: the arrival at the driver's pace (set by the daemon; docs/trip.md#arrival-time).
    public var arrival: Arrival?
    public struct Arrival: Hashable, Sendable, Codable {
        /// When the vehicle will be at the destination: the fix time plus `durationRemaining`, ISO 8601 UTC.
        public var time: String
        /// Seconds still to drive to the destination at the driver's pace (one decimal).
        public var durationRemaining: Double
        /// Actual seconds per second the engine expected, over the last minutes of driving (two decimals).
        public var pace: Double
        /// The stops not reached yet and the destination, in order.
        public var waypoints: [Waypoint]

        public struct Waypoint: Hashable, Sendable, Codable {
            /// Index in the `navigate` command's waypoints, as `waypoint_reached` counts them.
            public var index: Int
            /// ISO 8601 UTC.
            public var time: String
            /// Seconds still to drive to it at the driver's pace (one decimal).
            public var durationRemaining: Double

            public init(index: Int, time: String, durationRemaining: Double) {
                self.index = index
                self.time = time
                self.durationRemaining = durationRemaining
            }
        }

        public init(time: String, durationRemaining: Double, pace: Double, waypoints: [Waypoint]) {
            self.time = time
            self.durationRemaining = durationRemaining
            self.pace = pace
            self.waypoints = waypoints
        }
    }
    /// While navigating: the road objects ahead within the horizon, nearest first (set by the daemon; empty when
    /// there are none or the engine said nothing of them).
    public var roadAhead: [RoadObjectAhead]?
    public var congestion: String?
    /// Metres between raw fixes since the start; on `complete`, the trip's total.
    public var distanceTravelled: Double?
    /// Present (true) only when the state was predicted along the route during a GNSS outage.
    public var predicted: Bool?
    /// Present only while the trip starts away from its route (deviation kind `approaching`).
    public var approach: Approach?

    public init(_ tripState: TripState, time: Date) {
        switch tripState {
        case .idle:
            self.time = ISO8601Timestamp.format(time)
            state = "idle"
        case .complete(let completion):
            self.time = ISO8601Timestamp.format(time)
            state = "complete"
            rawLocation = Point(completion.location)
            spokenInstruction = completion.spokenInstruction
            distanceTravelled = Self.rounded(completion.summary.distanceTravelled)
        case .navigating(let s):
            self = TripStateRecord(navigating: s, maxSpeed: s.annotation?.maxSpeed, time: time)
        }
    }

    /// The record of a navigating state, read where it is (binding it out of a ``TripState`` copied the whole
    /// state on every fix). `maxSpeed`: the limit of the state's segment (its annotation's, which the caller
    /// needs too: read once).
    public init(navigating s: NavigatingState, maxSpeed: MaxSpeed?, time: Date) {
        self.time = ISO8601Timestamp.format(time)
        state = "navigating"
        rawLocation = Point(s.rawLocation)
        snappedLocation = Point(s.snappedLocation)
        stepIndex = s.stepIndex
        remainingSteps = s.remainingSteps.count
        remainingWaypoints = s.remainingWaypoints.count
        progress = TripProgress(
            distanceToNextManeuver: Self.rounded(s.progress.distanceToNextManeuver),
            distanceRemaining: Self.rounded(s.progress.distanceRemaining),
            durationRemaining: Self.rounded(s.progress.durationRemaining))
        switch s.deviation {
        case .none: deviation = Deviation(kind: "none", distance: 0)
        case .offStep(let d): deviation = Deviation(kind: "off_step", distance: Self.rounded(d))
        case .offRoute(let d): deviation = Deviation(kind: "off_route", distance: Self.rounded(d))
        case .leaving(let d): deviation = Deviation(kind: "leaving", distance: Self.rounded(d))
        case .approaching(let d): deviation = Deviation(kind: "approaching", distance: Self.rounded(d))
        }
        approach = s.approach.map {
            Approach(
                distance: Self.rounded($0.distance), bearing: ($0.bearing * 10).rounded() / 10,
                lat: ($0.target.latitude * 1e7).rounded() / 1e7, lon: ($0.target.longitude * 1e7).rounded() / 1e7,
                roadName: $0.roadName, originSnapDistance: $0.originSnapDistance.map(Self.rounded))
        }
        roadName = s.roadName
        visualInstruction = s.visualInstruction
        spokenInstruction = s.spokenInstruction
        if case .limit(let value, let unit)? = maxSpeed { speedLimit = SpeedLimit(value: value, unit: unit.rawValue) }
        congestion = s.annotation?.congestion
        distanceTravelled = Self.rounded(s.summary.distanceTravelled)
        predicted = s.predicted ? true : nil
    }

    /// Centimetres are plenty, and rounding keeps snapshots stable across floating-point noise.
    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}

extension TripStateRecord.Point {
    public init(_ location: UserLocation) {
        lat = (location.coordinate.latitude * 1e7).rounded() / 1e7
        lon = (location.coordinate.longitude * 1e7).rounded() / 1e7
        course = location.course.map { ($0.degrees * 10).rounded() / 10 }
        speed = location.speed.map { ($0.metersPerSecond * 100).rounded() / 100 }
    }
}
