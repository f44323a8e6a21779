import NavigationCore
import PropertyBased
import Testing

@testable import NavigationDaemon

/// navd's TOML 1.0 reader: the values a configuration can hold, and every kind of mistake refused with its place.
@Suite struct TOMLParserTests {
    static func parse(_ text: String) throws -> JSONValue { try TOMLParser.parse(text) }

    @Test func tablesKeysAndValues() throws {
        let value = try Self.parse(
            """
            # navd.toml
            title = "navd"  # a comment after a value
            [gnss]
            source = 'serial'
            device = "/dev/ttyACM0"
            rates = [1, 5, 10,]
            [routing.valhalla]
            url = "http://127.0.0.1:8002"
            site."port" = 8002
            [[routing.fallback]]
            engine = "osrm"
            [[routing.fallback]]
            engine = "graphhopper"
            options = { costing = "auto", avoid = { tolls = true } }
            """)
        #expect(value["title"] == "navd")
        #expect(value["gnss"]?["source"] == "serial")
        #expect(value["gnss"]?["rates"] == .array([1, 5, 10]))
        #expect(value["routing"]?["valhalla"]?["site"]?["port"] == 8002)
        #expect(value["routing"]?["fallback"]?.arrayValue?.map { $0["engine"] } == ["osrm", "graphhopper"])
        #expect(value["routing"]?["fallback"]?.arrayValue?.last?["options"]?["avoid"]?["tolls"] == .bool(true))
    }

    @Test(arguments: [
        ("a = 1_000", 1000.0), ("a = -17", -17), ("a = +3", 3), ("a = 0x1F", 31), ("a = 0o17", 15), ("a = 0b101", 5),
        ("a = 3.25", 3.25), ("a = -1e3", -1000), ("a = 5E+2", 500), ("a = 6.626e-34", 6.626e-34), ("a = 1_0.5", 10.5),
    ])
    func numbers(_ text: String, _ expected: Double) throws {
        #expect(try Self.parse(text)["a"] == .number(expected))
    }

    @Test func specialFloatsDatesAndBooleans() throws {
        let value = try Self.parse("a = inf\nb = -inf\nc = true\nd = 1979-05-27T07:32:00Z\ne = 1979-05-27 07:32:00.5\nf = 07:32:00\ng = 1979-05-27")
        #expect(value["a"] == .number(.infinity))
        #expect(value["b"] == .number(-.infinity))
        #expect(value["c"] == .bool(true))
        #expect(value["d"] == "1979-05-27T07:32:00Z")
        #expect(value["e"] == "1979-05-27 07:32:00.5")
        #expect(value["f"] == "07:32:00")
        #expect(value["g"] == "1979-05-27")
    }

    @Test func strings() throws {
        let value = try Self.parse(
            #"""
            basic = "tab\there \"quoted\" \u00e9 \U0001F697"
            literal = 'C:\path\no escapes'
            multi = """
            line one
            line two \
                continued"""
            raw = '''
            keeps \n as is
            '''
            "quoted key" = 1
            """#)
        #expect(value["basic"] == "tab\there \"quoted\" é 🚗")
        #expect(value["literal"] == #"C:\path\no escapes"#)
        #expect(value["multi"] == "line one\nline two continued")
        #expect(value["raw"]?.stringValue == #"keeps \n as is"# + "\n")
        #expect(value["quoted key"] == 1)
    }

    struct Mistake: CustomTestStringConvertible, Sendable {
        var text: String
        var line: Int
        var column: Int
        var says: String
        var testDescription: String { text }
    }

    @Test(arguments: [
        Mistake(text: "a = 1\na = 2", line: 2, column: 6, says: "defined twice"),
        Mistake(text: "[t]\n[t]", line: 2, column: 4, says: "defined twice"),
        Mistake(text: "a = 1\n[a]", line: 2, column: 4, says: "already defined"),
        Mistake(text: "a = \"open", line: 1, column: 10, says: "not closed"),
        Mistake(text: "a = 01", line: 1, column: 5, says: "not a TOML value"),
        Mistake(text: "a = hello", line: 1, column: 5, says: "a string needs quotes"),
        Mistake(text: "a = 1 b = 2", line: 1, column: 7, says: "end of the line"),
        Mistake(text: "a = [1, 2", line: 1, column: 10, says: "not closed"),
        Mistake(text: "a = { b = 1,\n c = 2 }", line: 1, column: 13, says: "expected a key"),
        Mistake(text: "a = \"\\q\"", line: 1, column: 6, says: "invalid escape"),
        Mistake(text: "a = 1__0", line: 1, column: 5, says: "not a TOML value"),
        Mistake(text: "x = { a = 1 }\nx.b = 2", line: 2, column: 8, says: "cannot take more keys"),
        Mistake(text: "= 1", line: 1, column: 1, says: "expected a key"),
        Mistake(text: "a = " + String(repeating: "[", count: 200), line: 1, column: 133, says: "nested deeper than 128"),
        Mistake(text: "[" + Array(repeating: "a", count: 200).joined(separator: ".") + "]", line: 1, column: 257, says: "more than 128 parts"),
    ])
    func mistakesAreRefusedWithTheirPlace(_ mistake: Mistake) {
        #expect {
            _ = try Self.parse(mistake.text)
        } throws: { error in
            guard let failure = error as? TOMLParser.Failure else { return false }
            return failure.line == mistake.line && failure.column == mistake.column && failure.message.contains(mistake.says)
        }
    }

    /// Whatever the bytes, the parser answers with a value or a failure that says where: it never traps or hangs.
    @Test func arbitraryTextNeverTraps() async {
        let pieces = ["[", "]", "[[", "=", "a", ".", "\"", "'", "\"\"\"", "'''", "{", "}", ",", "\n", " ", "#", "1", "-", "_", "\\", "x = ", "é"]
        let text = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...40).map { $0.map { pieces[$0] }.joined() }
        await propertyCheck(count: 1000, input: text) { text in
            do {
                _ = try TOMLParser.parse(text)
            } catch let failure as TOMLParser.Failure {
                #expect(failure.line >= 1 && failure.column >= 1 && !failure.message.isEmpty)
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }
}
