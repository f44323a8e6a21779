import Foundation
import NavigationCore
import PropertyBased
import Testing

/// Numbers in navd's JSON: whole ones below 10^15 as integers, the others as `description` writes them (the
/// shortest text that reads back as the same double), which the decimal fast path must match byte for byte.
@Suite("JSON number text")
struct JSONNumberTextTests {
    static func written(_ number: Double) -> String {
        String(decoding: JSONOutput.bytes { JSONText.appendNumber(number, into: &$0) }, as: UTF8.self)
    }

    /// What navd wrote before the fast path, computed independently of it.
    static func expected(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : number.description
    }

    /// Numbers as navd makes them: a whole number of 10^-k, for k up to 12 (past the fast path's nine).
    @Test func roundedDecimalsAreWrittenAsDescriptionWritesThem() async {
        await propertyCheck(count: 4000, input: Gen.int(in: -(1 << 50)...(1 << 50)), Gen.int(in: 0...12)) { units, fractionDigits in
            let number = Double(units) / pow(10, Double(fractionDigits))
            #expect(Self.written(number) == Self.expected(number))
            #expect(Double(Self.written(number)) == number)
        }
    }

    /// Coordinates, speeds and distances rounded as navd rounds them (1e-7 degrees, centimetres, tenths).
    @Test func roundedMeasurementsAreWrittenAsDescriptionWritesThem() async {
        await propertyCheck(count: 3000, input: Gen.double(in: -180...180), Gen.double(in: 0...2_000_000)) { degrees, meters in
            for number in [(degrees * 1e7).rounded() / 1e7, (meters * 100).rounded() / 100, (degrees * 10).rounded() / 10, meters / 3] {
                #expect(Self.written(number) == Self.expected(number))
            }
        }
    }

    /// Any double at all, from its bits: tiny, huge, subnormal, negative zero, infinities and NaN included.
    @Test func anyDoubleIsWrittenAsBefore() async {
        await propertyCheck(count: 5000, input: Gen.int(in: Int.min...Int.max)) { bits in
            let number = Double(bitPattern: UInt64(bitPattern: Int64(bits)))
            #expect(Self.written(number) == Self.expected(number))
        }
    }

    /// The fast path's edges: where `description` turns to an exponent, its 2^40 bound, nine fraction digits, and
    /// the neighbours of each.
    @Test(arguments: [
        0.001, 0.0001, 0.00123, 0.1 + 0.2, 1.0 / 3, 0.5, 60.1699123, 24.9384, -0.05, 1099.123456789, 1099.5116277, 0x1p40 / 10,
        0x1p40 / 1e9, 123_456_789_012.5, 1e15 + 0.5, 9_007_199_254_740_993, 2.675, 1e-7, 0.1, 0.7, 99.99, 100.01,
    ])
    func edgesAreWrittenAsDescriptionWritesThem(number: Double) {
        for candidate in [number, number.nextUp, number.nextDown, -number, -number.nextUp] {
            #expect(Self.written(candidate) == Self.expected(candidate))
        }
    }

    /// Whole numbers share the decimals' digit writer (no point): every width up to the 19 digits of Int64's ends,
    /// each power of ten and the number below it (where the digits take one more pair or one more single).
    @Test(arguments: [Int64.min, Int64.min + 1, -1_000_000_000_000_000_000, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_000_000_007, Int64.max]
        + (1...18).flatMap { exponent -> [Int64] in
            let power = (0..<exponent).reduce(Int64(1)) { product, _ in product * 10 }
            return [power - 1, power, -power]
        })
    func integersAreWrittenAsTheirDigits(value: Int64) {
        let out = JSONOutput.bytes { JSONText.appendInteger(value, into: &$0) }
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }
}
