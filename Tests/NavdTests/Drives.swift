import Foundation
import NavigationCore
import NMEA
import RouteAdapters
import RouteClient
import Testing

/// A drive through Helsinki that leaves the route navd will compute: it follows the route from `origin`, turns
/// off it where a route to `detour` does, drives `extra` metres past that point, then follows the engine's own
/// route from there to `destination` (so after one reroute it stays on the new route).
struct DeviatingDrive {
    static let origin = GeographicCoordinate(latitude: 60.1680, longitude: 24.9480)
    static let destination = GeographicCoordinate(latitude: 60.1720, longitude: 24.9370)
    static let detour = GeographicCoordinate(latitude: 60.1735, longitude: 24.9410)

    /// The route navd will navigate (origin to destination).
    let plannedRoute: Route
    /// The fixes of the drive, 1 s apart.
    let fixes: [UserLocation]
    /// Index of the first fix more than 25 m from the planned route.
    let firstOffRouteFix: Int

    static func make(valhallaURL: String, speed: Double = 15, startTime: Date = Date(timeIntervalSince1970: 1_795_241_290)) async throws -> DeviatingDrive {
        let executor = RouteHTTPExecutor()
        defer { Task { try? await executor.shutdown() } }
        let fetcher = RouteFetcher(source: .http(.valhalla(baseURL: valhallaURL)), executor: executor)
        func route(_ from: GeographicCoordinate, heading: Double? = nil, to: GeographicCoordinate) async throws -> Route {
            let origin = UserLocation(
                coordinate: from, horizontalAccuracy: 5, course: heading.map { CourseOverGround(degrees: $0) }, speed: nil, timestamp: startTime)
            return try #require(try await fetcher.routes(for: RouteQuery(origin: origin, waypoints: [Waypoint(coordinate: to)])).first)
        }
        let planned = try await route(origin, to: destination)
        let towardsDetour = try await route(origin, to: detour)
        func distanceFromPlanned(_ point: GeographicCoordinate) -> Double {
            zip(planned.geometry, planned.geometry.dropFirst()).map { a, b in
                Geodesy.closestPoint(on: a, b, to: point).distance
            }.min() ?? .infinity
        }
        let line = Self.densify(towardsDetour.geometry, spacing: 5)
        let leaveIndex = try #require(line.firstIndex { distanceFromPlanned($0) > 25 }, "the detour route never leaves the planned route")
        let turnIndex = min(line.count - 1, leaveIndex + 20)  // 100 m past the point where it left
        let heading = Geodesy.bearing(from: line[turnIndex - 1], to: line[turnIndex])
        let back = try await route(line[turnIndex], heading: heading, to: destination)
        let path = Array(line[...turnIndex]) + back.geometry.dropFirst()
        let fixes = LocationSimulator(speed: speed, sampleRate: 1, startTime: startTime, reportedAccuracy: 4).simulate(along: path)
        let firstOff = try #require(fixes.firstIndex { distanceFromPlanned($0.coordinate) > 25 })
        return DeviatingDrive(plannedRoute: planned, fixes: fixes, firstOffRouteFix: firstOff)
    }

    /// Points every `spacing` metres along `line`.
    static func densify(_ line: [GeographicCoordinate], spacing: Double) -> [GeographicCoordinate] {
        guard var previous = line.first else { return [] }
        var result = [previous]
        for point in line.dropFirst() {
            let length = Geodesy.distance(previous, point)
            if length >= spacing {
                let bearing = Geodesy.bearing(from: previous, to: point)
                for k in 1..<Int(length / spacing) + 1 where Double(k) * spacing < length {
                    result.append(Geodesy.destination(from: previous, distance: Double(k) * spacing, bearing: bearing))
                }
            }
            result.append(point)
            previous = point
        }
        return result
    }

    /// NMEA sentences (RMC, GGA) for fix `index`, CRLF-terminated.
    func nmea(_ index: Int) -> String {
        NMEAWriter.sentences(for: fixes[index]).map { $0 + "\r\n" }.joined()
    }

    var nmeaLog: String { fixes.indices.map(nmea).joined() }

    /// The navigate command for this drive's destination.
    static func navigateCommand(id: String) -> String {
        #"{"type":"navigate","id":"\#(id)","waypoints":[{"lat":\#(destination.latitude),"lon":\#(destination.longitude)}]}"#
    }
}

/// Checks the order of the events a client saw during a drive that left the route once or more.
func expectDriveEventOrder(_ messages: [JSONValue], sourceLabel: String) {
    let types = messages.compactMap(\.type)
    func firstIndex(_ predicate: (JSONValue) -> Bool, after start: Int = 0) -> Int? {
        messages.indices.first { $0 >= start && predicate(messages[$0]) }
    }
    #expect(types.first == "hello", "\(sourceLabel): first message is \(types.first ?? "none")")
    guard let initialRoute = firstIndex({ $0.type == "route" && $0["reason"]?.stringValue == "initial" }) else {
        Issue.record("\(sourceLabel): no initial route; saw \(Set(types))")
        return
    }
    let initialRouteId = messages[initialRoute]["routeId"]?.stringValue
    guard let deviation = firstIndex({ $0.type == "deviation" && $0["offRoute"]?.boolValue == true }, after: initialRoute) else {
        Issue.record("\(sourceLabel): no deviation event")
        return
    }
    // Instructions of the first route came in step order, each exactly once.
    let firstRouteInstructions = messages[initialRoute..<deviation].filter { $0.type == "instruction" }
    let steps = firstRouteInstructions.compactMap { $0["stepIndex"]?.doubleValue }
    #expect(!steps.isEmpty, "\(sourceLabel): no instructions before the deviation")
    #expect(steps == steps.sorted(), "\(sourceLabel): instructions out of step order: \(steps)")
    let keys = firstRouteInstructions.map { "\($0["kind"]!)|\($0["stepIndex"]!)|\($0["instruction"]!)" }
    #expect(Set(keys).count == keys.count, "\(sourceLabel): an instruction was sent twice")
    #expect(messages[deviation]["routeId"]?.stringValue == initialRouteId)
    guard
        let inProgress = firstIndex(
            { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "reroute" && $0["status"]?.stringValue == "in_progress" },
            after: deviation),
        let succeeded = firstIndex(
            { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "reroute" && $0["status"]?.stringValue == "succeeded"
                && $0["applied"]?.boolValue == true }, after: inProgress),
        let retracted = firstIndex({ $0.type == "instruction_retracted" }, after: succeeded),
        let reroute = firstIndex({ $0.type == "route" && $0["reason"]?.stringValue == "reroute" }, after: retracted)
    else {
        Issue.record("\(sourceLabel): missing reroute events after the deviation; saw \(types[deviation...].filter { $0 != "trip_state" })")
        return
    }
    #expect(messages[retracted]["routeId"]?.stringValue == initialRouteId, "retraction belongs to the old route")
    let newRouteId = messages[reroute]["routeId"]?.stringValue
    #expect(newRouteId != nil && newRouteId != initialRouteId)
    #expect(messages[succeeded]["newRouteId"]?.stringValue == newRouteId)
    guard let arrived = firstIndex({ $0.type == "arrived" }, after: reroute) else {
        Issue.record("\(sourceLabel): never arrived; last events \(types.suffix(8))")
        return
    }
    let complete = firstIndex({ $0.type == "trip_state" && $0["state"]?.stringValue == "complete" }, after: arrived)
    #expect(complete != nil, "\(sourceLabel): no complete trip_state after arrived")
    // Sequence numbers increase; a gap can only be a replaced trip_state (a client that read slowly).
    let seqs = messages.compactMap { $0["seq"]?.doubleValue }
    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 > $0 }, "\(sourceLabel): seq not increasing")
    _ = (inProgress, sourceLabel)
}

extension DeviatingDrive {
    /// NMEA for the rest of the planned route, from the planned-route point nearest to fix `index` to the
    /// destination, continuing the drive's timestamps: a drive that never leaves the route.
    static func onPlannedRoute(_ drive: DeviatingDrive, from index: Int) throws -> [String] {
        let here = drive.fixes[index].coordinate
        let geometry = drive.plannedRoute.geometry
        let nearest = try #require(geometry.indices.min { Geodesy.distance(geometry[$0], here) < Geodesy.distance(geometry[$1], here) })
        let path = [here] + geometry[(nearest + 1)...]
        let fixes = LocationSimulator(speed: 15, sampleRate: 1, startTime: drive.fixes[index].timestamp, reportedAccuracy: 4).simulate(along: path)
        return fixes.map { NMEAWriter.sentences(for: $0).map { $0 + "\r\n" }.joined() }
    }
}
