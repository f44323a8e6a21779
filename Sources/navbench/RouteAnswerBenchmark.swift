import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters

/// What navd does on its own with a routing engine's answer, in process, step by step: parse the answer into
/// routes, build the navigation controller (the route's spatial index), and encode the `route` event. The answer
/// is a real one: Valhalla's, for a city route in Helsinki, from the golden recording in the tests.
struct RouteAnswerBenchmark {
    var recording = "Tests/NavigationDaemonTests/Fixtures/Recordings/valhalla-missed-turn.jsonl"
    var repeats = 200

    func run() -> [Figure] {
        guard let text = try? String(contentsOfFile: recording, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(#"{"rec":"http""#) }),
            let body = (try? JSONParser.parse(Array(line.utf8)))?["responseBody"]?.stringValue
        else { fail("no routing answer in \(recording) (run navbench from the repository's root)") }
        let data = Data(body.utf8)
        // As navd parses: its texts checked against the language and units asked for.
        let parser = OSRMResponseParser(polylinePrecision: 6, locale: .english)
        var parse: [Double] = [], controller: [Double] = [], encode: [Double] = []
        for _ in 0..<repeats {
            var start = monotonicSeconds()
            guard let route = try? parser.parseRoutes(from: data).first else { fail("the recorded answer does not parse") }
            parse.append((monotonicSeconds() - start) * 1e6)
            start = monotonicSeconds()
            guard (try? NavigationController(route: route)) != nil else { fail("the recorded route has no steps") }
            controller.append((monotonicSeconds() - start) * 1e6)
            start = monotonicSeconds()
            var sequencer = EventSequencer()
            let bytes = sequencer.line(.route(RouteEvent(reason: .reroute, session: 1, route: route)), routeId: "bench-1")
            encode.append((monotonicSeconds() - start) * 1e6)
            precondition(bytes.count > 1000)
        }
        progress("route answer: \(data.count) bytes of Valhalla's answer, \(repeats) repeats")
        return [
            Figure("route answer (\(data.count / 1000) KB): parse to routes, median", Percentiles(parse).median, "µs"),
            Figure("route answer: build the controller, median", Percentiles(controller).median, "µs"),
            Figure("route answer: encode the route event, median", Percentiles(encode).median, "µs"),
        ]
    }
}
