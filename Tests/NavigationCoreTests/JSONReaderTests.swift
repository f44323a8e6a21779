import NavigationCore
import PropertyBased
import Testing

@Suite("JSON reader")
struct JSONReaderTests {
    /// A document read value by value: the same tree as the parser builds, whatever it holds.
    static func treeByReading(_ reader: inout JSONReader) throws -> JSONValue {
        switch try reader.kind() {
        case .object:
            var object: [String: JSONValue] = [:]
            var members = try reader.beginObject()
            while let key = try reader.nextKey(&members) { object[key.string] = try treeByReading(&reader) }
            return .object(object)
        case .array:
            var array: [JSONValue] = []
            var items = try reader.beginArray()
            while try reader.nextItem(&items) { array.append(try treeByReading(&reader)) }
            return .array(array)
        case .string: return .string(try reader.readString())
        case .number: return .number(try reader.readNumber())
        case .bool: return .bool(try reader.readBool())
        case .null:
            #expect(try reader.readNull())
            return .null
        }
    }

    static let documents = [
        #"{"a":[1,-2.5,3e2,true,false,null,"x"]}"#, "  [ ]  ", "{}", #" { "a" : { } , "b" : [ [ ] , { "c" : null } ] } "#,
        #""caf\u00e9 \ud83d\ude97 \"q\" \\ \/ \n""#, "24.938396", #"{"k\u0065y":1,"key":2}"#, "\"Pitkänsillanranta\"",
        #"{"Töölö":"✓","x":[{"y":[{"z":[]}]}]}"#,
    ]

    @Test(arguments: documents)
    func readsTheSameTreeAsTheParser(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(try JSONReader.read(bytes, Self.treeByReading) == JSONParser.parse(bytes))
        #expect(try JSONReader.read(bytes) { reader in try reader.readValue() } == JSONParser.parse(bytes))
        #expect(JSONReader.firstError(in: bytes) == nil)
    }

    /// Skipping checks as strictly as parsing: the same error, at the same place, for every broken document.
    @Test(arguments: [
        "", "{", "[1,", #"{"a" 1}"#, #"{"a":1,}"#, "[1 2]", "01", "1.", "-", "1e", "tru", "nul", #""abc"#, #""\x""#,
        #""\ud83d""#, #""\u12G4""#, "\"a\u{1}b\"", "{} {}", "[1]]", "NaN", "1e999", #"{"a":[1,]}"#, #"{,}"#, "[,1]",
        #"{"a":1 "b":2}"#, #"{1:2}"#, "[\"\u{1}\"]",
    ])
    func findsTheParsersErrorInBrokenDocuments(text: String) {
        let bytes = Array(text.utf8)
        var parserError: JSONParser.Error?
        do { _ = try JSONParser.parse(bytes) } catch let error as JSONParser.Error { parserError = error } catch {}
        #expect(parserError != nil)
        #expect(JSONReader.firstError(in: bytes) == parserError)
    }

    /// A number skipped by its grammar alone (no exponent, fewer than 300 digits) or by the full scan: accepted and
    /// refused exactly as the parser does, with the same error at the same place, at every boundary of the two.
    @Test(arguments: [
        "0", "-0", "01", "-01", "00", "-", "-a", "1.", "1.e5", "1.5", "-0.25", "0.000", "1e5", "1E+5", "1e-5", "1e400",
        "-1e400", "12345678901234567890", "1.2345678901234567890123", ".5", "+1", "1..2", "1.2.3", "0x10", "-.5",
        String(repeating: "9", count: 299), String(repeating: "9", count: 300), String(repeating: "9", count: 308),
        String(repeating: "9", count: 309), String(repeating: "9", count: 400), "0." + String(repeating: "1", count: 400),
        "-" + String(repeating: "9", count: 320),
    ])
    func skipsANumberAsTheParserReadsIt(number: String) {
        for text in [number, "[\(number)]", "[\(number),1]", #"{"a":\#(number)}"#] {
            let bytes = Array(text.utf8)
            var parserError: JSONParser.Error?
            do { _ = try JSONParser.parse(bytes) } catch let error as JSONParser.Error { parserError = error } catch {}
            #expect(JSONReader.firstError(in: bytes) == parserError, "\(text.prefix(40))")
        }
    }

    @Test(arguments: [[0xFF, 0xFE], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x80]] as [[UInt8]])
    func malformedUTF8IsAnErrorInKeysAndSkippedStrings(sequence: [UInt8]) {
        let inKey = Array(#"{""#.utf8) + sequence + Array(#"":1}"#.utf8)
        let inSkippedValue = Array(#"{"a":[""#.utf8) + sequence + Array(#""]}"#.utf8)
        for bytes in [inKey, inSkippedValue] {
            #expect(JSONReader.firstError(in: bytes) != nil)
        }
    }

    @Test func limitsNestingLikeTheParser() {
        let deep = Array((String(repeating: "[", count: 300) + String(repeating: "]", count: 300)).utf8)
        #expect(JSONReader.firstError(in: deep)?.reason == "nesting deeper than \(JSONParser.maximumDepth) levels")
        let fine = Array((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8)
        #expect(JSONReader.firstError(in: fine) == nil)
        // A tree read below open containers counts them too.
        let mixed = Array((String(repeating: "[", count: 200) + "{\"a\":" + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}" + String(repeating: "]", count: 200)).utf8)
        #expect(throws: JSONParser.Error.self) {
            try JSONReader.read(mixed) { reader in
                for _ in 0..<200 {
                    var items = try reader.beginArray()
                    #expect(try reader.nextItem(&items))
                }
                var members = try reader.beginObject()
                _ = try reader.nextKey(&members)
                return try reader.readValue()
            }
        }
    }

    @Test func keysMatchByTheirDecodedText() throws {
        let matched = try JSONReader.read(Array(#"{"na\u006de":1,"named":2,"nam":3,"":4,"Töölö":5}"#.utf8)) { reader -> [String] in
            var names: [String] = []
            var members = try reader.beginObject()
            while let key = try reader.nextKey(&members) {
                switch key {
                case "name": names.append("name")
                case "": names.append("empty")
                case "Töölö": names.append("Töölö")
                default: names.append("other \(key.string)")
                }
                try reader.skipValue()
            }
            return names
        }
        #expect(matched == ["name", "other named", "other nam", "empty", "Töölö"])
    }

    @Test func askingForTheWrongKindIsAnErrorThatSaysWhere() {
        #expect(throws: JSONParser.Error(reason: "expected a string", offset: 5)) {
            try JSONReader.read(Array(#"{"a":1}"#.utf8)) { reader in
                var members = try reader.beginObject()
                _ = try reader.nextKey(&members)
                return try reader.readString()
            }
        }
        #expect(throws: JSONParser.Error(reason: "unexpected data after the JSON value", offset: 3)) {
            try JSONReader.read(Array("[] []".utf8)) { reader in try reader.skipValue() }
        }
    }

    /// Any printable text: the reader accepts exactly what the parser accepts, and finds the same first error.
    @Test func agreesWithTheParserOnArbitraryText() async {
        let alphabet: [UInt8] = Array(#"{}[],:" 0123456789.-+eEtrufalsn\abc"#.utf8)
        let text = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }.array(of: 0...40)
        await propertyCheck(count: 2000, input: text) { bytes in
            var parserError: JSONParser.Error?
            do { _ = try JSONParser.parse(bytes) } catch let error as JSONParser.Error { parserError = error } catch {}
            #expect(JSONReader.firstError(in: bytes) == parserError)
        }
    }

    /// An array read item by item with `readValue(repeating:)`: the repeats of the item before come back as that
    /// value without a parse.
    static func columnByRepeats(_ reader: inout JSONReader) throws -> JSONValue {
        guard try reader.kind() == .array else { return try reader.readValue() }
        var items = try reader.beginArray()
        var values: [JSONValue] = []
        var repeated = JSONReader.RepeatedValue()
        while try reader.nextItem(&items) { values.append(try reader.readValue(repeating: &repeated)) }
        return .array(values)
    }

    @Test(arguments: [
        #"[{"speed":30,"unit":"km/h"},{"speed":30,"unit":"km/h"},{"speed":300,"unit":"km/h"},{"speed":30,"unit":"km/h"}]"#,
        #"[{"a":1},{"a":1,"b":2},{"a":1},[1],[1,2],[1],{"a":1}, {"a":1},{"a":10}]"#,
        #"[{"unknown":true},{"unknown":true},1,{"unknown":true},"{\"unknown\":true}",{"unknown":true}]"#,
    ])
    func repeatedItemsReadAsTheParserReadsThem(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(try JSONReader.read(bytes, Self.columnByRepeats) == JSONParser.parse(bytes))
    }

    /// Arrays of items drawn from a few small objects and arrays (so that items repeat), with broken text among
    /// them: the same values, or the same first error, as the parser.
    @Test func repeatedItemsAgreeWithTheParserOnArbitraryColumns() async {
        let pieces = [#"{"a":1}"#, #"{"a":1,"b":[2]}"#, "[1]", "[1,2]", "1", #""x""#, ",", "]", "{", "}", " ", #"{"a":1"#, "[{}]"]
        let column = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...12).map { parts -> [UInt8] in
            Array(("[" + parts.joined(separator: ",") + "]").utf8)
        }
        await propertyCheck(count: 2000, input: column) { bytes in
            var parsed: Result<JSONValue, JSONParser.Error>
            do { parsed = .success(try JSONParser.parse(bytes)) } catch let error as JSONParser.Error { parsed = .failure(error) } catch { return }
            var read: Result<JSONValue, JSONParser.Error>
            do { read = .success(try JSONReader.read(bytes, Self.columnByRepeats)) } catch let error as JSONParser.Error { read = .failure(error) } catch { return }
            #expect(read == parsed)
        }
    }
}
