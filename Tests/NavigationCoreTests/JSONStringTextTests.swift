import NavigationCore
import PropertyBased
import Testing

/// Strings in navd's JSON, written in runs between the bytes to escape: what the escaping rule says, byte by byte.
@Suite("JSON string text")
struct JSONStringTextTests {
    /// The rule, a byte at a time: quotes around, `"` and `\` after a backslash, `\n`, `\r`, `\t`, other control
    /// characters as `\u00XX`, everything else (UTF-8 included) as it is.
    static func expected(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\n"): out += Array(#"\n"#.utf8)
            case UInt8(ascii: "\r"): out += Array(#"\r"#.utf8)
            case UInt8(ascii: "\t"): out += Array(#"\t"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }

    static let pieces = ["a", "Mannerheimintie", " ", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1f}", "é", "€", "🚗", "\u{7f}", "/"]

    /// Texts of many lengths, with and without bytes to escape (first, last, together), each written after text
    /// already in the buffer.
    @Test func textsAreWrittenByTheRule() async {
        let text = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...140).map { $0.map { Self.pieces[$0] }.joined() }
        await propertyCheck(count: 2000, input: text) { text in
            var out = JSONOutput()
            out.append("prefix,")
            JSONText.appendString(text, into: &out)
            #expect(out.bytes == Array("prefix,".utf8) + Self.expected(text))
        }
    }

    @Test(arguments: [0, 1, 125, 126, 127, 128, 300])
    func plainTextsReadBackAsThemselves(length: Int) throws {
        let text = String(repeating: "x", count: length)
        let out = JSONOutput.bytes { JSONText.appendString(text, into: &$0) }
        #expect(out == Self.expected(text))
        let read = try JSONParser.parse(out)
        #expect(read.stringValue == text)
    }
}
