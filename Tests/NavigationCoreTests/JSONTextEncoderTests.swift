import Foundation
import NavigationCore
import PropertyBased
import Testing

/// The streaming encoder writes exactly what the tree path (JSONValueEncoder, then JSONText) writes.
@Suite("JSON text encoder")
struct JSONTextEncoderTests {
    /// The tree path: what navd wrote before the streaming encoder, and still writes when it declines.
    static func treeText<T: Encodable>(_ value: T) throws -> String {
        let tree = try JSONValueEncoder().encode(value)
        return String(decoding: JSONOutput.bytes { JSONText.append(tree, into: &$0) }, as: UTF8.self)
    }

    static func streamText<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONTextEncoder().encode(value), as: UTF8.self)
    }

    struct Pair: Codable, Hashable {
        var a: Double
        var z: [String: JSONValue]
    }

    /// A type whose encode(to:) does what hand-written ones do: nested containers, a flattened value, an
    /// explicit nil, an empty value, a dictionary, a date.
    struct HandWritten: Encodable {
        var points: [[Double]]
        var inner: Pair
        var when: Date
        var note: String?

        enum CodingKeys: String, CodingKey { case points, note, when, zed, empty, table, nested }
        enum NestedKeys: String, CodingKey { case b, a }

        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            var outer = c.nestedUnkeyedContainer(forKey: .points)
            for point in points {
                var pair = outer.nestedUnkeyedContainer()
                for number in point { try pair.encode(number) }
            }
            try c.encode(note, forKey: .note)  // nil: null, not left out
            try c.encode(when, forKey: .when)
            try c.encode(Nothing(), forKey: .empty)
            var nested = c.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested)
            try nested.encode(2, forKey: .b)
            try nested.encode("x", forKey: .a)
            try c.encode(["b": 2, "a": 1, "ä": 3, "A": 0], forKey: .table)
            try c.encode(1, forKey: .zed)
            try c.encode(2, forKey: .zed)  // written twice: the last one counts
            try inner.encode(to: encoder)  // flattened into the same object
        }
    }

    static let handWritten = HandWritten(
        points: [[24.9, 60.1], [24.95, 60.17], []], inner: Pair(a: 0.1 + 0.2, z: ["q": .array([.null, .bool(true), "t\"\n\u{1}"])]),
        when: Date(timeIntervalSince1970: 1_795_241_290.25), note: nil)

    @Test func handWrittenEncodersGiveTheTreeBytes() throws {
        let text = try Self.streamText(Self.handWritten)
        #expect(text == (try Self.treeText(Self.handWritten)))
        #expect(text.hasPrefix(#"{"A":"#) == false)
        #expect(text.contains(#""zed":2"#))
        #expect(text.contains(#""empty":null"#))
        #expect(text.contains(#""points":[[24.9,60.1],[24.95,60.17],[]]"#))
    }

    /// Geometry has a fast path (no container per point): the same bytes as its encode(to:) through the tree,
    /// alone, empty, and inside a route's steps.
    @Test(arguments: [0, 1, 3, 250])
    func geometryGivesTheTreeBytes(points: Int) throws {
        let coordinates = (0..<points).map { GeographicCoordinate(latitude: 60.1 + Double($0) * 1e-4 / 3, longitude: 24.9 - Double($0) * 0.25) }
        let line = LineStringCoding(coordinates)
        #expect(try Self.streamText(line) == (try Self.treeText(line)))
        let route = Route(
            geometry: coordinates, distance: 10, duration: 1, waypoints: [],
            steps: [RouteStep(geometry: coordinates, distance: 10, duration: 1, instruction: "Go", maneuver: Maneuver(type: .depart, location: coordinates.first ?? .init(latitude: 0, longitude: 0)))])
        #expect(try Self.streamText(route) == (try Self.treeText(route)))
        let two = LineStringCoding([GeographicCoordinate(latitude: 60.1, longitude: 24.9), GeographicCoordinate(latitude: 60.17, longitude: -24.95)])
        #expect(try Self.streamText(two) == "[[24.9,60.1],[-24.95,60.17]]")
    }

    @Test(arguments: [
        (1e15, "1000000000000000.0"), (1e16, "1e+16"), (999_999_999_999_999, "999999999999999"), (-0.0, "0"), (Double.nan, "null"), (Double.infinity, "null"),
        (0.1, "0.1"), (-3, "-3"), (123_456.789, "123456.789"),
    ])
    func numbersAreWrittenAsNavdWritesThem(_ number: Double, _ expected: String) throws {
        #expect(try Self.streamText(number) == expected)
        #expect(try Self.treeText(number) == expected)
    }

    @Test func topLevelLeavesAndEmptyValues() throws {
        #expect(try Self.streamText("a\\b") == #""a\\b""#)
        #expect(try Self.streamText([Int]()) == "[]")
        #expect(try Self.streamText([String: Int]()) == "{}")
        #expect(try Self.streamText(HandWritten.Nothing()) == "null")
        #expect(try Self.streamText([HandWritten.Nothing()]) == (try Self.treeText([HandWritten.Nothing()])))
    }

    /// A container used after a later sibling was opened cannot be streamed: the encoder says so and writes nothing.
    @Test func outOfOrderUseIsRefused() throws {
        struct Interleaved: Encodable {
            enum Keys: String, CodingKey { case first, second }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: Keys.self)
                var first = c.nestedUnkeyedContainer(forKey: .first)
                var second = c.nestedUnkeyedContainer(forKey: .second)
                try second.encode(2)
                try first.encode(1)
            }
        }
        #expect(throws: JSONTextEncoder.Unsupported.self) { try JSONTextEncoder().encode(Interleaved()) }
        #expect(try Self.treeText(Interleaved()) == #"{"first":[1],"second":[2]}"#)
    }

    /// Random documents, with every kind of value and key (escapes and non-ASCII included).
    @Test func randomDocumentsGiveTheTreeBytes() async {
        let key = Gen.character(in: " "..."ö").string(of: 0...6)
        let scalar = zip(Gen.int(in: 0...5), Gen.double(in: -1e17...1e17), Gen.int(in: -1000...1000), key).map {
            pick, real, whole, text -> JSONValue in
            [.null, .bool(whole % 2 == 0), .number(real), .number(Double(whole)), .string(text), .number(real / 1e9)][pick]
        }
        let document = zip(scalar.array(of: 0...6), key.array(of: 0...6), scalar.array(of: 0...3)).map { values, keys, more -> Pair in
            var object: [String: JSONValue] = [:]
            for (key, value) in zip(keys, values) { object[key] = value }
            object["list"] = .array(more)
            object["nested"] = .object(object)
            return Pair(a: values.first?.doubleValue ?? 1, z: object)
        }
        await propertyCheck(count: 300, input: document) { value in
            #expect((try? Self.streamText(value)) == (try? Self.treeText(value)))
            #expect((try? Self.streamText([value, value])) == (try? Self.treeText([value, value])))
        }
    }

    @Test func membersComeSortedWithTheirValues() throws {
        let members = try JSONTextEncoder().encodeMembers(Self.handWritten)
        #expect(members.keys == members.keys.sorted())
        #expect(Set(members.keys) == ["points", "note", "when", "zed", "empty", "table", "nested", "a", "z"])
        let empty = try #require(members.keys.firstIndex(of: "empty"))
        #expect(String(decoding: JSONOutput.bytes { members.appendValue(at: empty, into: &$0) }, as: UTF8.self) == "null")
        #expect(throws: JSONTextEncoder.Unsupported.self) { try JSONTextEncoder().encodeMembers([1, 2]) }
    }
}
