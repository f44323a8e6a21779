import Foundation
import NavigationCore
import PropertyBased
import Testing

@Suite("The one checked conversion for numbers from outside")
struct CheckedNumberTests {
    /// What attackers and broken peers send: none of these may trap, and none is a whole number in range.
    static let hostile: [Double] = [1e300, -1e300, 1e20, -1e20, .nan, .infinity, -.infinity, 9_223_372_036_854_775_808, 0.5, -0.5]

    @Test(arguments: hostile)
    func hostileNumbersAreNotWholeNumbersInRange(value: Double) {
        #expect(CheckedNumber.whole(value, in: 0...1000) == nil)
        #expect(CheckedNumber.whole(value, in: Int.min...Int.max) == nil)
    }

    @Test(arguments: [1e300, -1e300, Double.nan, Double.infinity, -Double.infinity])
    func hostileMeasuresAreRejected(value: Double) {
        #expect(CheckedNumber.measure(value, in: -1e9...1e9) == nil)
        #expect(CheckedNumber.measure(JSONValue.number(value), in: -1e9...1e9) == nil)
    }

    @Test func negativeZeroIsZero() {
        #expect(CheckedNumber.whole(-0.0, in: 0...10) == 0)
        #expect(CheckedNumber.measure(-0.0, in: 0...10) == 0)
    }

    @Test func boundsAreInclusive() {
        #expect(CheckedNumber.whole(10, in: 0...10) == 10)
        #expect(CheckedNumber.whole(11, in: 0...10) == nil)
        #expect(CheckedNumber.measure(99.99, in: PhysicalRange.hdop) == 99.99)
        #expect(CheckedNumber.measure(100, in: PhysicalRange.hdop) == nil)
        #expect(CheckedNumber.measure(JSONValue.string("5"), in: 0...10) == nil)
        #expect(CheckedNumber.measure(nil, in: 0...10) == nil)
    }

    @Test(arguments: [(1e300, 1 << 53), (-1e300, -(1 << 53)), (Double.nan, -(1 << 53)), (2.5, 3), (-2.5, -3), (41.9, 42)])
    func clampingNeverTraps(value: Double, expected: Int) {
        #expect(CheckedNumber.clampedWhole(value) == expected)
    }

    @Test func clampingFollowsTheRoundingRule() {
        #expect(CheckedNumber.clampedWhole(41.9, rounding: .towardZero) == 41)
        #expect(CheckedNumber.clampedWhole(0.1, rounding: .up, in: 0...50) == 1)
        #expect(CheckedNumber.clampedWhole(1e300, rounding: .up, in: 0...50) == 50)
    }

    /// Any double: whole(_:in:) agrees with Int(exactly:) inside the range, and nothing traps.
    @Test func wholeAgreesWithExactConversion() async {
        await propertyCheck(input: Gen.double(in: -1e20...1e20)) { value in
            let expected = Int(exactly: value).flatMap { (-1000...1000).contains($0) ? $0 : nil }
            #expect(CheckedNumber.whole(value, in: -1000...1000) == expected)
            _ = CheckedNumber.clampedWhole(value)
        }
    }

    /// Formatting a time never traps, whatever the time (the receiver's exponent reached it before).
    @Test(arguments: [1e20, -1e20, Double.nan, Double.infinity, 253_402_300_800.0])
    func timestampsOutsideTheFormattableYearsAreHeld(seconds: Double) {
        let text = ISO8601Timestamp.format(Date(timeIntervalSince1970: seconds))
        #expect(text.count == 24)
    }

    @Test func displayFormsOfHugeNumbersDoNotTrap() {
        #expect(HumanReadable.distance(1e300).hasSuffix("km"))
        #expect(HumanReadable.duration(1e300).hasSuffix("min"))
        let annotation = SegmentAnnotation(values: ["speed": 1e300, "distance": -5, "duration": 12, "maxspeed": ["speed": 1e300]])
        #expect(annotation.speed == nil)
        #expect(annotation.distance == nil)
        #expect(annotation.duration == 12)
        #expect(annotation.maxSpeed == .unknown)
    }
}
