import Foundation

// navbench: prints performance figures. Targets live here, never in timed unit tests.
//
//   swift run -c release navbench route-parse [--steps N] [--iterations K]
//   swift run -c release navbench controller
//   swift run -c release navbench nmea [CORPUS_DIR]
//   swift run -c release navbench pty-latency
//   swift run -c release navbench daemon-loop

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let n = Int(arguments[index + 1]) else {
        return value
    }
    return n
}

switch arguments.first {
case "route-parse":
    RouteParseBenchmark(steps: option("--steps", default: 4000), iterations: option("--iterations", default: 10)).run()
case "controller":
    ControllerBenchmark().run()
case "nmea":
    NMEABenchmark.throughput(corpus: arguments.count > 1 ? arguments[1] : "Tests/NMEATests/Fixtures/nmea-corpus")
case "pty-latency":
    await NMEABenchmark.ptyLatency()
case "daemon-loop":
    await DaemonBenchmark().run()
default:
    FileHandle.standardError.write(Data("usage: navbench route-parse [--steps N] [--iterations K] | controller | nmea [CORPUS_DIR] | pty-latency | daemon-loop\n".utf8))
    exit(2)
}
