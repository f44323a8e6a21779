import Foundation
import NavigationCore
import NMEA
import RouteAdapters
import RouteClient
import Testing

/// A drive through Helsinki that leaves the route navd will compute: it follows the route from `origin`, turns
/// off it where a route to `detour` does, drives `extra` metres past that point, then follows the engine's own
/// route from there to `destination` (so after one reroute it stays on the new route).
public struct DeviatingDrive: Sendable {
    public static let origin = GeographicCoordinate(latitude: 60.1680, longitude: 24.9480)
    public static let destination = GeographicCoordinate(latitude: 60.1720, longitude: 24.9370)
    public static let detour = GeographicCoordinate(latitude: 60.1735, longitude: 24.9410)

    /// The route navd will navigate (origin to destination).
    public let plannedRoute: Route
    /// The fixes of the drive, 1 s apart.
    public let fixes: [UserLocation]
    /// Index of the first fix more than 25 m from the planned route.
    public let firstOffRouteFix: Int

    public static func make(valhallaURL: String, speed: Double = 15, startTime: Date = Date(timeIntervalSince1970: 1_795_241_290)) async throws -> DeviatingDrive {
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
    public static func densify(_ line: [GeographicCoordinate], spacing: Double) -> [GeographicCoordinate] {
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
    public func nmea(_ index: Int) -> String {
        NMEAWriter.sentences(for: fixes[index]).map { $0 + "\r\n" }.joined()
    }

    public var nmeaLog: String { fixes.indices.map(nmea).joined() }

    /// The navigate command for this drive's destination.
    public static func navigateCommand(id: String) -> String {
        #"{"type":"navigate","id":"\#(id)","waypoints":[{"lat":\#(destination.latitude),"lon":\#(destination.longitude)}]}"#
    }
}

extension DeviatingDrive {
    /// NMEA for the rest of the planned route, from the planned-route point nearest to fix `index` to the
    /// destination, continuing the drive's timestamps: a drive that never leaves the route.
    public static func onPlannedRoute(_ drive: DeviatingDrive, from index: Int) throws -> [String] {
        let here = drive.fixes[index].coordinate
        let geometry = drive.plannedRoute.geometry
        let nearest = try #require(geometry.indices.min { Geodesy.distance(geometry[$0], here) < Geodesy.distance(geometry[$1], here) })
        let path = [here] + geometry[(nearest + 1)...]
        let fixes = LocationSimulator(speed: 15, sampleRate: 1, startTime: drive.fixes[index].timestamp, reportedAccuracy: 4).simulate(along: path)
        return fixes.map { NMEAWriter.sentences(for: $0).map { $0 + "\r\n" }.joined() }
    }
}

/// The routing engines started by scripts/test (or `scripts/engines start`); a test that needs one fails
/// loudly without it.
public enum Engines {
    public static func valhallaURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["NAVD_VALHALLA_URL"] else {
            Issue.record("NAVD_VALHALLA_URL is not set: run the suite with scripts/test (it starts Valhalla on 127.0.0.1)")
            throw CancellationError()
        }
        return url
    }

    public static func osrmURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["NAVD_OSRM_URL"] else {
            Issue.record("NAVD_OSRM_URL is not set: run the suite with scripts/test (it starts OSRM on 127.0.0.1)")
            throw CancellationError()
        }
        return url
    }
}
