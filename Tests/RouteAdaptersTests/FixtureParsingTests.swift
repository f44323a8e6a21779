import Foundation
import NavigationCore
import RouteAdapters
import Testing

@Suite("Parsing real route responses")
struct FixtureParsingTests {
    let parser = OSRMResponseParser(polylinePrecision: 6)

    func route(_ name: String) throws -> Route {
        let routes = try parser.parseRoutes(from: Fixture.data(name))
        #expect(routes.count == 1)
        return try #require(routes.first)
    }

    @Test func valhallaWalkingRoute() throws {
        let route = try route("valhalla_osrm_response")
        #expect(route.steps.count == 23)
        #expect(route.distance == 2604.35)
        #expect(route.duration == 2007.289)
        #expect(route.waypoints.count == 2)
        #expect(route.waypoints.map(\.kind) == [.break, .break])
        #expect(route.waypoints[1].coordinate == GeographicCoordinate(latitude: 59.452226, longitude: 24.730034))

        let first = route.steps[0]
        #expect(first.instruction == "Walk west on the walkway.")
        #expect(first.maneuver.type == .depart)
        #expect(first.distance == 111.251)
        #expect(first.drivingSide == .right)
        #expect(first.spokenInstructions.map(\.text) == ["Walk west on the walkway.", "In 200 feet, Turn left onto the walkway."])
        #expect(first.spokenInstructions.map(\.triggerDistanceBeforeManeuver) == [111.251, 60])
        #expect(first.spokenInstructions[0].ssml == "<speak>Walk west on the walkway.</speak>")

        let second = route.steps[1]
        #expect(second.maneuver.type == .turn)
        #expect(second.maneuver.modifier == .left)
        #expect(second.visualInstructions.count == 1)
        #expect(second.visualInstructions[0].primary.text == "Laeva")
        #expect(second.visualInstructions[0].primary.maneuverModifier == .right)
        #expect(second.visualInstructions[0].triggerDistanceBeforeManeuver == 9)
        #expect(second.spokenInstructions.map(\.text) == ["In 14 feet, Turn right onto Laeva."])
        #expect(second.spokenInstructions[0].triggerDistanceBeforeManeuver == 4.5)

        // The final arrival step has no prompt from the server; navd adds the arrival itself at distance 0.
        let last = try #require(route.steps.last)
        #expect(last.maneuver.type == .arrive)
        #expect(last.spokenInstructions.count == 1)
        #expect(last.spokenInstructions[0].text == last.instruction)
        #expect(last.spokenInstructions[0].triggerDistanceBeforeManeuver == 0)
    }

    @Test func valhallaAnnotationsAreCutIntoSteps() throws {
        let route = try route("valhalla_osrm_response")
        // Every segment of every step has its annotation, and together they are the leg's 139 entries. The
        // arrival step is a zero-length segment (its point twice) that the server does not annotate.
        for step in route.steps.dropLast() {
            #expect(step.annotations.count == step.geometry.count - 1)
        }
        #expect(route.steps.last?.distance == 0)
        #expect(route.steps.last?.annotations.isEmpty == true)
        #expect(route.steps.reduce(0) { $0 + $1.annotations.count } == 139)
        let first = try #require(route.steps[0].annotations.first)
        #expect(first.maxSpeed == .unknown)
        #expect(first.speed == 1.3)
        #expect(first.distance == 0.2)
        let limits = route.steps.flatMap(\.annotations).compactMap(\.maxSpeed)
        #expect(limits.contains(.limit(value: 30, unit: .kilometersPerHour)))
        // Annotation distances add up to the route distance.
        let total = route.steps.flatMap(\.annotations).compactMap(\.distance).reduce(0, +)
        #expect(abs(total - route.distance) / route.distance < 0.01)
    }

    @Test func valhallaExtendedLanesAndSeveralBanners() throws {
        let route = try route("valhalla_extended_osrm_response")
        #expect(route.steps.count == 8)
        #expect(route.steps.map(\.distance) == [64.13, 115, 236, 558, 372, 84, 289.074, 0])
        #expect(route.steps[1].roadRef == "CR 501")
        #expect(route.steps[1].maneuver.type == .endOfRoad)
        #expect(route.steps[2].maneuver.type == .onRamp)

        let banners = route.steps[3].visualInstructions
        #expect(banners.map(\.triggerDistanceBeforeManeuver) == [558, 400])
        #expect(banners[0].primary.text == "Tonnelle Avenue")
        #expect(banners[0].primary.maneuverType == .offRamp)
        #expect(banners[0].primary.maneuverModifier == .slightRight)
        #expect(banners[0].secondary?.text == "US 1 South, US 9 South: Jersey City")
        #expect(banners[0].lanes.isEmpty)
        let lanes = banners[1].lanes
        #expect(lanes.count == 4)
        #expect(lanes.map(\.active) == [false, false, false, true])
        #expect(lanes[3].directions == ["straight", "right"])
        #expect(lanes[3].activeDirection == "right")

        // The last banner of the route announces the arrival.
        #expect(route.steps[6].visualInstructions[0].primary.maneuverType == .arrive)
        #expect(route.steps[7].visualInstructions.isEmpty)
    }

    @Test func roundaboutsLeftHandTrafficAndTwoLegs() throws {
        let route = try route("valhalla_osrm_with_roundabouts")
        #expect(route.steps.count == 12)
        #expect(route.legCount == 2)
        #expect(route.steps.map(\.legIndex) == Array(repeating: 0, count: 8) + Array(repeating: 1, count: 4))
        #expect(route.steps.allSatisfy { $0.drivingSide == .left })
        #expect(route.waypoints.count == 3)
        #expect(route.waypoints[1].coordinate == GeographicCoordinate(latitude: 53.490863, longitude: -2.285128))

        let roundabouts = route.steps.filter { $0.maneuver.type == .roundabout }
        #expect(roundabouts.map(\.roundaboutExitNumber) == [1, 4])
        #expect(roundabouts[1].instruction == "Enter the roundabout and take the 4th exit onto Gerald Road.")
        #expect(route.steps.filter { $0.maneuver.type == .exitRoundabout }.count == 2)
        #expect(route.steps.filter { $0.maneuver.type != .roundabout }.allSatisfy { $0.roundaboutExitNumber == nil })
        #expect(route.steps[4].maneuver.modifier == .uTurn)

        // This response has no banners or voice: they are planned from the server's own instruction texts.
        for (index, step) in route.steps.enumerated() {
            #expect(!step.spokenInstructions.isEmpty, "step \(index) has no spoken instruction")
            let endsLeg = index == 7 || index == 11
            #expect(step.visualInstructions.isEmpty == endsLeg)
        }
        let beforeRoundabout = route.steps[1]
        #expect(beforeRoundabout.visualInstructions[0].primary.text == "University Road West")
        #expect(beforeRoundabout.visualInstructions[0].primary.maneuverType == .roundabout)
        #expect(beforeRoundabout.spokenInstructions.last?.text == roundabouts[0].instruction)
    }

    @Test func plainOSRMLegsWithoutSteps() throws {
        let route = try route("standard_osrm_polyline6_response")
        #expect(route.steps.isEmpty)
        #expect(route.distance == 4731.8)
        #expect(route.duration == 630.7)
        #expect(route.waypoints.count == 3)
        #expect(route.geometry.count > 10)
        #expect(route.geometry.allSatisfy { (52.4...52.6).contains($0.latitude) && (13.3...13.5).contains($0.longitude) })
    }

    @Test(arguments: [
        "valhalla_osrm_response", "valhalla_extended_osrm_response", "valhalla_osrm_with_roundabouts", "helsinki_osrm_plain",
        "helsinki_osrm_two_legs",
    ])
    func stepsAreContiguousAndSumToTheRoute(name: String) throws {
        let route = try route(name)
        let sum = route.steps.reduce(0) { $0 + $1.distance }
        #expect(abs(sum - route.distance) / route.distance < 0.01)
        for (a, b) in zip(route.steps, route.steps.dropFirst()) {
            #expect(Geodesy.distance(a.geometry.last!, b.geometry.first!) < 1, "gap between steps")
        }
        // Banner and prompt triggers never exceed their step's length (they count back from its end).
        for step in route.steps {
            for banner in step.visualInstructions { #expect(banner.triggerDistanceBeforeManeuver <= step.distance + 0.01) }
            for prompt in step.spokenInstructions { #expect(prompt.triggerDistanceBeforeManeuver <= step.distance + 0.01) }
            #expect(!step.instruction.isEmpty)
        }
        // Utterance ids are unique within a route.
        let ids = route.steps.flatMap(\.spokenInstructions).map(\.utteranceId)
        #expect(Set(ids).count == ids.count)
    }

    @Test func parsingTwiceGivesTheSameUtteranceIDs() throws {
        let a = try route("valhalla_osrm_response")
        let b = try route("valhalla_osrm_response")
        #expect(a.steps.flatMap(\.spokenInstructions).map(\.utteranceId) == b.steps.flatMap(\.spokenInstructions).map(\.utteranceId))
    }

    @Test(arguments: [
        "valhalla_osrm_response", "valhalla_extended_osrm_response", "valhalla_osrm_with_roundabouts", "helsinki_osrm_plain",
    ])
    func routeJSONRoundTrips(name: String) throws {
        let route = try route(name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(RouteDocument(routes: [route]))
        let decoded = try JSONDecoder().decode(RouteDocument.self, from: data)
        #expect(decoded.routes == [route])
        // Same input, same bytes.
        #expect(try encoder.encode(decoded) == data)
    }

    @Test func documentedRouteJSONShape() throws {
        let route = try route("valhalla_extended_osrm_response")
        let data = try JSONEncoder().encode(RouteDocument(routes: [route]))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let routes = try #require(object["routes"] as? [[String: Any]])
        let first = try #require(routes.first)
        for key in ["distance", "duration", "geometry", "waypoints", "steps"] { #expect(first[key] != nil, "route.\(key)") }
        let geometry = try #require(first["geometry"] as? [[Double]])
        #expect(geometry[0] == [-74.031614, 40.775707])  // [lon, lat]
        let step = try #require((first["steps"] as? [[String: Any]])?[3])
        for key in [
            "distance", "duration", "instruction", "roadName", "maneuver", "geometry", "visualInstructions",
            "spokenInstructions", "annotations", "exits",
        ] {
            #expect(step[key] != nil, "step.\(key)")
        }
        let maneuver = try #require(step["maneuver"] as? [String: Any])
        #expect(maneuver["type"] as? String == "fork")
        #expect(maneuver["modifier"] as? String == "slight right")
        let banner = try #require((step["visualInstructions"] as? [[String: Any]])?[1])
        #expect(banner["triggerDistanceBeforeManeuver"] as? Double == 400)
        #expect((banner["primary"] as? [String: Any])?["text"] as? String == "Tonnelle Avenue")
        let spoken = try #require((step["spokenInstructions"] as? [[String: Any]])?.first)
        for key in ["text", "ssml", "triggerDistanceBeforeManeuver", "utteranceId"] { #expect(spoken[key] != nil, "spoken.\(key)") }
    }

    @Test func singleRouteObjectHelper() throws {
        let object = try Fixture.json("valhalla_osrm_response")
        let routeObject = try #require((object["routes"] as? [[String: Any]])?.first)
        let waypoints = [
            Waypoint(coordinate: GeographicCoordinate(latitude: 59.442643, longitude: 24.765368)),
            Waypoint(coordinate: GeographicCoordinate(latitude: 59.452226, longitude: 24.730034)),
        ]
        let route = try Route.fromOSRMRoute(Fixture.encode(routeObject), waypoints: waypoints, polylinePrecision: 6)
        #expect(route.steps.count == 23)
        #expect(route.waypoints == waypoints)
        #expect(try Route.fromOSRMResponse(Fixture.data("valhalla_osrm_response")).first?.steps.count == 23)
    }
}

/// navd reads an answer in one pass, member by member as they come (`JSONReader`): the routes must not depend on
/// the order an engine writes its members in, and a member navd does not know is skipped wherever it is.
@Suite("Reading an answer in one pass")
struct OnePassReadingTests {
    let parser = OSRMResponseParser(polylinePrecision: 6)

    static let fixtures = [
        "helsinki_osrm_plain", "helsinki_osrm_two_legs", "helsinki_valhalla_tunnels", "standard_osrm_polyline6_response",
        "valhalla_extended_osrm_response", "valhalla_osrm_response", "valhalla_osrm_with_roundabouts",
    ]

    /// `value` as JSON text with every object's members in descending key order (`reversed`) or ascending, and an
    /// unknown member added where navd keeps no unknown members (not in incidents or annotations, which keep them).
    static func text(_ value: JSONValue, reversed: Bool, addUnknown: Bool = true, into out: inout [UInt8]) {
        switch value {
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                text(item, reversed: reversed, addUnknown: addUnknown, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            var members: [[UInt8]] = []
            if addUnknown { members.append(Array(#""navd_unknown_first":{"a":[1,{"b":null}],"c":"d"}"#.utf8)) }
            for key in object.keys.sorted(by: reversed ? (>) : (<)) {
                var member = JSONOutput.bytes { JSONText.appendString(key, into: &$0) }
                member.append(UInt8(ascii: ":"))
                let keepsUnknown = key == "incidents" || key == "annotation"
                text(object[key]!, reversed: reversed, addUnknown: addUnknown && !keepsUnknown, into: &member)
                members.append(member)
            }
            if addUnknown { members.append(Array(#""navd_unknown_last":[[],{},"x",-1.5e3,true]"#.utf8)) }
            out.append(UInt8(ascii: "{"))
            out.append(contentsOf: members.joined(separator: [UInt8(ascii: ",")]))
            out.append(UInt8(ascii: "}"))
        default:
            out.append(contentsOf: JSONOutput.bytes { JSONText.append(value, into: &$0) })
        }
    }

    @Test(arguments: fixtures)
    func membersInAnyOrderGiveTheSameRoutes(name: String) throws {
        let original = try Fixture.data(name)
        let routes = try parser.parseRoutes(from: original)
        #expect(!routes.isEmpty)
        let tree = try JSONParser.parse(original)
        for reversed in [false, true] {
            var bytes: [UInt8] = []
            Self.text(tree, reversed: reversed, into: &bytes)
            #expect(try parser.parseRoutes(from: Data(bytes)) == routes, "members \(reversed ? "descending" : "ascending")")
        }
    }

    /// A key that repeats: the last one counts, as in the tree parser.
    @Test func theLastOfARepeatedMemberCounts() throws {
        let original = try Fixture.data("helsinki_osrm_plain")
        let routes = try parser.parseRoutes(from: original)
        var tree = try JSONParser.parse(original)
        guard case .object(var top) = tree, case .array(var routeValues) = top["routes"], case .object(var first) = routeValues[0] else {
            Issue.record("the fixture's shape changed")
            return
        }
        first["distance"] = .number(routes[0].distance + 1000)
        routeValues[0] = .object(first)
        top["routes"] = .array(routeValues)
        tree = .object(top)
        var bytes: [UInt8] = []
        Self.text(tree, reversed: false, addUnknown: false, into: &bytes)
        // The same route object again, with the fixture's own distance, written after the changed one.
        let distanceText = Array(#""distance":"#.utf8)
        let at = try #require(bytes.firstRange(of: distanceText))
        var repeated = bytes
        let own = JSONOutput.bytes { JSONText.appendNumber(routes[0].distance, into: &$0) }
        repeated.insert(contentsOf: distanceText + own + [UInt8(ascii: ",")], at: at.lowerBound)
        // `"distance":<own>,"distance":<changed>` reads as changed; the changed one first reads as the own.
        #expect(try parser.parseRoutes(from: Data(repeated))[0].distance == routes[0].distance + 1000)
        var ownLast = bytes
        ownLast.insert(contentsOf: [UInt8(ascii: ",")] + distanceText + own, at: try #require(ownLast.firstRange(of: Array(#""duration":"#.utf8))).lowerBound - 1)
        #expect(try parser.parseRoutes(from: Data(ownLast))[0].distance == routes[0].distance)
    }
}
