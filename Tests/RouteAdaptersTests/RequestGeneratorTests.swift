import Foundation
import NavigationCore
import RouteAdapters
import Testing

@Suite("Request generators")
struct RequestGeneratorTests {
    static let origin = UserLocation(
        coordinate: GeographicCoordinate(latitude: 60.1699, longitude: 24.9384), horizontalAccuracy: 12.3,
        course: CourseOverGround(degrees: 87.4, accuracy: 8), speed: Speed(metersPerSecond: 10),
        timestamp: Date(timeIntervalSince1970: 1_795_241_290))
    static let destination = Waypoint(coordinate: GeographicCoordinate(latitude: 60.1686, longitude: 24.95))

    func body(_ request: HTTPRequestSpec) throws -> [String: Any] {
        let data = try #require(request.body)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func query(_ url: String) throws -> [String: String] {
        let components = try #require(URLComponents(string: url))
        return Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    /// A client's options travel into the configured engine's request, never to another address: navd contacts
    /// only the engines in its configuration.
    @Test(arguments: ["valhalla", "osrm", "graphhopper"])
    func clientOptionsCannotSendTheRequestElsewhere(engine: String) throws {
        let hostile: [String: JSONValue] = [
            "url": "http://203.0.113.9/", "host": "203.0.113.9", "base_url": "http://203.0.113.9", "baseURL": "http://203.0.113.9",
            "@": "evil", "../../x": "y",
        ]
        let adapter: RouteAdapter
        switch engine {
        case "valhalla": adapter = .valhalla(baseURL: "http://127.0.0.1:8002")
        case "osrm": adapter = .osrm(baseURL: "http://127.0.0.1:8002")
        default: adapter = .graphHopper(baseURL: "http://127.0.0.1:8002")
        }
        let request = try adapter.requestGenerator.routeRequest(
            for: RouteQuery(origin: Self.origin, waypoints: [Self.destination], options: hostile))
        let components = try #require(URLComponents(string: request.url))
        #expect(components.host == "127.0.0.1" && components.port == 8002, "\(request.url)")
        #expect(request.server == "http://127.0.0.1:8002")
    }

    /// Hosted engines take their key in the base URL's query; the request keeps it and adds its own path and
    /// parameters.
    @Test func aBaseURLWithAKeyKeepsItsQuery() throws {
        let valhalla = try RouteAdapter.valhalla(baseURL: "https://api.example.com/valhalla/?api_key=K1").requestGenerator
            .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination]))
        #expect(valhalla.url == "https://api.example.com/valhalla/route?api_key=K1")
        let osrm = try RouteAdapter.osrm(baseURL: "https://api.example.com/osrm?key=K2").requestGenerator
            .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination]))
        let components = try #require(URLComponents(string: osrm.url))
        #expect(components.path.hasPrefix("/osrm/route/v1/driving/"))
        #expect(try query(osrm.url)["key"] == "K2")
        #expect(try query(osrm.url)["steps"] == "true")
        #expect(osrm.secrets == ["K2"])
    }

    /// The request's path goes after the base's own path (its trailing slashes dropped) and before the base's query,
    /// which is everything after the base's first `?`, kept as it is.
    @Test(arguments: [
        ("http://127.0.0.1:8002", "http://127.0.0.1:8002/route"),
        ("http://127.0.0.1:8002///", "http://127.0.0.1:8002/route"),
        ("https://api.example.com/valhalla/?api_key=K1", "https://api.example.com/valhalla/route?api_key=K1"),
        ("https://api.example.com/v1?key=a?b&x=1", "https://api.example.com/v1/route?key=a?b&x=1"),
        ("https://api.example.com/v1/?", "https://api.example.com/v1/route"),
    ])
    func aBaseURLIsCutAtItsFirstQuestionMark(base: String, expected: String) throws {
        let request = try ValhallaRequestGenerator(baseURL: base, profile: "auto")
            .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination]))
        #expect(request.url == expected)
    }

    // MARK: Valhalla

    @Test func valhallaRouteRequest() throws {
        let generator = ValhallaRequestGenerator(
            baseURL: "http://127.0.0.1:8002/", profile: "auto", options: ["costing_options": ["auto": ["use_tolls": 0]]])
        let request = try generator.routeRequest(
            for: RouteQuery(origin: Self.origin, waypoints: [Self.destination], options: ["alternates": 1]))
        #expect(request.method == .post)
        #expect(request.url == "http://127.0.0.1:8002/route")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.server == "http://127.0.0.1:8002")
        let json = try body(request)
        #expect(json["format"] as? String == "osrm")
        #expect(json["costing"] as? String == "auto")
        #expect(json["banner_instructions"] as? Bool == true)
        #expect(json["voice_instructions"] as? Bool == true)
        #expect(json["units"] as? String == "kilometers")
        #expect(json["language"] as? String == "en-US")
        #expect(json["alternates"] as? Int == 1)
        #expect(((json["costing_options"] as? [String: Any])?["auto"] as? [String: Any])?["use_tolls"] as? Int == 0)
        let attributes = (json["filters"] as? [String: Any])?["attributes"] as? [String]
        #expect(attributes?.contains("shape_attributes.speed_limit") == true)

        let locations = try #require(json["locations"] as? [[String: Any]])
        #expect(locations.count == 2)
        // The start carries the vehicle's heading and a street-side tolerance from its accuracy.
        #expect(locations[0]["heading"] as? Int == 87)
        #expect(locations[0]["heading_tolerance"] as? Int == 15)
        #expect(locations[0]["street_side_tolerance"] as? Int == 13)
        #expect(locations[0]["type"] as? String == "break")
        #expect(locations[1]["lat"] as? Double == 60.1686)
        #expect(locations[1]["type"] as? String == "break")
    }

    @Test func valhallaStartWithoutCourse() throws {
        var origin = Self.origin
        origin.course = nil
        origin.horizontalAccuracy = 2
        let request = try ValhallaRequestGenerator(baseURL: "http://localhost:8002")
            .routeRequest(for: RouteQuery(origin: origin, waypoints: [Self.destination]))
        let start = try #require((try body(request)["locations"] as? [[String: Any]])?.first)
        #expect(start["heading"] == nil)
        #expect(start["street_side_tolerance"] as? Int == 5)
    }

    @Test func valhallaWaypointProperties() throws {
        let properties = ValhallaWaypointProperties(
            heading: 181.6, headingTolerance: 30, radius: 25, preferredSide: .same, minimumReachability: 50,
            searchFilter: ["exclude_tunnel": true, "min_road_class": "residential"], streetSideTolerance: 10,
            displayCoordinate: GeographicCoordinate(latitude: 60.17, longitude: 24.951), name: "Kauppatori",
            allowUTurns: false)
        let waypoints = [
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.169, longitude: 24.945), kind: .via, properties: ["radius": 10]),
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.168, longitude: 24.947), kind: .via, properties: ["allow_uturns": false]),
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.1675, longitude: 24.952), properties: properties.asProperties),
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.1686, longitude: 24.95), kind: .break),
        ]
        let request = try ValhallaRequestGenerator(baseURL: "http://localhost:8002")
            .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: waypoints))
        let locations = try #require(try body(request)["locations"] as? [[String: Any]])
        #expect(locations.map { $0["type"] as? String } == ["break", "via", "through", "break_through", "break"])
        #expect(locations[1]["radius"] as? Int == 10)
        let rich = locations[3]
        #expect(rich["heading"] as? Int == 182)
        #expect(rich["heading_tolerance"] as? Int == 30)
        #expect(rich["radius"] as? Int == 25)
        #expect(rich["preferred_side"] as? String == "same")
        #expect(rich["minimum_reachability"] as? Int == 50)
        #expect((rich["search_filter"] as? [String: Any])?["min_road_class"] as? String == "residential")
        #expect(rich["street_side_tolerance"] as? Int == 10)
        #expect(rich["display_lat"] as? Double == 60.17)
        #expect(rich["display_lon"] as? Double == 24.951)
        #expect(rich["name"] as? String == "Kauppatori")
        #expect(rich["allow_uturns"] == nil, "allow_uturns is expressed through the location type, not sent")
    }

    @Test func requestsAreDeterministic() throws {
        let generator = ValhallaRequestGenerator(baseURL: "http://localhost:8002", options: ["a": 1, "b": ["c": 2]])
        let query = RouteQuery(origin: Self.origin, waypoints: [Self.destination])
        #expect(try generator.routeRequest(for: query) == generator.routeRequest(for: query))
        let osrm = OSRMRequestGenerator(baseURL: "http://localhost:5000", options: ["exclude": "toll", "alternatives": true])
        #expect(try osrm.routeRequest(for: query).url == osrm.routeRequest(for: query).url)
    }

    @Test func valhallaTraceRoute() throws {
        let trace = (0..<4).map { i in
            TracePoint(
                coordinate: GeographicCoordinate(latitude: 60.1699 + Double(i) * 0.0001, longitude: 24.9384),
                timestamp: Date(timeIntervalSince1970: 1_795_241_290 + Double(i)), radius: 7.2)
        }
        let request = try ValhallaMapMatchingRequestGenerator(baseURL: "http://localhost:8002").matchRequest(for: trace)
        #expect(request.url == "http://localhost:8002/trace_route")
        let json = try body(request)
        #expect(json["shape_match"] as? String == "map_snap")
        #expect(json["format"] as? String == "osrm")
        #expect(json["voice_instructions"] as? Bool == true)
        #expect(json["use_timestamps"] as? Bool == true)
        let shape = try #require(json["shape"] as? [[String: Any]])
        #expect(shape.count == 4)
        #expect(shape.map { $0["type"] as? String } == ["break", "via", "via", "break"])
        #expect(shape[1]["time"] as? Int == 1_795_241_291)
        #expect(shape[0]["radius"] as? Int == 8)
    }

    // MARK: OSRM

    @Test func osrmRouteRequest() throws {
        let request = try OSRMRequestGenerator(baseURL: "http://127.0.0.1:5000", profile: "driving", options: ["exclude": "toll"])
            .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination]))
        #expect(request.method == .get)
        #expect(request.body == nil)
        #expect(request.url.hasPrefix("http://127.0.0.1:5000/route/v1/driving/24.938400,60.169900;24.950000,60.168600?"))
        let q = try query(request.url)
        #expect(q["steps"] == "true")
        #expect(q["overview"] == "full")
        #expect(q["geometries"] == "polyline6")
        #expect(q["annotations"] == "true")
        #expect(q["exclude"] == "toll")
        // The start bearing comes from the fix's course; other coordinates have none.
        #expect(q["bearings"] == "87,15;")
        #expect(q["waypoints"] == nil)
    }

    @Test func osrmViaWaypointsAndProperties() throws {
        var origin = Self.origin
        origin.course = nil
        let waypoints = [
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.169, longitude: 24.945), kind: .via),
            Waypoint(
                coordinate: GeographicCoordinate(latitude: 60.168, longitude: 24.947),
                properties: ["bearing": 90, "radius": 20, "approach": "curb"]),
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.1686, longitude: 24.95)),
        ]
        let request = try OSRMRequestGenerator(baseURL: "http://127.0.0.1:5000")
            .routeRequest(for: RouteQuery(origin: origin, waypoints: waypoints, options: ["alternatives": 2]))
        let q = try query(request.url)
        #expect(q["waypoints"] == "0;2;3")
        #expect(q["bearings"] == ";;90,45;")
        #expect(q["radiuses"] == ";;20;")
        #expect(q["approaches"] == ";;curb;")
        #expect(q["alternatives"] == "2")
    }

    @Test func osrmMatchRequest() throws {
        let trace = (0..<3).map { i in
            TracePoint(
                coordinate: GeographicCoordinate(latitude: 60.1699, longitude: 24.9384 + Double(i) * 0.0002),
                timestamp: Date(timeIntervalSince1970: 1_795_241_290 + Double(i) * 2), radius: 9)
        }
        let request = try OSRMMapMatchingRequestGenerator(baseURL: "http://127.0.0.1:5000").matchRequest(for: trace)
        #expect(request.url.hasPrefix("http://127.0.0.1:5000/match/v1/driving/24.938400,60.169900;24.938600,60.169900;24.938800,60.169900?"))
        let q = try query(request.url)
        #expect(q["timestamps"] == "1795241290;1795241292;1795241294")
        #expect(q["radiuses"] == "9;9;9")
        #expect(q["steps"] == "true")
        #expect(q["geometries"] == "polyline6")
        #expect(q["gaps"] == "ignore")
    }

    // MARK: GraphHopper

    @Test func graphHopperNavigateRequest() throws {
        let request = try GraphHopperRequestGenerator(baseURL: "https://graphhopper.example/api/1", profile: "car", options: ["key": "secret"])
            .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination]))
        #expect(request.method == .get)
        #expect(request.url.hasPrefix("https://graphhopper.example/api/1/navigate/directions/v5/gh/car/24.938400,60.169900;24.950000,60.168600?"))
        let q = try query(request.url)
        #expect(q["geometries"] == "polyline6")
        #expect(q["steps"] == "true")
        #expect(q["voice_instructions"] == "true")
        #expect(q["banner_instructions"] == "true")
        #expect(q["roundabout_exits"] == "true")
        #expect(q["voice_units"] == "metric")
        #expect(q["language"] == "en")
        #expect(q["bearings"] == "87,15;")
        #expect(q["key"] == "secret")
    }

    /// The driver's language and units reach each engine in its own terms (`[guidance]`).
    @Test func theInstructionLocaleReachesEachEngine() throws {
        let locale = InstructionLocale(language: "de-DE", imperial: true)
        let query = RouteQuery(origin: Self.origin, waypoints: [Self.destination])
        let valhalla = try RoutingEngine.valhalla.adapter(baseURL: "http://127.0.0.1:8002", profile: "auto", locale: locale).requestGenerator.routeRequest(for: query)
        let body = try JSONParser.parse(try #require(valhalla.body))
        #expect(body["language"] == "de-DE" && body["units"] == "miles")
        let graphHopper = try RoutingEngine.graphhopper.adapter(baseURL: "http://127.0.0.1:8989", profile: "car", locale: locale).requestGenerator.routeRequest(for: query)
        let q = try self.query(graphHopper.url)
        #expect(q["language"] == "de_DE" && q["voice_units"] == "imperial")
        let match = try #require(RoutingEngine.valhalla.mapMatchingGenerator(baseURL: "http://127.0.0.1:8002", profile: "auto", locale: locale))
            .matchRequest(for: [TracePoint(coordinate: Self.origin.coordinate), TracePoint(coordinate: Self.destination.coordinate)])
        let matchBody = try JSONParser.parse(try #require(match.body))
        #expect(matchBody["language"] == "de-DE" && matchBody["units"] == "miles")
    }

    /// `avoid` becomes a custom model, which a URL cannot carry: the request is a POST to /navigate with the
    /// model in its body (and the API key still in the query), not a GET that silently drops it.
    @Test func graphHopperCustomModelsGoInAPostBody() throws {
        let model: JSONValue = ["priority": [["if": "road_class == MOTORWAY", "multiply_by": "0"]]]
        let request = try GraphHopperRequestGenerator(baseURL: "https://graphhopper.example/api/1", profile: "car", options: ["key": "secret"])
            .routeRequest(
                for: RouteQuery(origin: Self.origin, waypoints: [Self.destination], options: ["custom_model": model, "ch.disable": true]))
        #expect(request.method == .post)
        #expect(request.url == "https://graphhopper.example/api/1/navigate?key=secret")
        let body = try JSONParser.parse(try #require(request.body))
        #expect(body["type"] == "mapbox")
        #expect(body["profile"] == "car")
        #expect(body["custom_model"] == model)
        #expect(body["ch.disable"] == true)
        #expect(body["points"] == [[24.9384, 60.1699], [24.95, 60.1686]])
        #expect(body["key"] == nil, "the key stays out of the body")
        for refused in ["geometries", "steps", "voice_instructions", "banner_instructions", "roundabout_exits", "language"] {
            #expect(body[refused] == nil, "GraphHopper refuses '\(refused)' in a POST body")
        }
    }

    @Test func osrmRefusesAnOptionItCannotCarry() {
        #expect(throws: RouteRequestError.unsupportedOption(key: "custom_model", reason: "OSRM takes query parameters, and its value is an object")) {
            try OSRMRequestGenerator(baseURL: "http://localhost:5000")
                .routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination], options: ["custom_model": ["a": 1]]))
        }
    }

    // MARK: Errors

    @Test func invalidRequestsAreRefusedBeforeSending() {
        let generators: [any RouteRequestGenerator] = [
            ValhallaRequestGenerator(baseURL: "http://localhost:8002"), OSRMRequestGenerator(baseURL: "http://localhost:5000"),
            GraphHopperRequestGenerator(baseURL: "http://localhost:8989"),
        ]
        for generator in generators {
            #expect(throws: RouteRequestError.noWaypoints) {
                try generator.routeRequest(for: RouteQuery(origin: Self.origin, waypoints: []))
            }
            let outside = GeographicCoordinate(latitude: 91, longitude: 24)
            #expect(throws: RouteRequestError.invalidCoordinate(outside)) {
                try generator.routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Waypoint(coordinate: outside)]))
            }
        }
        #expect(throws: RouteRequestError.invalidBaseURL("ftp://example.org")) {
            try OSRMRequestGenerator(baseURL: "ftp://example.org").routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [Self.destination]))
        }
        #expect(throws: RouteRequestError.traceTooShort(count: 1)) {
            try OSRMMapMatchingRequestGenerator(baseURL: "http://localhost:5000").matchRequest(for: [TracePoint(coordinate: Self.origin.coordinate)])
        }
    }

    /// Valhalla's request URL is made once per base URL: a base changed after the generator was made is the one
    /// requests go to, and a base that is no URL is refused at the request, as before, until it is one.
    @Test(arguments: [
        ("http://h:1", "http://h:1/route"), ("http://h:1/", "http://h:1/route"), ("https://api.example.com/valhalla?api_key=k", "https://api.example.com/valhalla/route?api_key=k"),
    ])
    func valhallaRequestsGoToTheBaseURLItHasNow(base: String, expected: String) throws {
        let query = RouteQuery(origin: Self.origin, waypoints: [Self.destination])
        var generator = ValhallaRequestGenerator(baseURL: "http://first:8002")
        #expect(try generator.routeRequest(for: query).url == "http://first:8002/route")
        generator.baseURL = base
        #expect(try generator.routeRequest(for: query).url == expected)
        #expect(try ValhallaRequestGenerator(baseURL: base).routeRequest(for: query).url == expected)
        generator.baseURL = "ftp://example.org"
        #expect(throws: RouteRequestError.invalidBaseURL("ftp://example.org")) { try generator.routeRequest(for: query) }
        // The waypoints are checked first, whatever the base.
        #expect(throws: RouteRequestError.noWaypoints) { try generator.routeRequest(for: RouteQuery(origin: Self.origin, waypoints: [])) }
        generator.baseURL = base
        #expect(try generator.routeRequest(for: query).url == expected)
    }

    @Test func adaptersPairGeneratorsWithTheOSRMParser() throws {
        let query = RouteQuery(origin: Self.origin, waypoints: [Self.destination])
        #expect(try RouteAdapter.valhalla(baseURL: "http://h:1").requestGenerator.routeRequest(for: query).url == "http://h:1/route")
        #expect(try RouteAdapter.osrm(baseURL: "http://h:2").requestGenerator.routeRequest(for: query).url.contains("/route/v1/driving/"))
        #expect(try RouteAdapter.graphHopper(baseURL: "http://h:3").requestGenerator.routeRequest(for: query).url.contains("/navigate/directions/v5/gh/car/"))
        let routes = try RouteAdapter.osrm(baseURL: "http://h:2").responseParser.parseRoutes(from: Fixture.data("helsinki_osrm_plain"))
        #expect(routes.first?.steps.count == 10)
    }

    /// The request body navd writes itself is the text Foundation's `JSONEncoder` wrote (sorted keys, slashes
    /// unescaped) for the bodies navd sends: the golden recordings' requests replay unchanged.
    @Test(arguments: ["valhalla", "valhalla-options", "graphhopper-post"])
    func requestBodiesAreFoundationsText(shape: String) throws {
        let varied: [String: JSONValue] = [
            "note": "a/b \"quoted\" ä 日本 \n tab\t", "tiny": .number(1e-7), "big": .number(12_345_678.9), "negative": .number(-1.25),
            "list": [1, 2.5, "x", nil, false],
        ]
        var options: [String: JSONValue] = [:]
        switch shape {
        case "valhalla-options":
            options = varied.merging(
                ["language": "fi-FI", "units": "miles", "costing_options": ["auto": ["use_tolls": 0.25, "top_speed": 90, "exclude_unpaved": true]]]
            ) { a, _ in a }
        case "graphhopper-post":
            // An object option (a custom model) makes GraphHopper's request a POST with a JSON body.
            options = varied.merging(["custom_model": ["priority": [["if": "road_class == MOTORWAY", "multiply_by": "0.1"]]]]) { a, _ in a }
        default: break
        }
        let adapter: RouteAdapter = shape == "graphhopper-post" ? .graphHopper(baseURL: "http://127.0.0.1:8002") : .valhalla(baseURL: "http://127.0.0.1:8002")
        let stop = Waypoint(coordinate: GeographicCoordinate(latitude: 60.178242, longitude: 24.95188), kind: .via)
        let request = try adapter.requestGenerator.routeRequest(
            for: RouteQuery(origin: Self.origin, waypoints: [stop, Self.destination], options: options))
        let body = try #require(request.body)
        let value = try JSONParser.parse(Array(body))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: body, as: UTF8.self) == String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
