import Foundation

// navbench: prints performance figures as one table (stdout) and, with --json FILE, writes them as JSON.
// Targets live here, never in timed unit tests. scripts/bench builds release, starts Valhalla and runs `all`.
//
//   navbench all [--json FILE] [--epochs N]       everything below, peers included
//   navbench route-parse [--steps N] [--iterations K] [--write-response FILE]
//   navbench route-answer                        navd's own work on a real Valhalla answer
//   navbench controller
//   navbench nmea [CORPUS_DIR]                   throughput (hot), then one epoch every 100 ms (cold)
//   navbench nmea-paced                          only the epochs 100 ms apart
//   navbench pty-latency
//   navbench daemon-loop
//   navbench field [--epochs N] [--keep]         the real navd, gpsd and Valhalla (NAVD_VALHALLA_URL)
//   navbench free-drive [--free-epochs N] [--keep] free drive's cost: match requests a minute, navd's CPU
//   navbench scaling [--keep]                    how costs grow: 1-1000 clients, 1-20 Hz, 1-1000 km routes
//   navbench route-sizes                         scaling's in-process part: route events of 1-1000 km
//   navbench soak [--hours H] [--speedup S] [--clients N] [--keep]
//                                                a long drive, time-scaled (default 8 h at 60x, 50 clients)

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let n = Int(arguments[index + 1]) else {
        return value
    }
    return n
}

func textOption(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let corpus = "Tests/NMEATests/Fixtures/nmea-corpus"

func routeParse() -> [Figure] {
    RouteParseBenchmark(steps: option("--steps", default: 4000), iterations: option("--iterations", default: 10), responseFile: textOption("--write-response"))
        .run()
}

/// The navd built next to this navbench (the same build), and Valhalla's URL from the environment.
func navdAndValhalla() -> (navd: String, valhalla: String) {
    let navd = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("navd").path
    guard FileManager.default.isExecutableFile(atPath: navd) else { fail("no navd next to navbench (\(navd)); build both: swift build -c release") }
    guard let valhalla = ProcessInfo.processInfo.environment["NAVD_VALHALLA_URL"] else {
        fail("NAVD_VALHALLA_URL is not set; start Valhalla with: eval \"$(scripts/engines start valhalla)\" (scripts/bench does)")
    }
    return (navd, valhalla)
}

/// The real navd next to this navbench, gpsd and Valhalla.
func field() -> [Figure] {
    let (navd, valhalla) = navdAndValhalla()
    for tool in ["/usr/bin/socat", "/usr/sbin/gpsd", "/usr/bin/curl"] where !FileManager.default.isExecutableFile(atPath: tool) {
        fail("\(tool) is missing; scripts/setup installs it")
    }
    return FieldBenchmark(navd: navd, valhalla: valhalla, epochs: option("--epochs", default: 300), keep: arguments.contains("--keep")).run()
}

/// Free drive's cost: navd and Valhalla as for `field`.
func freeDrive() -> [Figure] {
    let (navd, valhalla) = navdAndValhalla()
    let epochs = option("--free-epochs", default: 900)
    guard (100...36_000).contains(epochs) else { fail("--free-epochs must be 100-36000 (10 a second)") }
    return FreeDriveBenchmark(navd: navd, valhalla: valhalla, epochs: epochs, keep: arguments.contains("--keep")).run()
}

/// How costs grow: navd and Valhalla as for `field`.
func scaling() -> [Figure] {
    let (navd, valhalla) = navdAndValhalla()
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") else { fail("/usr/bin/socat is missing; scripts/setup installs it") }
    return ScalingBenchmark(navd: navd, valhalla: valhalla, keep: arguments.contains("--keep")).run()
}

/// The soak: navd and Valhalla as for `field`.
func soak() -> [Figure] {
    let (navd, valhalla) = navdAndValhalla()
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") else { fail("/usr/bin/socat is missing; scripts/setup installs it") }
    let hours = textOption("--hours").flatMap(Double.init) ?? 8, speedup = textOption("--speedup").flatMap(Double.init) ?? 60
    guard (0.01...48).contains(hours), (1...500).contains(speedup) else { fail("--hours must be 0.01-48 and --speedup 1-500") }
    return SoakBenchmark(navd: navd, valhalla: valhalla, hours: hours, speedup: speedup, clients: option("--clients", default: 50), keep: arguments.contains("--keep")).run()
}

var figures: [Figure]
switch arguments.first {
case "all":
    figures = routeParse() + RouteAnswerBenchmark().run() + ControllerBenchmark().run() + NMEABenchmark.throughput(corpus: corpus) + NMEABenchmark.paced() + (await DaemonBenchmark().run()) + field() + freeDrive() + scaling()
case "route-parse":
    figures = routeParse()
case "route-answer":
    figures = RouteAnswerBenchmark().run()
case "controller":
    figures = ControllerBenchmark().run()
case "nmea":
    figures = NMEABenchmark.throughput(corpus: arguments.count > 1 && !arguments[1].hasPrefix("--") ? arguments[1] : corpus)
        + NMEABenchmark.paced()
case "nmea-paced":
    figures = NMEABenchmark.paced()
case "pty-latency":
    figures = await NMEABenchmark.ptyLatency()
case "daemon-loop":
    figures = await DaemonBenchmark().run()
case "field":
    figures = field()
case "free-drive":
    figures = freeDrive()
case "scaling":
    figures = scaling()
case "route-sizes":
    figures = ScalingBenchmark.routeSizeFigures()
case "soak":
    figures = soak()
default:
    FileHandle.standardError.write(
        Data(
            "usage: navbench all [--json FILE] [--epochs N] | route-parse [--steps N] [--iterations K] [--write-response FILE] | route-answer | controller | nmea [CORPUS_DIR] | nmea-paced | pty-latency | daemon-loop | field [--epochs N] | free-drive [--free-epochs N] | scaling | route-sizes | soak [--hours H] [--speedup S] [--clients N]\n"
                .utf8))
    exit(2)
}

let table = BenchTable(figures: figures)
print("Machine: \(table.machine)\n")
print(table.markdown)
if let path = textOption("--json") {
    do { try table.json().write(to: URL(fileURLWithPath: path)) } catch { fail("cannot write \(path): \(error)") }
    progress("figures written to \(path)")
}
