import Foundation
import NavigationCore

/// The engine's own time for the requests navd sent: each successful `http` record of a recording is sent again,
/// byte for byte, straight to the engine with curl over one kept-alive connection (the first send opens it and is
/// left out, as navd keeps its connections); the median of curl's `time_total` (request written until the whole
/// answer read) is the engine's time for that request. Two ways:
/// - *back to back*: five sends in a row, the engine's caches and cores hot;
/// - *after the same idle*: three sends, each after the engine had been idle as long as it had been before navd's
///   request (taken from the recording's times). navd's requests come after a drive's epochs, not in a row: on a
///   shared virtual machine an engine woken after seconds is 1–2 ms slower than one asked again at once, and that
///   time is the engine's, not navd's.
enum EngineTimer {
    struct Request {
        var url: String
        var method: String
        var body: String?
        /// Seconds the engine had been idle before navd sent it: since the end of the recording's previous
        /// exchange, or its start for the first.
        var idle: Double
        /// Milliseconds from navd's HTTP client sending it to the answer's last byte, as navd timed it.
        var inNavd: Double
    }

    struct Times {
        /// Milliseconds per recorded request, in the order navd sent them.
        var backToBack: [Double]
        var afterIdle: [Double]
        /// Seconds the engine was idle before each of navd's requests.
        var idle: [Double]
        /// Milliseconds each exchange took as navd's HTTP client timed it (in the recording).
        var inNavd: [Double]
    }

    /// The recording's answered requests, in the order navd sent them.
    static func requests(recordings directory: String) -> [Request] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        var requests: [Request] = []
        for file in files {
            let text = (try? String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)) ?? ""
            // `t`: seconds since the recording began, when the exchange ended; `seconds`: how long it took.
            var previousEnd = 0.0
            for line in text.split(separator: "\n") where line.hasPrefix(#"{"rec":"http""#) {
                guard let record = try? JSONParser.parse(Array(line.utf8)), let end = record["t"]?.doubleValue,
                    let took = record["seconds"]?.doubleValue
                else { continue }
                let start = end - took
                defer { previousEnd = end }
                guard record["status"]?.doubleValue == 200, let url = record["url"]?.stringValue else { continue }
                requests.append(
                    Request(
                        url: url, method: record["method"]?.stringValue ?? "GET", body: record["requestBody"]?.stringValue, idle: max(0, start - previousEnd),
                        inNavd: took * 1000))
            }
        }
        return requests
    }

    static func engineTimes(recordings directory: String) -> Times {
        let requests = requests(recordings: directory)
        return Times(
            backToBack: requests.map { time(url: $0.url, method: $0.method, body: $0.body) },
            afterIdle: requests.map { time(url: $0.url, method: $0.method, body: $0.body, repeats: 3, idle: $0.idle) },
            idle: requests.map(\.idle), inNavd: requests.map(\.inNavd))
    }

    /// The median of `repeats` sends of one request, in milliseconds. `idle`: seconds between the end of one send
    /// and the start of the next (curl's `--rate`, which spaces the starts: the period is the idle plus the
    /// engine's time, a few milliseconds); nil: back to back.
    static func time(url: String, method: String, body: String?, repeats: Int = 5, idle: Double? = nil) -> Double {
        let bodyPath = FileManager.default.temporaryDirectory.appendingPathComponent("navbench-body-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: bodyPath) }
        var one = ["-s", "-o", "/dev/null", "-w", "%{time_total}\\n", "-X", method]
        if let body {
            FileManager.default.createFile(atPath: bodyPath, contents: Data(body.utf8))
            one += ["-H", "Content-Type: application/json", "--data-binary", "@\(bodyPath)"]
        }
        one.append(url)
        var arguments: [String] = []
        if let idle {
            // Starts per hour, so that the period has a millisecond's precision; at most one a millisecond.
            let period = min(60, max(0.001, idle + 0.003))
            arguments += ["--rate", "\(Int((3600 / period).rounded()))/h"]
        }
        // --next keeps the connection: the first send opens it and is left out, as navd keeps its connections.
        for i in 0...repeats {
            if i > 0 { arguments.append("--next") }
            arguments += one
        }
        let output = runTool("/usr/bin/curl", arguments)
        let seconds = output.split(separator: "\n").compactMap { Double($0) }
        guard seconds.count == repeats + 1 else { fail("curl could not repeat a recorded request to \(url): \(output)") }
        return Percentiles(Array(seconds.dropFirst())).median * 1000
    }
}
