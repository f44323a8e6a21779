import Foundation
import NavigationCore
import PropertyBased
import Testing

/// A step's annotations kept as columns read, compare, hash, change and write exactly as one dictionary per segment
/// did: the per-segment dictionaries are the model these tests hold the columns to.
@Suite("Segment annotations as columns")
struct SegmentAnnotationsTests {
    /// Segments with members drawn from a few names (some absent on some segments), values of every JSON kind.
    static let name = Gen.int(in: 0...5).map { ["speed", "duration", "distance", "maxspeed", "congestion", "ä\"x"][$0] }
    static let value = zip(Gen.int(in: 0...4), Gen.double(in: -1e4...1e4), Gen.character(in: " "..."~").string(of: 0...6))
        .map { kind, number, text -> JSONValue in
            switch kind {
            case 0: .null
            case 1: .number(number)
            case 2: .string(text)
            case 3: ["speed": .number(number.rounded()), "unit": "km/h"]
            default: .bool(number > 0)
            }
        }
    static let segment = zip(name.array(of: 0...6), value.array(of: 6)).map { names, values in
        Dictionary(zip(names, values), uniquingKeysWith: { first, _ in first })
    }
    static let segments = segment.array(of: 0...12)

    /// The text one dictionary per segment gave: each object's keys sorted, as the tree path writes them.
    static func dictionaryText(_ rows: [[String: JSONValue]]) -> String {
        String(decoding: JSONOutput.bytes { JSONText.append(.array(rows.map(JSONValue.object)), into: &$0) }, as: UTF8.self)
    }

    @Test func segmentsReadBackAsTheyWereGiven() async {
        await propertyCheck(count: 300, input: Self.segments) { rows in
            let table = SegmentAnnotations(rows.map(SegmentAnnotation.init(values:)))
            #expect(table.count == rows.count)
            #expect(table.map(\.values) == rows)
            #expect(table.names == table.names.sorted())
            for (segment, row) in rows.enumerated() {
                for name in ["speed", "maxspeed", "nothing"] { #expect(table.value(name, at: segment) == row[name]) }
            }
        }
    }

    @Test func textIsTheDictionariesText() async {
        await propertyCheck(count: 300, input: Self.segments) { rows in
            let table = SegmentAnnotations(rows.map(SegmentAnnotation.init(values:)))
            let out = JSONOutput.bytes { table.writeJSON(into: &$0) }
            #expect(String(decoding: out, as: UTF8.self) == Self.dictionaryText(rows))
            let coded = try? JSONDecoder().decode(SegmentAnnotations.self, from: JSONEncoder().encode(table))
            #expect(coded == table)
        }
    }

    /// The parser's cut of a leg's columns: segments `offset ..< offset + count` of every column.
    @Test(arguments: [(0, 3), (2, 4), (5, 1)])
    func aStepIsItsSliceOfTheLegsColumns(offset: Int, count: Int) {
        let leg: [String: [JSONValue]] = [
            "speed": (0..<6).map { .number(Double($0)) }, "distance": (0..<6).map { .number(Double($0) * 10) },
            "maxspeed": (0..<6).map { _ in ["unknown": true] }, "congestion": ["low"],
        ]
        let step = SegmentAnnotations(columns: leg, offset: offset, count: count)
        #expect(step.count == count)
        #expect(step.names == ["distance", "maxspeed", "speed"])
        for segment in 0..<count {
            #expect(step[segment].speed == Double(offset + segment))
            #expect(step[segment].distance == Double(offset + segment) * 10)
            #expect(step[segment].maxSpeed == .unknown)
        }
    }

    /// Replacing segments one at a time (a route refresh) gives what the dictionaries would, and equal tables hash
    /// alike however their columns came to be (a member every segment lost still has its column).
    @Test func replacingSegmentsKeepsEqualityAndHashing() async {
        await propertyCheck(count: 300, input: zip(Self.segments, Self.segment.array(of: 12))) { rows, replacements in
            var table = SegmentAnnotations(rows.map(SegmentAnnotation.init(values:)))
            var expected = rows
            for segment in rows.indices {
                table.setSegment(segment, to: replacements[segment])
                expected[segment] = replacements[segment]
            }
            let rebuilt = SegmentAnnotations(expected.map(SegmentAnnotation.init(values:)))
            #expect(table.map(\.values) == expected)
            #expect(table == rebuilt)
            #expect(table.hashValue == rebuilt.hashValue)
            #expect(table.names == table.names.sorted())
            for segment in rows.indices {
                #expect(table[segment] == rebuilt[segment])
                #expect(table[segment].hashValue == SegmentAnnotation(values: expected[segment]).hashValue)
            }
        }
    }

    @Test func differentSegmentsAreNotEqual() {
        let table = SegmentAnnotations([SegmentAnnotation(values: ["speed": 1]), SegmentAnnotation(values: ["speed": 2])])
        #expect(table[0] != table[1])
        #expect(table[0] != SegmentAnnotation(values: ["speed": 1, "distance": 3]))
        #expect(table[0] == SegmentAnnotation(values: ["speed": 1]))
        #expect(table != SegmentAnnotations([SegmentAnnotation(values: ["speed": 1]), SegmentAnnotation(values: ["speed": 3])]))
        #expect(table != SegmentAnnotations([SegmentAnnotation(values: ["speed": 1])]))
        #expect(SegmentAnnotations(emptySegments: 2) == SegmentAnnotations([SegmentAnnotation(values: [:]), SegmentAnnotation(values: [:])]))
    }

    /// A limit read in one pass over the `maxspeed` object gives what looking up each key did.
    static let limits: [(member: JSONValue, expected: MaxSpeed?)] = {
        let kmh = SpeedUnit.kilometersPerHour
        var cases: [(member: JSONValue, expected: MaxSpeed?)] = []
        cases.append((["speed": 50, "unit": "km/h"], .limit(value: 50, unit: kmh)))
        cases.append((["speed": 30, "unit": "mph"], .limit(value: 30, unit: .milesPerHour)))
        cases.append((["speed": 20], .limit(value: 20, unit: kmh)))
        cases.append((["speed": 20, "unit": "furlongs"], .limit(value: 20, unit: kmh)))
        cases.append((["none": true], MaxSpeed.none))
        cases.append((["none": true, "speed": 50], MaxSpeed.none))
        cases.append((["none": false, "speed": 50], .limit(value: 50, unit: kmh)))
        cases.append((["unknown": true], .unknown))
        cases.append((["unknown": true, "speed": 50], .unknown))
        cases.append((["speed": 1e300], .unknown))
        cases.append((["speed": "50"], .unknown))
        cases.append((.object([:]), .unknown))
        cases.append((.number(50), nil))
        cases.append((.null, nil))
        return cases
    }()

    @Test(arguments: limits)
    func maxSpeedFromItsObject(member: JSONValue, expected: MaxSpeed?) {
        #expect(MaxSpeed(annotation: member) == expected)
        #expect(SegmentAnnotation(values: ["maxspeed": member]).maxSpeed == expected)
    }

    /// Objects up to eight members are ordered without an array of members; larger ones the old way. Both give
    /// keys sorted as Swift's `<` sorts them, whatever order the dictionary holds them in.
    @Test func objectsOfAnySizeWriteTheirKeysSorted() async {
        let object = zip(Gen.character(in: " "..."~").string(of: 0...5).array(of: 0...14), Self.value.array(of: 14))
            .map { keys, values in Dictionary(zip(keys, values), uniquingKeysWith: { first, _ in first }) }
        await propertyCheck(count: 500, input: object) { object in
            let out = JSONOutput.bytes { JSONText.append(.object(object), into: &$0) }
            var expected = JSONOutput()
            expected.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { expected.append(UInt8(ascii: ",")) }
                JSONText.appendString(key, into: &expected)
                expected.append(UInt8(ascii: ":"))
                JSONText.append(object[key]!, into: &expected)
            }
            expected.append(UInt8(ascii: "}"))
            #expect(out == expected.bytes)
        }
    }

    /// A leg's columns as the parser reads them: an item that repeats the one before, byte for byte, is that very
    /// value (one storage), as a street's speed limit is; other repeats are equal values of their own.
    static func columnsByRepeats(_ texts: [String: String]) throws -> [String: [JSONValue]] {
        try texts.mapValues { text in
            try JSONReader.read(Array(text.utf8)) { reader in
                var items = try reader.beginArray()
                var values: [JSONValue] = []
                var repeated = JSONReader.RepeatedValue()
                while try reader.nextItem(&items) { values.append(try reader.readValue(repeating: &repeated)) }
                return values
            }
        }
    }

    /// Columns of items drawn from values that differ in one digit or one key (so that a copy of the wrong text
    /// shows), repeated by the same text (one storage) and by equal text spelt otherwise (storage of its own).
    static let repeatingColumns = Gen.int(in: 0...11).array(of: 0...16).array(of: 3).map { picks -> [String: String] in
        let items = [
            #"{"speed":30,"unit":"km/h"}"#, #"{"speed":300,"unit":"km/h"}"#, #"{"unit":"km/h","speed":30}"#, #"{"none":true}"#,
            "6.9", "6.90", "69", "-0.0", "0", #""6.9""#, "[1,2]", "[1, 2]",
        ]
        let names = ["maxspeed", "speed", "ä\"x"]
        var texts: [String: String] = [:]
        let count = picks.map(\.count).min() ?? 0
        for (name, column) in zip(names, picks) { texts[name] = "[" + column.prefix(count).map { items[$0] }.joined(separator: ",") + "]" }
        return texts
    }

    /// A value that is the segment before's very value has its text copied: the text is still each value's own.
    @Test func repeatedValuesWriteEachValuesText() async throws {
        await propertyCheck(count: 500, input: Self.repeatingColumns) { texts in
            guard let columns = try? Self.columnsByRepeats(texts) else {
                Issue.record("columns that do not read: \(texts)")
                return
            }
            let count = columns.values.first?.count ?? 0
            let table = SegmentAnnotations(columns: columns, offset: 0, count: count)
            let rows = (0..<count).map { segment in columns.mapValues { $0[segment] } }
            let out = JSONOutput.bytes { table.writeJSON(into: &$0) }
            #expect(String(decoding: out, as: UTF8.self) == Self.dictionaryText(rows))
        }
    }

    /// Identical is the same value: never true for values that differ, true for a value and its copy.
    @Test func identicalValuesAreEqual() async {
        await propertyCheck(count: 500, input: zip(Self.value, Self.value)) { pair in
            let (first, second) = pair
            let copy = first
            #expect(first.isIdentical(to: copy))
            if first.isIdentical(to: second) { #expect(first == second) }
            if case .number = first, first == second, first.doubleValue?.sign == second.doubleValue?.sign {
                #expect(first.isIdentical(to: second))
            }
        }
        #expect(!JSONValue.object(["a": .number(1)]).isIdentical(to: .object(["a": .number(1)])))
        #expect(!JSONValue.number(0).isIdentical(to: .number(-0.0)))
        #expect(!JSONValue.number(6.9).isIdentical(to: .string("6.9")))
    }
}
