import Foundation
import NavigationCore
import PropertyBased
import RouteAdapters
import TestSupport
import Testing

/// A route's hand-written JSON text (``JSONTextWritable``, what `route` events carry) is byte for byte what the
/// types' `encode(to:)` writes through the tree path: on every real answer navd has a fixture of, and on random
/// routes with every optional member present or absent.
@Suite struct RouteTextTests {
    @Test(arguments: OnePassReadingTests.fixtures)
    func realAnswersWriteTheEncodersBytes(name: String) throws {
        let routes = try OSRMResponseParser(polylinePrecision: 6).parseRoutes(from: Fixture.data(name))
        #expect(!routes.isEmpty)
        for route in routes {
            let handWritten = try Self.handWritten(route)
            #expect(handWritten == (try Self.treePath(route)))
            // The generic encoder takes the hand-written path for a route inside any value.
            #expect(try JSONTextEncoder().encode(["route": route]) == Array(#"{"route":"#.utf8) + handWritten + [UInt8(ascii: "}")])
        }
    }

    @Test func randomRoutesWriteTheEncodersBytes() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...Int.max)) { seed in
            let route = RandomRoute(seed: UInt64(seed)).route()
            #expect((try? Self.handWritten(route)) == (try? Self.treePath(route)), "seed \(seed)")
        }
    }

    /// Every optional member present, then every one absent: no key is misspelt, left out or out of order.
    @Test(arguments: [true, false]) func everyMember(present: Bool) throws {
        let route = RandomRoute(seed: 11, presence: present ? 1 : 0, nonEmptyLists: true).route()
        let text = String(decoding: try Self.handWritten(route), as: UTF8.self)
        #expect(try Self.handWritten(route) == Self.treePath(route))
        // Written even when absent or empty, as encode(to:) has them.
        for key in ["roadName", "exits", "annotations", "incidents", "visualInstructions", "spokenInstructions", "legIndex"] {
            #expect(text.contains("\"\(key)\":"), "\(key)")
        }
        for key in ["notices", "features", "roadRef", "destinations", "drivingSide", "roundaboutExitNumber", "snapDistance", "bearingAfter", "modifier"] {
            #expect(text.contains("\"\(key)\":") == present, "\(key)")
        }
    }

    static func handWritten(_ route: Route) throws -> [UInt8] {
        JSONOutput.bytes { route.writeJSON(into: &$0) }
    }

    /// The types' own `encode(to:)`, through a `JSONValue` tree, then its text (keys sorted).
    static func treePath(_ route: Route) throws -> [UInt8] {
        let tree = try JSONValueEncoder().encode(route)
        return JSONOutput.bytes { JSONText.append(tree, into: &$0) }
    }
}
