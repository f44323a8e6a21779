import Foundation
import NavigationCore
import RouteAdapters

/// Measures OSRM-family response parsing throughput on a large synthetic Valhalla-style response
/// (long route, banners, voice prompts, annotations on every segment).
struct RouteParseBenchmark {
    var steps: Int
    var iterations: Int

    func run() {
        let data = SyntheticResponse.make(steps: steps, pointsPerStep: 12)
        let parser = OSRMResponseParser(polylinePrecision: 6)
        let megabytes = Double(data.count) / 1_000_000
        print("route-parse: response of \(String(format: "%.2f", megabytes)) MB, \(steps) steps, \(iterations) iterations")
        var seconds: [Double] = []
        let clock = ContinuousClock()
        var stepCount = 0
        for _ in 0..<iterations {
            let elapsed = clock.measure {
                do {
                    stepCount = try parser.parseRoutes(from: data)[0].steps.count
                } catch {
                    fatalError("benchmark response failed to parse: \(error)")
                }
            }
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        precondition(stepCount == steps, "parsed \(stepCount) steps, expected \(steps)")
        seconds.sort()
        let median = seconds[seconds.count / 2]
        print("route-parse: median \(String(format: "%.1f", median * 1000)) ms, best \(String(format: "%.1f", seconds[0] * 1000)) ms")
        print("route-parse: throughput \(String(format: "%.1f", megabytes / median)) MB/s (median)")
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
