/// The one conversion for numbers that cross navd's boundary (a receiver, gpsd, a routing server, a client, the
/// config, a recording).
///
/// Such a number is a `Double` as it arrives (JSON, TOML, an NMEA field). `Int(someDouble)` traps on NaN, on
/// ±infinity and on anything beyond ±9.2e18, so a finite but huge number from outside (`1e300`) would stop the
/// process. Every number from outside passes through one of these functions instead, with the range the value
/// may take (``PhysicalRange`` names the physical ones), and the caller turns `nil` into its boundary's error:
/// "no fix" for a receiver, `invalid_field` for a client, `invalid_response` for a server, a configuration
/// error naming the key, a decode error for a recording.
public enum CheckedNumber {
    /// `value` as an `Int` when it is a whole number inside `range`; nil for NaN, ±infinity, a fraction (`1.5`)
    /// or anything outside `range` (`1e300`, `-1e300`, 2^63).
    public static func whole(_ value: Double, in range: ClosedRange<Int>) -> Int? {
        // Int(exactly:) is nil for NaN, infinities, fractions and anything Int cannot hold: it never traps.
        guard let exact = Int(exactly: value), range.contains(exact) else { return nil }
        return exact
    }

    /// `value` as an `Int` when it is a whole number inside `range`; nil otherwise (see ``whole(_:in:)-(Double,_)``).
    public static func whole(_ value: JSONValue?, in range: ClosedRange<Int>) -> Int? {
        value?.doubleValue.flatMap { whole($0, in: range) }
    }

    /// `value` when it is finite and inside `range`; nil otherwise.
    public static func measure(_ value: Double, in range: ClosedRange<Double>) -> Double? {
        // NaN fails every comparison, so `contains` is false for it; infinities are outside any finite range.
        range.contains(value) && value.isFinite ? value : nil
    }

    /// `value` when it is a finite number inside `range`; nil for anything else, a string or null included.
    public static func measure(_ value: JSONValue?, in range: ClosedRange<Double>) -> Double? {
        value?.doubleValue.flatMap { measure($0, in: range) }
    }

    /// `value` rounded by `rule` (to the nearest by default; `.towardZero` is what `Int(_:)` does) and held inside `range`, for writing a number that navd has
    /// already accepted into text or a request (a distance in a banner, a radius in a URL): it never traps,
    /// whatever `value` is. NaN becomes the range's lower bound. Not a check: a value that must be in range is
    /// checked with ``whole(_:in:)-(Double,_)`` or ``measure(_:in:)-(Double,_)`` where it enters navd.
    public static func clampedWhole(
        _ value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero, in range: ClosedRange<Int> = -(1 << 53)...(1 << 53)
    ) -> Int {
        guard !value.isNaN else { return range.lowerBound }
        let rounded = value.rounded(rule)
        if rounded <= Double(range.lowerBound) { return range.lowerBound }
        if rounded >= Double(range.upperBound) { return range.upperBound }
        return Int(rounded)
    }
}

/// The checks of one report from outside whose values may each be absent (a gpsd report, a gpsd log's TPV):
/// each value is nil when absent, checked with ``CheckedNumber`` when present, and ``failed`` remembers whether
/// any present value was outside its range, which makes the whole report untrustworthy (no fix).
public struct RangeCheck: Sendable {
    /// True once a present value was outside its range.
    public private(set) var failed = false

    public init() {}

    /// `value` inside `range`; nil when it is absent (nil, or NaN: libgps's "not reported") or outside.
    public mutating func measure(_ value: Double?, in range: ClosedRange<Double>) -> Double? {
        guard let value, !value.isNaN else { return nil }
        return record(CheckedNumber.measure(value, in: range))
    }

    /// `value` inside `range`; nil when it is absent (nil or JSON null) or not such a number.
    public mutating func measure(_ value: JSONValue?, in range: ClosedRange<Double>) -> Double? {
        guard let value, value != .null else { return nil }
        return record(CheckedNumber.measure(value, in: range))
    }

    /// `value` as a whole number inside `range`; nil when it is absent (nil) or not such a number.
    public mutating func whole(_ value: Double?, in range: ClosedRange<Int>) -> Int? {
        guard let value else { return nil }
        return record(CheckedNumber.whole(value, in: range))
    }

    /// `value` as a whole number inside `range`; nil when it is absent (nil or JSON null) or not such a number.
    public mutating func whole(_ value: JSONValue?, in range: ClosedRange<Int>) -> Int? {
        guard let value, value != .null else { return nil }
        return record(CheckedNumber.whole(value, in: range))
    }

    private mutating func record<T>(_ checked: T?) -> T? {
        if checked == nil { failed = true }
        return checked
    }
}
