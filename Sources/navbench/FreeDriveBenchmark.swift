import Foundation
import NavigationCore

/// Free drive's cost: the real navd reading a serial receiver at 10 Hz, with no trip, driving a Helsinki street
/// route (Bulevardi to Kallio, the field benchmark's) while 50 clients watch, against the real Valhalla. Three
/// drives of the same epochs: free drive off (the baseline), free drive on with the flight recorder (which holds
/// every match request navd sent: how many a minute, how large, and the engine's own time for each), and free
/// drive on as navd runs by default (its CPU). `free_drive` keeps its defaults (every 10 s of driving at the most,
/// a 300 m window).
struct FreeDriveBenchmark {
    var navd: String
    var valhalla: String
    /// Epochs per drive, 10 a second.
    var epochs: Int
    var keep = false
    /// m/s: 43 km/h, a town street.
    static let speed = 12.0

    func run() -> [Figure] {
        let root = "/tmp/navbench-free-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer {
            if keep { progress("the run's files are in \(root)") } else { try? FileManager.default.removeItem(atPath: root) }
        }
        let walk = streetRoute(directory: "\(root)/route")
        let off = drive(walk, directory: "\(root)/off", freeDrive: false, recording: false)
        let recorded = drive(walk, directory: "\(root)/recorded", freeDrive: true, recording: true)
        let on = drive(walk, directory: "\(root)/on", freeDrive: true, recording: false)

        let requests = matchRequests(recordings: "\(root)/recorded/recordings")
        let minutes = Double(epochs) / 10 / 60
        let engine = requests.map { EngineTimer.time(url: $0.url, method: "POST", body: $0.body) }
        let perMinute = Double(requests.count) / minutes
        progress("free drive: \(requests.count) match requests in \(String(format: "%.1f", minutes * 60)) s of driving; Valhalla alone \(engine.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms")
        progress("free drive: matched states \(String(format: "%.0f", on.matchedPercent)) % (recorder on: \(String(format: "%.0f", recorded.matchedPercent)) %); CPU off \(String(format: "%.2f", off.cpuPercent)) %, on \(String(format: "%.2f", on.cpuPercent)) %")
        let bodyBytes = Percentiles(requests.map { Double($0.body.utf8.count) }).median
        return [
            Figure("free drive: match requests per minute of driving (10 Hz, 43 km/h)", perMinute, "/min", target: "≤ 6 (one per 10 s)", met: perMinute <= 6.5),
            Figure("free drive: trip_states with a match (after the first)", on.matchedPercent, "%"),
            Figure("free drive: match request body, median", bodyBytes / 1024, "KiB"),
            Figure("free drive: Valhalla's time per match (median)", Percentiles(engine).median, "ms"),
            Figure("CPU at 10 Hz, 50 clients, no trip, free drive off", off.cpuPercent, "% of a core"),
            Figure("CPU at 10 Hz, 50 clients, no trip, free drive on", on.cpuPercent, "% of a core", peer: off.cpuPercent, peerName: "free drive off",
                   target: "< 2 %", met: on.cpuPercent < 2),
            Figure("fix to socket, free drive on, 50 clients, p99", on.p99, "ms", peer: off.p99, peerName: "free drive off"),
        ]
    }

    /// The street route, as a walk from the field benchmark's origin (one navigate, answered by Valhalla).
    private func streetRoute(directory: String) -> RouteWalk {
        let rig = SerialRig(navd: navd, valhalla: valhalla, directory: directory)
        defer { rig.close() }
        for _ in 0..<5 { rig.feeder.send(FieldBenchmark.origin, course: 55, speed: 0) }
        let from = rig.client.count
        rig.client.send(FieldBenchmark.navigate)
        for _ in 0..<200 {
            rig.feeder.send(FieldBenchmark.origin, course: 55, speed: 0)
            if let found = rig.client.wait(from: from, timeout: 0, FieldBenchmark.isRoute) {
                guard let walk = RouteWalk.fromRouteEvent(found.line.text) else { fail("the route event has no geometry") }
                return RouteWalk([FieldBenchmark.origin] + walk.points)
            }
        }
        fail("navd gave no route within 20 s of navigate:\n\(rig.instance.process.log)")
    }

    struct DriveResult {
        var cpuPercent: Double
        var matchedPercent: Double
        var p99: Double
    }

    /// One drive of `epochs` epochs along `walk` with no trip and 50 clients.
    private func drive(_ walk: RouteWalk, directory: String, freeDrive: Bool, recording: Bool) -> DriveResult {
        var extra = "[free_drive]\nenabled = \(freeDrive)\n"
        if recording { extra += "\n[recording]\nenabled = true\ndirectory = \"\(directory)/recordings\"\n" }
        let rig = SerialRig(navd: navd, valhalla: valhalla, directory: directory, extra: extra)
        defer { rig.close() }
        var others: [LineTap] = []
        for _ in 0..<49 { others.append(rig.instance.connect()) }
        defer { for other in others { other.close() } }
        let from = rig.client.count
        let cpuStart = rig.instance.process.cpuSeconds, wallStart = monotonicSeconds()
        var first: Date?
        var distance = 0.0
        for _ in 0..<epochs {
            let (position, course) = walk.position(at: distance)
            let sent = rig.feeder.send(position, course: course, speed: Self.speed)
            first = first ?? sent.time
            distance += Self.speed / 10
        }
        usleep(200_000)
        let cpu = (rig.instance.process.cpuSeconds - cpuStart) / (monotonicSeconds() - wallStart) * 100
        let states = rig.client.lines[from...].filter { FieldBenchmark.isTripState($0.text) }
        // After the first match was asked for (10 s of driving at the most): the share of states that carry one.
        let asked = states.drop { !$0.text.contains(#""freeDrive":{"status":"matched""#) }
        let matched = asked.filter { $0.text.contains(#""freeDrive":{"status":"matched""#) }.count
        let latencies = rig.feeder.latencies(of: rig.client.lines, since: first!, filter: FieldBenchmark.isTripState)
        return DriveResult(
            cpuPercent: cpu, matchedPercent: freeDrive ? Double(matched) / Double(max(1, asked.count)) * 100 : 0,
            p99: Percentiles(latencies.milliseconds).p99)
    }

    /// The match requests navd sent, from the flight recording's `http` records (Valhalla's `trace_route`).
    private func matchRequests(recordings directory: String) -> [(url: String, body: String)] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        var requests: [(url: String, body: String)] = []
        for file in files {
            let text = (try? String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.hasPrefix(#"{"rec":"http""#) {
                guard let record = try? JSONParser.parse(Array(line.utf8)), let url = record["url"]?.stringValue, url.contains("trace_"),
                    let body = record["requestBody"]?.stringValue
                else { continue }
                requests.append((url, body))
            }
        }
        if requests.isEmpty { fail("the recording of the free drive holds no match request (\(directory))") }
        return requests
    }
}
