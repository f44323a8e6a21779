import Foundation
import NavigationCore
import PropertyBased
import RouteAdapters
import Testing

@Suite("Bad routing responses give typed, clear errors")
struct BadResponseTests {
    let parser = OSRMResponseParser(polylinePrecision: 6)

    static let html = """
        <!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>
        """

    enum Expected: Sendable {
        case notJSON(html: Bool), malformed, engine(String), noRoutes, missing(String), wrongType(String), geometry, tooLarge
    }

    static let cases: [(String, Data, Expected)] = [
        ("garbage bytes", Data([0x00, 0xff, 0x13, 0x37, 0x42]), .notJSON(html: false)),
        ("empty answer", Data(), .notJSON(html: false)),
        ("plain text", Data("Service Unavailable".utf8), .notJSON(html: false)),
        ("an HTML error page", Data(html.utf8), .notJSON(html: true)),
        ("truncated JSON", Data(#"{"code":"Ok","routes":[{"distance":12"#.utf8), .malformed),
        ("OSRM NoRoute", Data(#"{"code":"NoRoute","message":"Impossible route between points"}"#.utf8), .engine("NoRoute")),
        ("OSRM InvalidQuery", Data(#"{"code":"InvalidQuery","message":"Query string malformed close to position 28"}"#.utf8), .engine("InvalidQuery")),
        ("Valhalla error", Data(#"{"error_code":171,"error":"No suitable edges near location","status_code":400,"status":"Bad Request"}"#.utf8), .engine("Valhalla error 171")),
        ("an empty routes array", Data(#"{"code":"Ok","routes":[],"waypoints":[]}"#.utf8), .noRoutes),
        ("no routes key", Data(#"{"code":"Ok","waypoints":[]}"#.utf8), .missing("routes")),
        ("a route without legs", Data(#"{"code":"Ok","routes":[{"distance":10,"duration":1,"geometry":"_p~iF~ps|U_ulLnnqC"}]}"#.utf8), .missing("routes[0].legs")),
        ("a corrupt polyline", Data(#"{"code":"Ok","routes":[{"distance":10,"duration":1,"geometry":"_p~i F","legs":[{"steps":[]}]}]}"#.utf8), .geometry),
        ("a wrong type", Data(#"{"code":"Ok","routes":[{"distance":"far","legs":[]}]}"#.utf8), .wrongType("routes[0].distance")),
        ("a step that is not an object", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[42]}]}]}"#.utf8), .wrongType("routes[0].legs[0].steps[0]")),
        ("nesting without end", Data(("{\"a\":" + String(repeating: "[", count: 100_000)).utf8), .malformed),
        ("a number out of range", Data(#"{"code":"Ok","routes":[{"distance":1e999}]}"#.utf8), .malformed),
        // Finite but huge or impossible numbers (CheckedNumber with PhysicalRange): an error naming the field.
        ("a distance of 1e300", Data(#"{"code":"Ok","routes":[{"distance":1e300,"duration":1,"legs":[]}]}"#.utf8), .wrongType("routes[0].distance")),
        ("a negative duration", Data(#"{"code":"Ok","routes":[{"distance":1,"duration":-1e300,"legs":[]}]}"#.utf8), .wrongType("routes[0].duration")),
        ("a leg of 1e20 m", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"distance":1e20,"steps":[]}]}]}"#.utf8), .wrongType("routes[0].legs[0].distance")),
        ("a roundabout exit of 2^63", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"maneuver":{"exit":9223372036854775808}}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].maneuver.exit")),
        ("a bearing of -0.5", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"maneuver":{"bearing_after":-0.5}}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].maneuver.bearing_after")),
        ("a voice instruction at 1e300 m", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"voiceInstructions":[{"distanceAlongGeometry":1e300}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].voiceInstructions[0].distanceAlongGeometry")),
        ("a Valhalla error code of 1e300", Data(#"{"error_code":1e300,"error":"x"}"#.utf8), .wrongType("error_code")),
        // A path is put together on the error's way out: every level of nesting, arrays and objects, is in it.
        ("a toll booth's type that is a number", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"intersections":[{"location":[1,2]},{"toll_collection":{"type":5}}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].intersections[1].toll_collection.type")),
        ("a rest stop's name that is a number", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"intersections":[{"rest_stop":{"name":[]}}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].intersections[0].rest_stop.name")),
        ("a lane's validity that is a text", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"intersections":[{"lanes":[{"valid":true},{"valid":"yes"}]}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].intersections[0].lanes[1].valid")),
        ("a position with a text in it", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"intersections":[{"location":[1,"x"]}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].intersections[0].location[1]")),
        ("a GeoJSON position that is a number", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"geometry":{"coordinates":[[1,2],3]}}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].geometry.coordinates[1]")),
        ("a banner component's text that is a number", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"bannerInstructions":[{"primary":{"components":[{"text":"a"},{"text":1}]}}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].bannerInstructions[0].primary.components[1].text")),
        ("a maneuver that is a list", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"maneuver":[]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].maneuver")),
        ("a country that is a number", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"admins":[{"iso_3166_1":"FI"},{"iso_3166_1":7}],"steps":[]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].admins[1].iso_3166_1")),
        // Read in one pass, a wrong field can come before what makes the whole answer wrong: the whole answer counts.
        ("an engine's error after a broken route", Data(#"{"routes":[{"distance":"far"}],"code":"NoRoute","message":"Impossible route"}"#.utf8), .engine("NoRoute")),
        ("a Valhalla error after a broken route", Data(#"{"routes":5,"error_code":171,"error":"No suitable edges"}"#.utf8), .engine("Valhalla error 171")),
        ("a wrong type, then the text breaks off", Data(#"{"code":"Ok","routes":[{"distance":"far","legs":[{"#.utf8), .malformed),
        ("a wrong type, then an unpaired surrogate", Data(#"{"code":"Ok","routes":[{"distance":"far"}],"x":"\ud800"}"#.utf8), .malformed),
        ("a waypoint off the globe", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[]}],"waypoints":[{"location":[1e300,0]}]}"#.utf8),
            .wrongType("waypoints[0].location")),
        ("a position with a text in it", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"intersections":[{"location":[24.9,"60.2"]}]}]}]}]}"#.utf8),
            .wrongType("routes[0].legs[0].steps[0].intersections[0].location[1]")),
        ("a position that is an object", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[]}],"waypoints":[{"location":{"lon":1}}]}"#.utf8),
            .wrongType("waypoints[0].location")),
        ("a skipped member that breaks off", Data(#"{"code":"Ok","routes":[{"distance":1,"legs":[{"steps":[{"intersections":[{"bearings":[1,2,"#.utf8), .malformed),
    ]

    /// A position is read without an array: its error still says every number it came with, an altitude after the
    /// two included, and one with fewer than two numbers is left out, as before.
    @Test func aPositionKeepsItsNumbersForItsMessage() throws {
        func answer(waypoints: [[Double]]) throws -> Data {
            var top = try Fixture.json("standard_osrm_polyline6_response")
            top["waypoints"] = waypoints.map { ["location": $0] }
            return try Fixture.encode(top)
        }
        let offTheGlobe = try answer(waypoints: [[1e300, 0, 12.5]])
        #expect {
            try parser.parseRoutes(from: offTheGlobe)
        } throws: { error in
            guard case RouteParseError.typeMismatch(let path, let expected) = error else { return false }
            return path == "waypoints[0].location" && expected.hasSuffix("not [1e+300, 0.0, 12.5]")
        }
        // The fixture's route has two legs: the three whole positions are its three stops.
        let short = try answer(waypoints: [[13.39], [13.39, 52.52, 3], [13.40, 52.53], [13.43, 52.52]])
        let routes = try parser.parseRoutes(from: short)
        #expect(routes[0].waypoints.map(\.coordinate) == [
            GeographicCoordinate(latitude: 52.52, longitude: 13.39), GeographicCoordinate(latitude: 52.53, longitude: 13.40),
            GeographicCoordinate(latitude: 52.52, longitude: 13.43),
        ])
    }

    /// One route object read alone (a route refresh's route): its paths start at `route`.
    @Test(arguments: [
        (#"{"distance":"far"}"#, "route.distance"), (#"{"legs":5}"#, "route.legs"),
        (#"{"distance":1,"legs":[{"steps":[{"maneuver":{"exit":-1}}]}]}"#, "route.legs[0].steps[0].maneuver.exit"),
    ])
    func aRouteAloneNamesItsPathsFromTheRoute(text: String, path: String) {
        #expect(throws: RouteParseError.typeMismatch(path: path, expected: "")) {
            do {
                _ = try parser.parseRoute(from: Data(text.utf8))
            } catch RouteParseError.typeMismatch(let actual, _) {
                throw RouteParseError.typeMismatch(path: actual, expected: "")
            }
        }
    }

    @Test(arguments: cases)
    func badInput(name: String, data: Data, expected: Expected) {
        do {
            _ = try parser.parseRoutes(from: data)
            Issue.record("\(name) was accepted")
        } catch let error as RouteParseError {
            switch (expected, error) {
            case (.notJSON(let html), .notJSON(_, let looksLikeHTML)): #expect(html == looksLikeHTML)
            case (.malformed, .malformedJSON): break
            case (.engine(let code), .engineError(let actual, _)): #expect(actual == code)
            case (.noRoutes, .noRoutes): break
            case (.missing(let path), .missingField(let actual)): #expect(actual == path)
            case (.wrongType(let path), .typeMismatch(let actual, _)): #expect(actual == path)
            case (.geometry, .invalidGeometry): break
            case (.tooLarge, .responseTooLarge): break
            default: Issue.record("\(name): expected \(expected), got \(error)")
            }
            #expect(!error.description.isEmpty)
        } catch {
            Issue.record("\(name): untyped error \(error)")
        }
    }

    @Test func htmlErrorNamesThePageTitle() {
        #expect {
            try parser.parseRoutes(from: Data(Self.html.utf8))
        } throws: { error in
            "\(error)" == "the server answered with an HTML page instead of JSON (is the URL right?): 502 Bad Gateway"
        }
    }

    @Test func engineErrorCarriesTheEngineMessage() throws {
        let data = Data(#"{"code":"NoRoute","message":"Impossible route between points"}"#.utf8)
        #expect(throws: RouteParseError.engineError(code: "NoRoute", message: "Impossible route between points")) {
            try parser.parseRoutes(from: data)
        }
        #expect(parser.engineError(in: data) == "\(RouteParseError.engineError(code: "NoRoute", message: "Impossible route between points"))")
        let good = try Fixture.data("helsinki_osrm_plain")
        #expect(parser.engineError(in: good) == nil)
    }

    @Test func responseOverTheLimitIsRefused() throws {
        let small = OSRMResponseParser(polylinePrecision: 6, maximumResponseSize: 1000)
        #expect(throws: RouteParseError.responseTooLarge(bytes: 10_242, limit: 1000)) {
            try small.parseRoutes(from: Fixture.data("helsinki_osrm_plain"))
        }
    }

    @Test func precisionSixReadAsFiveIsOutsideTheWorld() throws {
        let data = try Fixture.data("helsinki_osrm_plain")
        #expect {
            try OSRMResponseParser(polylinePrecision: 5).parseRoutes(from: data)
        } throws: { error in
            guard case RouteParseError.invalidGeometry(let detail) = error else { return false }
            return detail.contains("outside the world") && detail.contains("wrong polyline precision")
        }
    }

    @Test func precisionFiveReadAsSixDoesNotMatchTheRouteLength() throws {
        // Re-encode every geometry at precision 5, then read it as 6: coordinates shrink tenfold but stay on Earth.
        var object = try Fixture.json("helsinki_osrm_plain")
        var routes = try #require(object["routes"] as? [[String: Any]])
        routes[0]["geometry"] = Polyline.encode(try Polyline.decode(try #require(routes[0]["geometry"] as? String)), precision: 5)
        object["routes"] = routes
        #expect {
            try OSRMResponseParser(polylinePrecision: 6).parseRoutes(from: Fixture.encode(object))
        } throws: { error in
            guard case RouteParseError.invalidGeometry(let detail) = error else { return false }
            return detail.contains("wrong polyline precision")
        }
    }

    @Test func everyTruncationOfARealResponseIsAnError() throws {
        let data = try Fixture.data("valhalla_extended_osrm_response")
        for cut in stride(from: 1, to: data.count, by: 97) {
            #expect(throws: RouteParseError.self) { try parser.parseRoutes(from: data.prefix(cut)) }
        }
    }

    @Test func arbitraryBytesNeverTrap() async {
        await propertyCheck(count: 400, input: Gen.uint8().array(of: 0...200)) { bytes in
            #expect(throws: RouteParseError.self) { try parser.parseRoutes(from: Data(bytes)) }
        }
    }

    @Test func arbitraryJSONishTextNeverTraps() async {
        let alphabet = Gen.element(of: [
            "{", "}", "[", "]", ",", ":", "\"routes\"", "\"legs\"", "\"steps\"", "1", "\"geometry\"", "\"_p~iF\"", "null",
        ]).map { $0 ?? "" }
        await propertyCheck(count: 400, input: alphabet.array(of: 0...40)) { tokens in
            do {
                _ = try parser.parseRoutes(from: Data(("{" + tokens.joined()).utf8))
            } catch {
                #expect(error is RouteParseError)
            }
        }
    }
}

@Suite("Lenient parsing of unusual but valid responses")
struct LenientParsingTests {
    let parser = OSRMResponseParser(polylinePrecision: 6)

    /// The Helsinki OSRM response with one step's maneuver renamed and annotations of unusual shape added.
    func modifiedHelsinki(_ edit: (inout [String: Any], inout [[String: Any]]) throws -> Void) throws -> Route {
        var object = try Fixture.json("helsinki_osrm_plain")
        var routes = try #require(object["routes"] as? [[String: Any]])
        var legs = try #require(routes[0]["legs"] as? [[String: Any]])
        var leg = legs[0]
        var steps = try #require(leg["steps"] as? [[String: Any]])
        try edit(&leg, &steps)
        leg["steps"] = steps
        legs[0] = leg
        routes[0]["legs"] = legs
        object["routes"] = routes
        return try #require(try parser.parseRoutes(from: Fixture.encode(object)).first)
    }

    @Test func unknownManeuverTypeDoesNotFailTheRoute() throws {
        let route = try modifiedHelsinki { _, steps in
            var maneuver = try #require(steps[5]["maneuver"] as? [String: Any])
            maneuver["type"] = "teleport"
            steps[5]["maneuver"] = maneuver
        }
        #expect(route.steps[5].maneuver.type == .other("teleport"))
        #expect(route.steps[5].instruction == "Continue right onto Mikonkatu")
        #expect(route.steps.count == 10)
    }

    @Test func annotationsOfAnyShapeAreKept() throws {
        let route = try modifiedHelsinki { leg, _ in
            var annotation = try #require(leg["annotation"] as? [String: Any])
            let count = try #require((annotation["speed"] as? [Any])?.count)
            annotation["congestion"] = (0..<count).map { $0 % 2 == 0 ? "low" : "heavy" }
            annotation["vendor_extra"] = (0..<count).map { ["lane_count": $0 % 3, "surface": "asphalt"] }
            annotation["short_column"] = [1, 2]  // too short to be per-segment: ignored, not fatal
            leg["annotation"] = annotation
        }
        let all = route.steps.flatMap(\.annotations)
        #expect(all.count == route.geometry.count - 1)
        #expect(all[0].congestion == "low")
        #expect(all[1].congestion == "heavy")
        #expect(all[2].values["vendor_extra"]?["surface"] == "asphalt")
        #expect(all.allSatisfy { $0.values["short_column"] == nil })
        #expect(all.allSatisfy { $0.speed != nil })
        // OSRM's "metadata" is an object, not a column: it is not spread over segments.
        #expect(all.allSatisfy { $0.values["metadata"] == nil })
    }

    @Test func incidentsAreAttachedToTheStepsTheyCover() throws {
        // Leg geometry indices: step 0 covers points 0...k0, step 1 covers k0...k1, ...
        let route = try modifiedHelsinki { leg, steps in
            let firstStepPoints = try Polyline.decode(try #require(steps[0]["geometry"] as? String)).count
            leg["incidents"] = [
                [
                    "id": "42", "type": "construction", "description": "Road works", "impact": "minor",
                    "geometry_index_start": firstStepPoints - 2, "geometry_index_end": firstStepPoints + 1,
                    "lanes_blocked": ["left"],
                ] as [String: Any]
            ]
        }
        let stepsWithIncident = route.steps.enumerated().filter { !$0.element.incidents.isEmpty }.map(\.offset)
        #expect(stepsWithIncident == [0, 1])
        let first = route.steps[0].incidents[0]
        #expect(first.id == "42")
        #expect(first.type == "construction")
        #expect(first.description == "Road works")
        #expect(first.geometryIndexEnd == route.steps[0].geometry.count - 1)
        #expect(first.properties["lanes_blocked"] == ["left"])
        #expect(route.steps[1].incidents[0].geometryIndexStart == 0)
        #expect(route.steps[1].incidents[0].geometryIndexEnd == 2)
    }

    @Test func geoJSONGeometriesAreAccepted() throws {
        var object = try Fixture.json("helsinki_osrm_plain")
        var routes = try #require(object["routes"] as? [[String: Any]])
        let points = try Polyline.decode(try #require(routes[0]["geometry"] as? String))
        routes[0]["geometry"] = ["type": "LineString", "coordinates": points.map { [$0.longitude, $0.latitude] }]
        object["routes"] = routes
        let route = try #require(try parser.parseRoutes(from: Fixture.encode(object)).first)
        #expect(route.geometry == points)
    }

    @Test func mapMatchingAnswersAreRoutes() throws {
        var object = try Fixture.json("helsinki_osrm_plain")
        object["matchings"] = object.removeValue(forKey: "routes")
        object["tracepoints"] = []
        object.removeValue(forKey: "waypoints")
        let routes = try parser.parseRoutes(from: Fixture.encode(object))
        #expect(routes.count == 1)
        #expect(routes[0].steps.count == 10)
        // Without a waypoints list the ends of the route are its stops.
        #expect(routes[0].waypoints.map(\.coordinate) == [routes[0].geometry.first!, routes[0].geometry.last!])
    }
}
