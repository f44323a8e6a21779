import Foundation
import NavigationCore
import RouteAdapters
import Testing

/// A step's intersections are read with less than the rest of an answer: their road classes into a word (the known
/// ones, in order, each once), their lanes only where navd takes lanes from (a step's first intersection).
@Suite("Intersections read for what navd keeps of them")
struct IntersectionReadingTests {
    let parser = OSRMResponseParser(polylinePrecision: 6)

    /// One step east with one intersection whose members are `members`, and the arrival.
    static func answer(intersections: String) -> Data {
        Data(
            """
            {"code":"Ok","routes":[{"distance":223,"duration":20,"legs":[{"steps":[
            {"distance":223,"duration":20,"geometry":{"coordinates":[[24.0,60.0],[24.004,60.0]]},"maneuver":{"type":"depart","location":[24.0,60.0]},
             "intersections":[\(intersections)]},
            {"distance":0,"duration":0,"geometry":{"coordinates":[[24.004,60.0],[24.004,60.0]]},"maneuver":{"type":"arrive","location":[24.004,60.0]},
             "intersections":[{"location":[24.004,60.0]}]}]}]}]}
            """.utf8)
    }

    /// The classes as the answer lists them, against the ones kept: known ones in their order, each once, others
    /// dropped; escapes in a class's text decoded before it is matched.
    @Test(arguments: [
        (#"["motorway"]"#, ["motorway"]),
        (#"["toll","motorway","toll","bogus","tunnel"]"#, ["toll", "motorway", "tunnel"]),
        (#"["restricted","ferry","tunnel","toll","motorway","ferry"]"#, ["restricted", "ferry", "tunnel", "toll", "motorway"]),
        (#"["mot\u006frway","Motorway","motorway "]"#, ["motorway"]),
        (#"["bogus",""]"#, []),
        ("[]", []),
        ("null", []),
    ])
    func knownClassesInTheirOrderOnce(listed: String, kept: [String]) throws {
        let route = try #require(try parser.parseRoutes(from: Self.answer(intersections: #"{"location":[24.0,60.0],"classes":\#(listed)}"#)).first)
        #expect(route.steps[0].features.map(\.classes) == (kept.isEmpty ? [] : [kept]))
    }

    @Test func aClassThatIsNotTextIsAnError() {
        #expect {
            try parser.parseRoutes(from: Self.answer(intersections: #"{"location":[24.0,60.0],"classes":["tunnel",5]}"#))
        } throws: { error in
            error as? RouteParseError == .typeMismatch(path: "routes[0].legs[0].steps[0].intersections[0].classes[1]", expected: "a string")
        }
    }

    /// Lanes after a step's first intersection are skipped, still checked as JSON: lanes of a shape navd does not read
    /// there do not cost the route, and broken JSON there is still an error.
    @Test func lanesAfterAStepsFirstIntersectionAreSkipped() throws {
        let second = #"{"location":[24.0,60.0]},{"location":[24.002,60.0],"lanes":[{"valid":"yes","indications":7}]}"#
        let route = try #require(try parser.parseRoutes(from: Self.answer(intersections: second)).first)
        #expect(route.steps.count == 2)
        let broken = Self.answer(intersections: #"{"location":[24.0,60.0]},{"lanes":[{"valid":tru}]}"#)
        #expect {
            try parser.parseRoutes(from: broken)
        } throws: { error in
            guard case RouteParseError.malformedJSON = error else { return false }
            return true
        }
    }

    /// Without the server's banners, a step's banner shows the lanes of the next step's first intersection: the
    /// real Helsinki answer's, read by Foundation's JSON reader here, as a model.
    @Test func aStepsBannerHasTheNextStepsFirstLanes() throws {
        var top = try Fixture.json("helsinki_valhalla_tunnels")
        var routes = try #require(top["routes"] as? [[String: Any]])
        var legs = try #require(routes[0]["legs"] as? [[String: Any]])
        var steps = try #require(legs[0]["steps"] as? [[String: Any]])
        var expected: [[Bool]] = []
        for index in steps.indices {
            steps[index]["bannerInstructions"] = nil
            let intersections = steps[index]["intersections"] as? [[String: Any]] ?? []
            let lanes = (intersections.first?["lanes"] as? [[String: Any]] ?? []).map { ($0["active"] ?? $0["valid"]) as? Bool ?? false }
            expected.append(lanes.contains(true) ? lanes : [])
        }
        legs[0]["steps"] = steps
        routes[0]["legs"] = legs
        top["routes"] = routes
        let route = try #require(try parser.parseRoutes(from: Fixture.encode(top)).first)
        let shown = route.steps.map { step in step.visualInstructions.first?.sub?.lanes.map(\.active) ?? [] }
        // A step's banner is about the next step; the last step of the leg has none.
        #expect(Array(shown.dropLast()) == Array(expected.dropFirst()))
        #expect(expected.contains { !$0.isEmpty }, "the fixture has lanes on some step's first intersection")
    }
}
