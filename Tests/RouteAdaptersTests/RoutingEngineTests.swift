import Foundation
import NavigationCore
import RouteAdapters
import Testing

/// What differs between engines, asked of one type.
@Suite struct RoutingEngineTests {
    @Test func routeOptionsMapOntoEachEngine() throws {
        let options = RouteOptions(costing: nil, avoid: [.tolls, .ferries], engine: ["alternates": 2])
        let valhalla = try RoutingEngine.valhalla.requestOptions(for: options, profile: "auto")
        #expect(valhalla["costing_options"]?["auto"]?["use_tolls"] == 0)
        #expect(valhalla["costing_options"]?["auto"]?["use_ferry"] == 0)
        #expect(valhalla["alternates"] == 2)
        let osrm = try RoutingEngine.osrm.requestOptions(for: options, profile: "driving")
        #expect(osrm["exclude"] == "toll,ferry")
        let graphHopper = try RoutingEngine.graphhopper.requestOptions(for: options, profile: "car")
        #expect(graphHopper["custom_model"]?["priority"]?.arrayValue?.count == 2)
        #expect(throws: RouteOptionsError(field: "options.costing", message: "an OSRM server serves one profile ('driving'); run another server for 'bicycle'")) {
            try RoutingEngine.osrm.requestOptions(for: RouteOptions(costing: "bicycle"), profile: "driving")
        }
    }

    @Test(arguments: RoutingEngine.allCases)
    func eachEngineHasItsProfileAdapterAndMatching(_ engine: RoutingEngine) throws {
        #expect(engine.profile("") == engine.defaultProfile)
        #expect(engine.profile("truck") == "truck")
        let origin = UserLocation(coordinate: .init(latitude: 60.17, longitude: 24.94), horizontalAccuracy: 5, timestamp: Date(timeIntervalSince1970: 0))
        let request = try engine.adapter(baseURL: "http://127.0.0.1:9", profile: engine.defaultProfile).requestGenerator
            .routeRequest(for: RouteQuery(origin: origin, waypoints: [Waypoint(coordinate: .init(latitude: 60.18, longitude: 24.95))]))
        #expect(request.server == "http://127.0.0.1:9")
        #expect((engine.mapMatchingGenerator(baseURL: "http://127.0.0.1:9", profile: engine.defaultProfile) == nil) == (engine == .graphhopper))
    }

    @Test func aParserSaysWhenTheEngineRefused() throws {
        let parser: any RouteResponseParser = OSRMResponseParser()
        #expect(parser.engineError(in: Data(#"{"code":"NoRoute","message":"Impossible route"}"#.utf8))?.contains("NoRoute") == true)
        #expect(parser.engineError(in: Data("<html>".utf8)) == nil)
    }
}
