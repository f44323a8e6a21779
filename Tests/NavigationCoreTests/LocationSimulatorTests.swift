import Foundation
import NavigationCore
import Testing

@Suite("Location simulation")
struct LocationSimulatorTests {
    static let start = GeographicCoordinate(latitude: 60.17, longitude: 24.94)
    static let line = [start, Geodesy.destination(from: start, distance: 1000, bearing: 90)]

    @Test func fixesAreSpacedBySpeedOverRateWithCourseAndTime() throws {
        let fixes = LocationSimulator(speed: 10, sampleRate: 2).simulate(along: Self.line)
        #expect(fixes.count == 201)  // every 5 m over 1000 m, plus the destination
        #expect(abs(Geodesy.distance(fixes[0].coordinate, fixes[1].coordinate) - 5) < 0.001)
        #expect(fixes[1].timestamp.timeIntervalSince(fixes[0].timestamp) == 0.5)
        #expect(fixes.dropLast().allSatisfy { abs(($0.course?.degrees ?? 0) - 90) < 0.01 && $0.speed?.metersPerSecond == 10 })
        #expect(fixes.last?.speed?.metersPerSecond == 0)
        #expect(try #require(fixes.last).coordinate == Self.line[1])
    }

    @Test func lateralBiasOffsetsToTheRightOfTravel() {
        // 100 m: short enough that the great-circle path and the straight segment agree to the millimetre.
        let short = [Self.start, Geodesy.destination(from: Self.start, distance: 100, bearing: 90)]
        let fixes = LocationSimulator(speed: 10, sampleRate: 1, lateralBias: 3).simulate(along: short)
        #expect(fixes.count == 11)
        // Travelling east, right is south.
        for fix in fixes {
            let projection = Geodesy.closestPoint(on: short[0], short[1], to: fix.coordinate)
            #expect(abs(projection.distance - 3) < 0.01)
            #expect(fix.coordinate.latitude < projection.coordinate.latitude)
        }
    }

    @Test func noiseHasTheRequestedSpreadAndIsReproducible() {
        let simulator = LocationSimulator(speed: 1, sampleRate: 1, noise: 5, seed: 42)
        let fixes = simulator.simulate(along: Self.line)
        let offsets = fixes.map { Geodesy.closestPoint(on: Self.line[0], Self.line[1], to: $0.coordinate).distance }
        // The cross-track offset of each fix is |N(0, 5)|: its root mean square is 5 m.
        let rms = (offsets.map { $0 * $0 }.reduce(0, +) / Double(offsets.count)).squareRoot()
        #expect(abs(rms - 5) < 0.5)
        #expect(simulator.simulate(along: Self.line) == fixes)
        var other = simulator
        other.seed = 43
        #expect(other.simulate(along: Self.line) != fixes)
    }

    @Test func theSeededGeneratorIsDeterministic() {
        var a = SeededRandomNumberGenerator(seed: 1), b = SeededRandomNumberGenerator(seed: 1)
        for _ in 0..<100 { #expect(a.next() == b.next()) }
        var c = SeededRandomNumberGenerator(seed: 2)
        let u = (0..<10_000).map { _ in c.nextUniform() }
        #expect(u.allSatisfy { $0 > 0 && $0 < 1 })
        #expect(abs(u.reduce(0, +) / 10_000 - 0.5) < 0.02)
    }
}
