import Foundation
import NavigationCore
import PropertyBased
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    @Test(arguments: [
        (#"{"a":[1,-2.5,3e2,true,false,null,"x"]}"#, JSONValue.object(["a": [1, -2.5, 300, true, false, nil, "x"]])),
        (#"  [ ]  "#, JSONValue.array([])),
        (#"{}"#, JSONValue.object([:])),
        (#""caf\u00e9 \ud83d\ude97 \"q\" \\ \/ \n""#, JSONValue.string("café 🚗 \"q\" \\ / \n")),
        (#"0.1"#, JSONValue.number(0.1)),
        (#"24.938396"#, JSONValue.number(24.938396)),
        (#"-0.000001"#, JSONValue.number(-0.000001)),
        (#"12345678901234567890"#, JSONValue.number(12_345_678_901_234_567_890)),
        (#"1.7976931348623157e308"#, JSONValue.number(1.7976931348623157e308)),
        ("\"Pitkänsillanranta\"", JSONValue.string("Pitkänsillanranta")),
    ])
    func parsesValidJSON(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: [
        "", "{", "[1,", #"{"a" 1}"#, #"{"a":1,}"#, "[1 2]", "01", "1.", "-", "1e", "tru", "nul", #""abc"#, #""\x""#,
        #""\ud83d""#, #""\u12G4""#, "\"a\u{1}b\"", "{} {}", "[1]]", "NaN", "1e999",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    /// JSON is UTF-8: a malformed sequence in a string is an error, never a replacement character.
    @Test(arguments: [[0xFF, 0xFE], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x80]] as [[UInt8]])
    func rejectsMalformedUTF8InStrings(sequence: [UInt8]) throws {
        for escaped in [false, true] {
            // With an escape before it, the slow path of the string parser sees it too.
            let bytes = Array(#"{"id":""#.utf8) + (escaped ? Array(#"\n"#.utf8) : []) + sequence + Array(#""}"#.utf8)
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(bytes) }
        }
        #expect(try JSONParser.parse(Array(#"{"id":"Töölö ✓ 🚗"}"#.utf8))["id"] == "Töölö ✓ 🚗")
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect((try? JSONParser.parse(Array(fine.utf8))) != nil)
    }

    @Test func errorsSayWhereAndWhat() {
        #expect(throws: JSONParser.Error(reason: "expected ',' or ']'", offset: 3)) { try JSONParser.parse(Array("[1 2]".utf8)) }
    }

    /// Random JSON documents, as Foundation's encoder writes them, parse back to the same value.
    static let leaf = Gen.int(in: 0...5).map { kind -> JSONValue in kind == 0 ? .null : .bool(kind % 2 == 0) }
    static let number = Gen.double(in: -1e6...1e6).map { JSONValue.number($0) }
    static let text = Gen.character(in: " "..."~").string(of: 0...8).map { JSONValue.string($0) }

    @Test func roundTripsFoundationOutput() async throws {
        let scalar = zip(Self.leaf, Self.number, Self.text, Gen.int(in: 0...2)).map { leaf, number, text, pick in
            [leaf, number, text][pick]
        }
        let document = zip(scalar.array(of: 0...6), Self.text.array(of: 0...6)).map { values, keys -> JSONValue in
            var object: [String: JSONValue] = [:]
            for (key, value) in zip(keys, values) { object[key.stringValue ?? ""] = value }
            return .object(["list": .array(values), "object": .object(object)])
        }
        await propertyCheck(count: 300, input: document) { value in
            let data = try? JSONEncoder().encode(value)
            let parsed = data.flatMap { try? JSONParser.parse($0) }
            #expect(parsed == value)
        }
    }

    @Test func arbitraryBytesNeverTrap() async {
        await propertyCheck(count: 500, input: Gen.uint8(in: 32...126).array(of: 0...80)) { bytes in
            do {
                _ = try JSONParser.parse(bytes)
            } catch let error as JSONParser.Error {
                #expect(!error.reason.isEmpty)
                #expect(error.offset <= bytes.count)
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }

    /// intValue: whole numbers an Int holds, nil for everything Int() would trap on or round.
    @Test(arguments: [
        ("3", 3 as Int?), ("-7", -7), ("0", 0), ("2.5", nil), ("1e30", nil), ("-1e300", nil), ("\"3\"", nil),
    ])
    func intValueIsExactOrNil(text: String, expected: Int?) throws {
        #expect(try JSONParser.parse(Array(text.utf8)).intValue == expected)
    }

    /// A string's bytes, as the parser reads them eight at a time, against the rule read byte by byte: the text up
    /// to the closing quote when it is well-formed UTF-8 without control characters; else the error at the first
    /// control character, or at the closing quote for malformed UTF-8. Each string is placed after 0-7 bytes of
    /// padding, so that the special bytes fall at every place in a word.
    @Test func stringsReadEightBytesAtATimeAreReadByTheRule() async {
        let alphabet: [UInt8] = [0x01, 0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xBF, 0xC3, 0xA4, 0xE2, 0x82, 0xAC, 0x61, 0x7A]
        let content = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }.array(of: 0...40)
        await propertyCheck(count: 3000, input: content, Gen.int(in: 0...7)) { bytes, padding in
            let document = Array(repeating: UInt8(ascii: " "), count: padding) + [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
            let expected: Result<JSONValue, JSONParser.Error>
            if let control = bytes.firstIndex(where: { $0 < 0x20 }) {
                expected = .failure(JSONParser.Error(reason: "control character in a string", offset: padding + 1 + control))
            } else if let text = String(validating: bytes, as: UTF8.self) {
                expected = .success(.string(text))
            } else {
                expected = .failure(JSONParser.Error(reason: "invalid UTF-8 in a string", offset: padding + 1 + bytes.count))
            }
            let parsed: Result<JSONValue, JSONParser.Error>
            do { parsed = .success(try JSONParser.parse(document)) } catch let error as JSONParser.Error { parsed = .failure(error) } catch { return }
            #expect(parsed == expected)
            // The same bytes as a key: the reader's keys are cut by the same run.
            let key = Array("{".utf8) + document + Array(":1}".utf8)
            let read: Result<String, JSONParser.Error>
            do {
                read = .success(
                    try JSONReader.read(key) { reader in
                        var members = try reader.beginObject()
                        let text = try reader.nextKey(&members)?.string ?? ""
                        try reader.skipValue()
                        _ = try reader.nextKey(&members)
                        return text
                    })
            } catch let error as JSONParser.Error {
                read = .failure(error)
            } catch {
                Issue.record("untyped error \(error)")
                return
            }
            switch (expected, read) {
            case (.success(.string(let text)), .success(let keyText)): #expect(keyText == text)
            case (.failure(let error), .failure(let keyError)): #expect(keyError.reason == error.reason)
            default: Issue.record("key \(read) where the string gave \(expected)")
            }
        }
    }

    /// An escape at every place of a word: the run before it is plain, the escape is read, the run after it too.
    @Test(arguments: 0...17)
    func escapesAreFoundAtEveryPlace(place: Int) throws {
        let before = String(repeating: "a", count: place), after = String(repeating: "b", count: 17 - place)
        #expect(try JSONParser.parse(Array(("\"" + before + "\\n" + after + "\"").utf8)) == .string(before + "\n" + after))
        #expect(try JSONParser.parse(Array(("\"" + before + "\\u00e4" + after + "\"").utf8)) == .string(before + "ä" + after))
    }
}
