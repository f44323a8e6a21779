import FoundationEssentials
import Glibc

/// Generates fixes along a line, as a GNSS receiver in a vehicle driving it would report them. Pure and
/// deterministic: the same parameters and seed give the same fixes.
public struct LocationSimulator: Sendable {
    /// Driving speed, metres per second.
    public var speed: Double
    /// Fixes per second.
    public var sampleRate: Double
    /// Standard deviation of the position noise on each axis, metres (0: exact positions).
    public var noise: Double
    public var seed: UInt64
    /// Constant offset to the right of the direction of travel, metres (negative: to the left), e.g. a lane
    /// offset or a receiver's systematic error.
    public var lateralBias: Double
    /// Timestamp of the first fix.
    public var startTime: Date
    /// Horizontal accuracy reported with each fix, metres (68%); by default the noise level, at least 1 m.
    public var reportedAccuracy: Double?

    public init(
        speed: Double = 13.9, sampleRate: Double = 1, noise: Double = 0, seed: UInt64 = 1, lateralBias: Double = 0,
        startTime: Date = Date(timeIntervalSince1970: 1_795_241_290), reportedAccuracy: Double? = nil
    ) {
        self.speed = speed
        self.sampleRate = sampleRate
        self.noise = noise
        self.seed = seed
        self.lateralBias = lateralBias
        self.startTime = startTime
        self.reportedAccuracy = reportedAccuracy
    }

    /// Fixes every `speed / sampleRate` metres along `line`, the last one at its end. Course is the direction
    /// of travel; speed is the configured speed (0 on the final fix, standing at the destination).
    public func simulate(along line: [GeographicCoordinate]) -> [UserLocation] {
        guard let first = line.first, speed > 0, sampleRate > 0 else { return [] }
        var random = SeededRandomNumberGenerator(seed: seed)
        let spacing = speed / sampleRate
        let accuracy = reportedAccuracy ?? max(1, noise)
        var fixes: [UserLocation] = []
        var time = startTime
        func emit(_ point: GeographicCoordinate, bearing: Double, moving: Bool) {
            var position = point
            if lateralBias != 0 {
                position = Geodesy.destination(from: position, distance: abs(lateralBias), bearing: bearing + (lateralBias > 0 ? 90 : -90))
            }
            if noise > 0 {
                let east = random.nextGaussian(sigma: noise), north = random.nextGaussian(sigma: noise)
                let magnitude = (east * east + north * north).squareRoot()
                position = Geodesy.destination(from: position, distance: magnitude, bearing: Geodesy.degrees(atan2(east, north)))
            }
            fixes.append(
                UserLocation(
                    coordinate: position, horizontalAccuracy: accuracy, course: CourseOverGround(degrees: bearing, accuracy: 5),
                    speed: Speed(metersPerSecond: moving ? speed : 0, accuracy: 0.5), timestamp: time))
            time += 1 / sampleRate
        }
        guard line.count > 1 else {
            emit(first, bearing: 0, moving: false)
            return fixes
        }
        var untilNext = 0.0
        var lastBearing = Geodesy.bearing(from: line[0], to: line[1])
        for i in 1..<line.count {
            let a = line[i - 1], b = line[i]
            let length = Geodesy.distance(a, b)
            guard length > 0 else { continue }
            let bearing = Geodesy.bearing(from: a, to: b)
            lastBearing = bearing
            var along = untilNext
            while along < length - 1e-6 {
                emit(Geodesy.destination(from: a, distance: along, bearing: bearing), bearing: bearing, moving: true)
                along += spacing
            }
            untilNext = along - length
        }
        emit(line[line.count - 1], bearing: lastBearing, moving: false)
        return fixes
    }
}
