import PropertyBased
import Testing

@testable import NMEA

/// The field readers work on bytes and turn short decimals into doubles themselves (a whole number divided by a
/// power of ten); what they read must be exactly what `Double(_:)` and `Int(_:)` read from the same text, and
/// nothing they refuse may be something those accept as NMEA's format.
@Suite("NMEA field readers")
struct FieldReaderTests {
    /// Texts built from the bytes a decimal field holds and a few it must not: signs, digits, points, an exponent.
    static let pieces = ["0", "1", "5", "9", "0", "7", ".", "-", "+", "e", "00", "123", "99999"]

    static func bytes(_ text: String) -> NMEAField { ArraySlice(text.utf8) }

    /// Every decimal that NMEA's format allows reads as the same double as `Double(_:)` gives, to the bit (the
    /// sign of zero included); every other text reads as nil.
    @Test func decimalsReadAsDoubleReadsThem() async {
        let text = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...12).map { $0.map { Self.pieces[$0] }.joined() }
        await propertyCheck(count: 3000, input: text) { text in
            let read = NMEAFields.number(Self.bytes(text))
            let isNMEADecimal = text.wholeMatch(of: /[+-]?[0-9]*\.?[0-9]*/) != nil && text.contains(where: \.isNumber)
            if isNMEADecimal {
                #expect(read?.bitPattern == Double(text)?.bitPattern, "\(text)")
            } else {
                #expect(read == nil, "\(text)")
            }
        }
    }

    @Test(arguments: [
        "0.1", "0.3", "1.7976931348623157", "4807.038", "12118.85628", "-0", "-0.0", "+5.", ".5", "123456789012345",
        "1234567890123456", "0.00000000000000000001", "99999999999999999999.5", "545.4", "0.029",
    ])
    func knownDecimals(text: String) {
        #expect(NMEAFields.number(Self.bytes(text))?.bitPattern == Double(text)?.bitPattern)
    }

    /// A time's fraction reads as `Double("0." + digits)` does, for short and long fractions.
    @Test(arguments: ["123519", "123519.5", "000941.00", "235959.999", "120000.1234567890123456789", "081836.07"])
    func timesOfDay(text: String) throws {
        let seconds = try #require(NMEAFields.timeOfDay(Self.bytes(text)))
        let (hours, minutes, wholeSeconds) = (Int(text.prefix(2))!, Int(text.dropFirst(2).prefix(2))!, Int(text.dropFirst(4).prefix(2))!)
        let fraction = text.count > 7 ? Double("0" + text.dropFirst(6))! : 0
        #expect(seconds == Double(hours * 3600 + minutes * 60 + wholeSeconds) + fraction)
    }

    @Test(arguments: ["12351", "123519.", "1235x9", "243000", "126000", "123519.1e2", "123519,5", "-23519"])
    func notTimesOfDay(text: String) {
        #expect(NMEAFields.timeOfDay(Self.bytes(text)) == nil)
    }

    /// Whole numbers: what `Int(_:)` reads, up to nine digits after an optional sign.
    @Test func integersReadAsIntReadsThem() async {
        let text = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...6).map { $0.map { Self.pieces[$0] }.joined() }
        await propertyCheck(count: 3000, input: text) { text in
            let digits = text.drop { $0 == "-" || $0 == "+" }
            let fits = text.wholeMatch(of: /[+-]?[0-9]{1,9}/) != nil
            #expect(NMEAFields.integer(Self.bytes(text)) == (fits ? Int(text) : nil), "\(text) (\(digits.count) after the sign)")
        }
    }

    @Test func checksumsAreTwoHexadecimalDigits() throws {
        let body = "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
        let checksum = NMEAWriter.checksum(body)
        #expect(try NMEASentence.parse(Array("$\(body)*\(checksum)".utf8)).hadChecksum)
        #expect(try NMEASentence.parse(Array("$\(body)*\(checksum.lowercased())".utf8)).hadChecksum)
        // A sign is no hexadecimal digit, even where `UInt8(_:radix:)` would read it.
        #expect(throws: NMEASentenceError.badChecksum) { try NMEASentence.parse(Array("$\(body)*+\(checksum.suffix(1))".utf8)) }
    }

    /// Sentences are equal when their bytes are, wherever they stood in the line they were read from.
    @Test func equalityIsByTheBytes() throws {
        let line = "$GPVTG,45.0,T,,M,1.0,N,1.9,K,A*" + NMEAWriter.checksum("GPVTG,45.0,T,,M,1.0,N,1.9,K,A")
        let plain = try NMEASentence.parse(Array(line.utf8))
        let afterNoise = try NMEASentence.parse(Array(("xx\u{1}" + line + "\r\n").utf8))
        #expect(plain == afterNoise)
        #expect(plain.hashValue == afterNoise.hashValue)
        #expect(afterNoise.fields == ["45.0", "T", "", "M", "1.0", "N", "1.9", "K", "A"])
        #expect(afterNoise.fieldCount == 9 && afterNoise.talker == "GP" && afterNoise.type == "VTG")
    }
}
