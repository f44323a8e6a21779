import Foundation
import NavigationCore

/// Fixes as a real receiver in a real vehicle reports them, for the drive classes of the field tests: a speed
/// profile with stops, GNSS error with a bias (city multipath pushes every fix the same way) and noise, an honest
/// or dishonest accuracy, a stale course while standing still, outages, and any rate from one fix every 5 s to
/// 10 Hz. Deterministic for a seed.
public struct FieldTrack: Sendable {
    /// GNSS error. `bias`: metres, towards `biasBearing` degrees; `sigma`: metres per axis, one sigma.
    public struct ErrorModel: Sendable {
        public var bias: Double
        public var biasBearing: Double
        public var sigma: Double
        /// The 68% radius reported with each fix; nil: honest, what the error really is.
        public var reportedAccuracy: Double?

        public init(bias: Double = 0, biasBearing: Double = 90, sigma: Double = 0, reportedAccuracy: Double? = nil) {
            self.bias = bias
            self.biasBearing = biasBearing
            self.sigma = sigma
            self.reportedAccuracy = reportedAccuracy
        }

        /// The honest 68% radius: the bias plus the noise's 68% radius (1.51 σ for two axes).
        public var honestAccuracy: Double { (bias * bias + (1.51 * sigma) * (1.51 * sigma)).squareRoot() }

        /// Open-sky receiver: 3 m noise, no bias.
        public static let openSky = ErrorModel(sigma: 3)
    }

    /// A stop: the vehicle stands `seconds` at `distance` metres along the line.
    public struct Stop: Sendable {
        public var distance: Double
        public var seconds: Double
        public init(distance: Double, seconds: Double) {
            self.distance = distance
            self.seconds = seconds
        }
    }

    public var speed: Double
    /// Fixes per second.
    public var rate: Double
    public var error: ErrorModel
    public var seed: UInt64
    public var stops: [Stop]
    /// Seconds since the start during which the receiver reports nothing.
    public var outages: [Range<Double>]
    public var startTime: Date

    public init(
        speed: Double = 10, rate: Double = 1, error: ErrorModel = .openSky, seed: UInt64 = 1, stops: [Stop] = [], outages: [Range<Double>] = [],
        startTime: Date = Date(timeIntervalSince1970: 1_795_241_290)
    ) {
        self.speed = speed
        self.rate = rate
        self.error = error
        self.seed = seed
        self.stops = stops
        self.outages = outages
        self.startTime = startTime
    }

    /// One fix and where the vehicle truly was.
    public struct Sample: Sendable {
        public var fix: UserLocation
        /// Metres along the line of the true position.
        public var distance: Double
        public var truePosition: GeographicCoordinate
    }

    /// Fixes along `line` from its start to its end, where the vehicle stops.
    public func samples(along line: [GeographicCoordinate]) -> [Sample] {
        let path = PolylinePath(line)
        guard path.length > 0 else { return [] }
        var random = SeededRandomNumberGenerator(seed: seed)
        let dt = 1 / rate
        var samples: [Sample] = []
        var distance = 0.0
        var stopIndex = 0
        var stoppedFor = 0.0
        var lastCourse = path.bearing(at: 0)
        var t = 0.0
        while samples.count < 100_000 {
            var moving = true
            if stopIndex < stops.count, distance >= stops[stopIndex].distance {
                if stoppedFor < stops[stopIndex].seconds {
                    moving = false
                    stoppedFor += dt
                } else {
                    stopIndex += 1
                    stoppedFor = 0
                }
            }
            let arrived = distance >= path.length
            let position = path.point(at: distance)
            if moving && !arrived { lastCourse = path.bearing(at: distance) }
            if !outages.contains(where: { $0.contains(t) }) {
                let east = random.nextGaussian(sigma: error.sigma), north = random.nextGaussian(sigma: error.sigma)
                var observed = Geodesy.destination(from: position, distance: error.bias, bearing: error.biasBearing)
                let magnitude = (east * east + north * north).squareRoot()
                if magnitude > 0 { observed = Geodesy.destination(from: observed, distance: magnitude, bearing: Geodesy.degrees(atan2(east, north))) }
                let reportedSpeed = moving && !arrived ? max(0, speed + random.nextGaussian(sigma: 0.2)) : abs(random.nextGaussian(sigma: 0.1))
                // Receivers hold the last course while standing still: it is stale, not a direction of travel.
                let course = moving && !arrived ? Geodesy.normalizedDegrees(lastCourse + random.nextGaussian(sigma: 2)) : lastCourse
                samples.append(
                    Sample(
                        fix: UserLocation(
                            coordinate: observed, horizontalAccuracy: error.reportedAccuracy ?? max(1, error.honestAccuracy),
                            course: CourseOverGround(degrees: course), speed: Speed(metersPerSecond: reportedSpeed),
                            timestamp: startTime.addingTimeInterval(t)),
                        distance: distance, truePosition: position))
            }
            if arrived { break }
            if moving { distance = min(path.length, distance + speed * dt) }
            t += dt
        }
        return samples
    }

    public func fixes(along line: [GeographicCoordinate]) -> [UserLocation] { samples(along: line).map(\.fix) }
}

/// A polyline measured along its length.
public struct PolylinePath: Sendable {
    public let points: [GeographicCoordinate]
    /// Metres from the start to each point.
    public let cumulative: [Double]

    public init(_ points: [GeographicCoordinate]) {
        self.points = points
        var cumulative = [0.0]
        for (a, b) in zip(points, points.dropFirst()) { cumulative.append(cumulative.last! + Geodesy.distance(a, b)) }
        self.cumulative = cumulative
    }

    public var length: Double { cumulative.last ?? 0 }

    func segment(at distance: Double) -> Int {
        var low = 0, high = max(0, points.count - 2)
        while low < high {
            let mid = (low + high + 1) / 2
            if cumulative[mid] <= distance { low = mid } else { high = mid - 1 }
        }
        return low
    }

    public func point(at distance: Double) -> GeographicCoordinate {
        guard points.count > 1 else { return points.first! }
        let d = min(max(0, distance), length)
        let i = segment(at: d)
        let length = cumulative[i + 1] - cumulative[i]
        guard length > 0 else { return points[i] }
        return Geodesy.destination(from: points[i], distance: d - cumulative[i], bearing: Geodesy.bearing(from: points[i], to: points[i + 1]))
    }

    public func bearing(at distance: Double) -> Double {
        guard points.count > 1 else { return 0 }
        var i = segment(at: min(max(0, distance), length))
        while i + 1 < points.count - 1, cumulative[i + 1] - cumulative[i] < 0.01 { i += 1 }
        return Geodesy.bearing(from: points[i], to: points[i + 1])
    }

    /// The first `distance` metres.
    public func prefix(_ distance: Double) -> [GeographicCoordinate] {
        let i = segment(at: distance)
        return Array(points[...i]) + [point(at: distance)]
    }

    /// Shortest distance from a point to the line, metres.
    public func distance(from point: GeographicCoordinate) -> Double {
        zip(points, points.dropFirst()).map { Geodesy.closestPoint(on: $0, $1, to: point).distance }.min() ?? .infinity
    }
}
