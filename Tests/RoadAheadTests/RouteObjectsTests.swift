import Foundation
import NavigationCore
import RoadAhead
import RouteAdapters
import Testing

/// Road objects from engine answers: the parser keeps the intersections where the road's kind changes, and
/// ``RouteObjects`` turns them into stretches and points along the route.
struct RouteObjectsTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func parse(_ json: String) throws -> Route {
        try #require(try OSRMResponseParser().parseRoutes(from: Data(json.utf8)).first)
    }

    static func objects(_ route: Route) -> RouteObjects { RouteObjects(route: route, index: RouteIndex(route: route)) }

    /// Real answers through Helsinki from OSRM and from Valhalla on the same route: both mark its tunnel stretches
    /// (`classes: ["tunnel"]`; the extract's tunnels under the centre are unnamed service roads).
    @Test(arguments: ["helsinki_osrm_plain.json", "helsinki_valhalla_tunnels.json"])
    func aRealHelsinkiAnswerHasItsTunnels(fixture: String) throws {
        let data = try Data(contentsOf: Self.repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/\(fixture)"))
        let route = try #require(try OSRMResponseParser().parseRoutes(from: data).first)
        let objects = Self.objects(route)
        let tunnels = objects.objects.filter { $0.kind == "tunnel" }
        #expect(tunnels.count >= 2, "\(objects.objects)")
        #expect(tunnels.allSatisfy { $0.end > $0.start && $0.isStretch })
        // Each stretch as long as the steps the engine marked (170-190 m under Kaivokatu), not a point.
        #expect(tunnels.contains { $0.end - $0.start > 150 }, "\(tunnels.map { ($0.start, $0.end) })")
    }

    /// A real Valhalla answer on motorways: the motorway stretch, its entry and its exit.
    @Test func aRealValhallaAnswerHasItsMotorway() throws {
        let data = try Data(contentsOf: Self.repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/valhalla_extended_osrm_response.json"))
        let route = try #require(try OSRMResponseParser().parseRoutes(from: data).first)
        let kinds = Self.objects(route).objects.map(\.kind)
        #expect(kinds.contains("motorway"), "\(kinds)")
        #expect(kinds.contains("motorway_entry") || kinds.contains("motorway_exit"), "\(kinds)")
    }

    /// One step east along a straight road with every kind of feature the serializers write (Valhalla's field
    /// names), and two countries.
    static let everything = """
        {"code":"Ok","routes":[{"distance":1000,"duration":100,"geometry":"_c`|@_c`|@??","legs":[{"distance":1000,"duration":100,
        "admins":[{"iso_3166_1":"FI","iso_3166_1_alpha3":"FIN"},{"iso_3166_1":"SE","iso_3166_1_alpha3":"SWE"}],
        "steps":[{"distance":1000,"duration":100,"name":"Tie","geometry":{"type":"LineString","coordinates":[[24.0,60.0],[24.002,60.0],[24.004,60.0],[24.006,60.0],[24.008,60.0],[24.010,60.0],[24.012,60.0],[24.014,60.0],[24.016,60.0],[24.018,60.0]]},
        "maneuver":{"type":"depart","location":[24.0,60.0]},"intersections":[
          {"location":[24.0,60.0],"admin_index":0,"classes":["motorway"]},
          {"location":[24.002,60.0],"admin_index":0,"classes":["motorway","tunnel"],"tunnel_name":"Testitunneli"},
          {"location":[24.004,60.0],"admin_index":0,"classes":["motorway","bogus"]},
          {"location":[24.006,60.0],"admin_index":0,"classes":["motorway","toll"],"toll_collection":{"type":"toll_booth"}},
          {"location":[24.008,60.0],"admin_index":0,"classes":["motorway","toll"],"rest_stop":{"type":"rest_area","name":"Levähdys"}},
          {"location":[24.010,60.0],"admin_index":1,"classes":["toll"]},
          {"location":[24.012,60.0],"admin_index":1,"classes":["ferry"]},
          {"location":[24.016,60.0],"admin_index":1}]},
        {"distance":0,"duration":0,"name":"Tie","geometry":{"type":"LineString","coordinates":[[24.018,60.0],[24.018,60.0]]},"maneuver":{"type":"arrive","location":[24.018,60.0]},"intersections":[{"location":[24.018,60.0],"admin_index":1}]}]}]}],
        "waypoints":[{"location":[24.0,60.0]},{"location":[24.018,60.0]}]}
        """

    @Test func everyKindOfObjectWithWhereItIs() throws {
        let route = try Self.parse(Self.everything)
        // Kept where something changes (all eight intersections here: the third ends the tunnel), the bogus class dropped.
        #expect(route.steps[0].features.count == 8, "\(route.steps[0].features)")
        #expect(route.steps[0].features.allSatisfy { !$0.classes.contains("bogus") })
        let objects = Self.objects(route).objects
        let spacing = Geodesy.distance(GeographicCoordinate(latitude: 60, longitude: 24), GeographicCoordinate(latitude: 60, longitude: 24.002))
        func find(_ kind: String) throws -> RouteObjects.Object { try #require(objects.first { $0.kind == kind }, "no \(kind) in \(objects.map(\.kind))") }
        let tunnel = try find("tunnel")
        #expect(tunnel.name == "Testitunneli" && abs(tunnel.start - spacing) < 0.5 && abs(tunnel.end - 2 * spacing) < 0.5)
        let motorway = try find("motorway")
        #expect(motorway.start == 0 && abs(motorway.end - 5 * spacing) < 0.5)
        #expect(abs(try find("motorway_exit").start - 5 * spacing) < 0.5)
        #expect(!objects.contains { $0.kind == "motorway_entry" }, "the route starts on the motorway: no entry")
        let toll = try find("toll_road")
        #expect(abs(toll.start - 3 * spacing) < 0.5 && abs(toll.end - 6 * spacing) < 0.5)
        #expect(abs(try find("toll_booth").start - 3 * spacing) < 0.5)
        let rest = try find("rest_area")
        #expect(rest.name == "Levähdys" && abs(rest.start - 4 * spacing) < 0.5)
        let border = try find("border_crossing")
        #expect(border.detail == "FI → SE" && abs(border.start - 5 * spacing) < 0.5)
        let ferry = try find("ferry")
        #expect(abs(ferry.start - 6 * spacing) < 0.5 && abs(ferry.end - 8 * spacing) < 0.5)

        // Ahead of the tunnel's middle, within 300 m: the tunnel's rest first, then what begins within reach.
        let ahead = Self.objects(route).ahead(of: 1.5 * spacing, within: 300)
        #expect(ahead.first?.kind == "motorway" || ahead.first?.kind == "tunnel")
        let tunnelAhead = try #require(ahead.first { $0.kind == "tunnel" })
        #expect(tunnelAhead.distance == 0 && abs((tunnelAhead.length ?? 0) - 0.5 * spacing) < 0.5)
        #expect(ahead.contains { $0.kind == "toll_booth" && abs($0.distance - 1.5 * spacing) < 0.5 && $0.length == nil })
        #expect(!ahead.contains { $0.kind == "ferry" }, "the ferry begins beyond 300 m")
        #expect(ahead.map(\.distance) == ahead.map(\.distance).sorted())
        #expect(Self.objects(route).ahead(of: 0, within: 10_000, limit: 3).count == 3)
    }

    /// An answer without any of these fields is a route with no objects, not an error.
    @Test func anAnswerWithoutThemHasNone() throws {
        var text = Self.everything
        for key in ["classes", "tunnel_name", "toll_collection", "rest_stop", "admin_index", "admins"] { text = text.replacingOccurrences(of: "\"\(key)\"", with: "\"x_\(key)\"") }
        let route = try Self.parse(text)
        #expect(route.steps.allSatisfy { $0.features.isEmpty })
        #expect(Self.objects(route).objects.isEmpty)
        #expect(Self.objects(route).ahead(of: 0, within: 10_000).isEmpty)
    }
}
