import Foundation
import NavigationCore
import RouteAdapters

/// Measures OSRM-family response parsing throughput on a large synthetic Valhalla-style response
/// (long route, banners, voice prompts, annotations on every segment), next to CPython's json module and orjson
/// parsing the same bytes in the same run (`--write-response FILE` writes those bytes for anyone to compare).
struct RouteParseBenchmark {
    var steps: Int
    var iterations: Int
    /// Where to write the response's bytes (nil: a temporary file for the peers).
    var responseFile: String?

    func run() -> [Figure] {
        let data = SyntheticResponse.make(steps: steps, pointsPerStep: 12)
        let parser = OSRMResponseParser(polylinePrecision: 6)
        let megabytes = Double(data.count) / 1_000_000
        progress("route-parse: response of \(String(format: "%.2f", megabytes)) MB, \(steps) steps, \(iterations) iterations")
        var seconds: [Double] = []
        var stepCount = 0
        for _ in 0..<iterations {
            let start = monotonicSeconds()
            do {
                stepCount = try parser.parseRoutes(from: data)[0].steps.count
            } catch {
                fail("the benchmark response failed to parse: \(error)")
            }
            seconds.append(monotonicSeconds() - start)
        }
        precondition(stepCount == steps, "parsed \(stepCount) steps, expected \(steps)")
        let median = Percentiles(seconds).median
        // JSONParser alone (bytes to a JSON tree): the same work as json.loads. navd's routes go through no tree.
        var treeSeconds: [Double] = []
        for _ in 0..<iterations {
            let start = monotonicSeconds()
            guard (try? JSONParser.parse(data))?["routes"] != nil else { fail("the benchmark response is not JSON") }
            treeSeconds.append(monotonicSeconds() - start)
        }
        let tree = megabytes / Percentiles(treeSeconds).median
        let path = responseFile ?? FileManager.default.temporaryDirectory.appendingPathComponent("navbench-route-\(getpid()).json").path
        do { try data.write(to: URL(fileURLWithPath: path)) } catch { fail("cannot write \(path): \(error)") }
        defer { if responseFile == nil { try? FileManager.default.removeItem(atPath: path) } }
        let cpython = PythonJSONPeer.throughput(module: "json", file: path, iterations: iterations)
        let orjson = PythonJSONPeer.throughput(module: "orjson", file: path, iterations: iterations)
        let navd = megabytes / median
        return [
            Figure(
                "route parse (\(String(format: "%.1f", megabytes)) MB answer to routes)", navd, "MB/s", peer: cpython, peerName: "CPython json",
                target: "≥ CPython json", met: navd >= cpython),
            Figure("route parse, next to orjson", navd, "MB/s", peer: orjson, peerName: "orjson"),
            Figure("JSON text to a tree only (what json.loads does)", tree, "MB/s", peer: cpython, peerName: "CPython json"),
            Figure("JSON text to a tree only, next to orjson", tree, "MB/s", peer: orjson, peerName: "orjson"),
        ]
    }
}

/// CPython parsing the same bytes: `json.loads` or `orjson.loads`, median of `iterations` runs, in MB/s.
enum PythonJSONPeer {
    static func throughput(module: String, file: String, iterations: Int) -> Double {
        let script = """
            import sys, time, \(module)
            data = open(sys.argv[1], 'rb').read()
            times = []
            for _ in range(\(iterations)):
                start = time.perf_counter()
                \(module).loads(data)
                times.append(time.perf_counter() - start)
            times.sort()
            print(len(data) / 1e6 / times[len(times) // 2])
            """
        let output = runTool("/usr/bin/env", ["python3", "-c", script, file])
        guard let value = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            fail("python3 with \(module) did not give a figure (scripts/setup installs it from PyPI): \(output)")
        }
        return value
    }
}

/// Builds a Valhalla-style OSRM response as JSON text.
enum SyntheticResponse {
    static func make(steps: Int, pointsPerStep: Int) -> Data {
        var coordinate = GeographicCoordinate(latitude: 60.1, longitude: 24.5)
        var bearing = 45.0
        var stepJSON: [String] = []
        var allPoints: [GeographicCoordinate] = [coordinate]
        var speeds: [String] = [], distances: [String] = [], durations: [String] = [], maxspeeds: [String] = []
        var total = 0.0
        for s in 0..<steps {
            var points = [coordinate]
            for p in 1..<pointsPerStep {
                bearing += Double((s * 7 + p * 13) % 21) - 10
                coordinate = Geodesy.destination(from: coordinate, distance: 25, bearing: bearing)
                points.append(coordinate)
                allPoints.append(coordinate)
                speeds.append("13.9"); distances.append("25.0"); durations.append("1.8")
                maxspeeds.append(#"{"speed":50,"unit":"km/h"}"#)
            }
            let length = Geodesy.length(of: points)
            total += length
            let isLast = s == steps - 1
            let type = s == 0 ? "depart" : (isLast ? "arrive" : "turn")
            let location = "[\(points[0].longitude),\(points[0].latitude)]"
            let banners = isLast ? "[]" : """
                [{"distanceAlongGeometry":\(length),"primary":{"type":"turn","modifier":"left","text":"Street \(s + 1)","components":[{"text":"Street \(s + 1)","type":"text"}]},"sub":{"text":"","components":[{"active":false,"text":"","directions":["straight"],"type":"lane"},{"active_direction":"left","active":true,"text":"","directions":["left"],"type":"lane"}]}}]
                """
            let voice = isLast ? "[]" : """
                [{"distanceAlongGeometry":\(length),"announcement":"Continue for 300 meters, then turn left onto Street \(s + 1).","ssmlAnnouncement":"<speak>Continue for 300 meters, then turn left onto Street \(s + 1).</speak>"},{"distanceAlongGeometry":60,"announcement":"Turn left onto Street \(s + 1).","ssmlAnnouncement":"<speak>Turn left onto Street \(s + 1).</speak>"}]
                """
            stepJSON.append("""
                {"distance":\(length),"duration":\(length / 13.9),"geometry":"\(jsonEscaped(Polyline.encode(points)))","name":"Street \(s)","mode":"driving","driving_side":"right","maneuver":{"type":"\(type)","modifier":"left","location":\(location),"bearing_before":0,"bearing_after":90,"instruction":"Turn left onto Street \(s)."},"intersections":[{"location":\(location),"bearings":[0,90,180],"entry":[true,true,false],"out":1,"in":2}],"bannerInstructions":\(banners),"voiceInstructions":\(voice)}
                """)
        }
        let annotation = """
            {"speed":[\(speeds.joined(separator: ","))],"distance":[\(distances.joined(separator: ","))],"duration":[\(durations.joined(separator: ","))],"maxspeed":[\(maxspeeds.joined(separator: ","))]}
            """
        let json = """
            {"code":"Ok","waypoints":[{"location":[24.5,60.1],"name":""},{"location":[\(coordinate.longitude),\(coordinate.latitude)],"name":""}],"routes":[{"distance":\(total),"duration":\(total / 13.9),"weight":\(total),"weight_name":"auto","geometry":"\(jsonEscaped(Polyline.encode(allPoints)))","legs":[{"distance":\(total),"duration":\(total / 13.9),"summary":"","steps":[\(stepJSON.joined(separator: ","))],"annotation":\(annotation)}]}]}
            """
        return Data(json.utf8)
    }
}

/// Polylines may contain a backslash, which JSON strings must escape.
private func jsonEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\")
}
