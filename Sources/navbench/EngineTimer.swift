import Foundation
import NavigationCore

/// The engine's own time for the requests navd sent: each successful `http` record of a recording is sent again,
/// byte for byte, straight to the engine with curl over one kept-alive connection, five times; the median of
/// curl's `time_total` (request written until the whole answer read) is the engine's time for that request.
enum EngineTimer {
    /// Milliseconds per recorded request, in the order navd sent them.
    static func engineTimes(recordings directory: String) -> [Double] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        var times: [Double] = []
        for file in files {
            let text = (try? String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.hasPrefix(#"{"rec":"http""#) {
                guard let record = try? JSONParser.parse(Array(line.utf8)), record["status"]?.doubleValue == 200,
                    let url = record["url"]?.stringValue
                else { continue }
                times.append(time(url: url, method: record["method"]?.stringValue ?? "GET", body: record["requestBody"]?.stringValue))
            }
        }
        return times
    }

    /// The median of five sends of one request, in milliseconds.
    static func time(url: String, method: String, body: String?, repeats: Int = 5) -> Double {
        let bodyPath = FileManager.default.temporaryDirectory.appendingPathComponent("navbench-body-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: bodyPath) }
        var one = ["-s", "-o", "/dev/null", "-w", "%{time_total}\\n", "-X", method]
        if let body {
            FileManager.default.createFile(atPath: bodyPath, contents: Data(body.utf8))
            one += ["-H", "Content-Type: application/json", "--data-binary", "@\(bodyPath)"]
        }
        one.append(url)
        // --next keeps the connection: the first send opens it and is left out, as navd keeps its connections.
        var arguments: [String] = []
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
