import Foundation
import NavigationCore
import Testing

/// Paths inside this repository, found from this file's location.
enum RepoPaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func routeFixture(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/\(name).json"))
    }
}

/// A routing engine started by `scripts/engines start`. Tests that need one fail, loudly, when it is not running.
enum LiveEngine: String, CaseIterable, Sendable {
    case valhalla, osrm

    var environmentVariable: String { "NAVD_\(rawValue.uppercased())_URL" }

    func url() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment[environmentVariable],
            "\(environmentVariable) is not set: start the engines with `eval \"$(scripts/engines start)\"` or run scripts/test")
    }
}

/// Deterministic pseudo-random numbers for test data (SplitMix64), with normally distributed samples.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }

    /// Normal with mean 0 and the given standard deviation (Box–Muller).
    mutating func gaussian(sigma: Double) -> Double {
        sigma * (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
    }
}

/// Points every `spacing` metres along a polyline.
func resample(_ line: [GeographicCoordinate], every spacing: Double) -> [GeographicCoordinate] {
    guard var previous = line.first else { return [] }
    var result = [previous]
    var carried = 0.0
    for next in line.dropFirst() {
        let length = Geodesy.distance(previous, next)
        var along = spacing - carried
        while along <= length {
            result.append(Geodesy.destination(from: previous, distance: along, bearing: Geodesy.bearing(from: previous, to: next)))
            along += spacing
        }
        carried = length - (along - spacing)
        previous = next
    }
    if let last = line.last, result.last != last { result.append(last) }
    return result
}

/// Shortest distance from a point to a polyline, metres.
func distance(from point: GeographicCoordinate, to line: [GeographicCoordinate]) -> Double {
    guard line.count > 1 else { return line.first.map { Geodesy.distance($0, point) } ?? .infinity }
    var best = Double.infinity
    for i in 1..<line.count { best = min(best, Geodesy.closestPoint(on: line[i - 1], line[i], to: point).distance) }
    return best
}
