import ArgumentParser
import FoundationEssentials
import Glibc
import NavigationCore
import NMEA
import TrackFormats
import SystemSupport

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a simulated drive along a route: JSON Lines of fixes, or NMEA sentences.")

    @OptionGroup var routeFile: RouteFileOptions

    @Option(help: "Speed, metres per second.")
    var speed: Double = 13.9

    @Option(help: "Fixes per second.")
    var rate: Double = 1

    @Option(help: "Position noise, metres (standard deviation on each axis).")
    var noise: Double = 0

    @Option(help: "Seed of the noise (same seed, same track).")
    var seed: UInt64 = 1

    @Option(help: "Constant offset to the right of travel, metres (negative: left).")
    var lateralBias: Double = 0

    @Option(help: "Time of the first fix, ISO 8601 UTC.")
    var start: String = "2026-11-21T06:08:10Z"

    @Flag(help: "Write NMEA RMC and GGA sentences instead of JSON Lines.")
    var nmea = false

    func validate() throws {
        guard speed > 0 else { throw ValidationError("--speed must be positive") }
        guard rate > 0, rate <= 100 else { throw ValidationError("--rate must be in (0, 100]") }
        guard noise >= 0 else { throw ValidationError("--noise must not be negative") }
        guard ISO8601Timestamp.parse(start) != nil else { throw ValidationError("--start must be an ISO 8601 UTC time") }
    }

    func run() async throws {
        try await reportingErrors {
            let selected = try routeFile.load()
            let simulator = LocationSimulator(
                speed: speed, sampleRate: rate, noise: noise, seed: seed, lateralBias: lateralBias,
                startTime: ISO8601Timestamp.parse(start)!)
            let fixes = simulator.simulate(along: RouteIndex(route: selected).points)
            var output = ""
            if nmea {
                for fix in fixes { output += NMEAWriter.sentences(for: fix).map { $0 + "\r\n" }.joined() }
            } else {
                let encoder = makeJSONEncoder(pretty: false)
                for fix in fixes { output += String(decoding: try encoder.encode(fix), as: UTF8.self) + "\n" }
            }
            StandardStream.output.write(output)
        }
    }
}
