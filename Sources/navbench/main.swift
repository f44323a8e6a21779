import Foundation

// navbench: prints performance figures. Targets live here, never in timed unit tests.
//
//   swift run -c release navbench route-parse [--steps N] [--iterations K]
//   swift run -c release navbench controller

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
default:
    FileHandle.standardError.write(Data("usage: navbench route-parse [--steps N] [--iterations K] | controller\n".utf8))
    exit(2)
}
