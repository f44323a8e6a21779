import Foundation
import NavigationCore
import Testing

/// Codable straight to and from JSONValue: what every protocol message goes through.
@Suite("JSONValue coding")
struct JSONValueCodingTests {
    struct Inner: Codable, Hashable {
        var name: String
        var weights: [Double]
    }

    struct Sample: Codable, Hashable {
        enum Kind: String, Codable { case offRoute = "off_route", none }
        var kind: Kind
        var count: Int
        var big: UInt64
        var ratio: Double
        var flag: Bool
        var when: Date
        var maybe: String?
        var inner: Inner
        var list: [Inner]
        var table: [String: Int]
    }

    static let sample = Sample(
        kind: .offRoute, count: -3, big: 1 << 52, ratio: 0.1 + 0.2, flag: true, when: Date(timeIntervalSince1970: 1_795_241_290.25),
        maybe: nil, inner: Inner(name: "a \"quoted\" name", weights: [1, 2.5]), list: [Inner(name: "x", weights: [])],
        table: ["one": 1, "two": 2])

    @Test func aValueRoundTripsAndNilIsLeftOut() throws {
        let json = try JSONValueEncoder().encode(Self.sample)
        let object = try #require(json.objectValue)
        #expect(object["maybe"] == nil, "a nil optional is left out, not null")
        #expect(object["kind"] == "off_route")
        #expect(object["when"] == "2026-11-21T06:08:10.250Z")
        #expect(object["ratio"]?.doubleValue == 0.1 + 0.2)
        #expect(object["big"]?.doubleValue == Double(1 << 52))
        #expect(try JSONValueDecoder().decode(Sample.self, from: json) == Self.sample)
    }

    /// What JSONEncoder and the project's parser make of the same value: the same JSON.
    @Test func itAgreesWithJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Timestamp.format(date))
        }
        let viaBytes = try JSONParser.parse(try encoder.encode(Self.sample))
        #expect(try JSONValueEncoder().encode(Self.sample) == viaBytes)
    }

    @Test func anExplicitNilIsNull() throws {
        struct Explicit: Encodable {
            var id: String?
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(id, forKey: .id)
            }
            enum CodingKeys: String, CodingKey { case id }
        }
        #expect(try JSONValueEncoder().encode(Explicit(id: nil)) == .object(["id": .null]))
    }

    @Test(arguments: [
        (#"{"name":"x","weights":[1,"2"]}"#, "a number"),
        (#"{"name":7,"weights":[]}"#, "a string"),
        (#"{"weights":[]}"#, "'name' is missing"),
    ])
    func aMismatchSaysWhatWasExpected(_ text: String, _ expected: String) throws {
        let value = try JSONParser.parse(Array(text.utf8))
        #expect {
            _ = try JSONValueDecoder().decode(Inner.self, from: value)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func wholeNumbersMustBeWholeAndInRange() throws {
        #expect(throws: DecodingError.self) { _ = try JSONValueDecoder().decode(Int.self, from: .number(1.5)) }
        #expect(throws: DecodingError.self) { _ = try JSONValueDecoder().decode(UInt8.self, from: .number(300)) }
        #expect(try JSONValueDecoder().decode(UInt8.self, from: .number(255)) == 255)
    }

    /// A route's geometry: long arrays are built in place (this once took quadratic time).
    @Test func aLongArrayEncodesWhole() throws {
        let line = Inner(name: "geometry", weights: (0..<50_000).map(Double.init))
        let json = try JSONValueEncoder().encode(line)
        #expect(json["weights"]?.arrayValue?.count == 50_000)
        #expect(json["weights"]?.arrayValue?.last == .number(49_999))
    }
}
