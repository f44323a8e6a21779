/// JSON text as navd writes every line: object keys sorted (`leading` keys first where asked), whole numbers
/// below 10^15 without a fraction, other numbers in Swift's shortest round-trip form, non-finite numbers as
/// `null`, and strings with only the escapes JSON requires.
///
/// One writer for ``JSONValue`` trees (``append(_:into:)``) and for ``JSONTextEncoder``, so both write the same
/// bytes for the same value.
public enum JSONText {
    /// Appends `value` as JSON text.
    public static func append(_ value: JSONValue, into out: inout JSONOutput) {
        switch value {
        case .null: appendNull(into: &out)
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .number(let number): appendNumber(number, into: &out)
        case .string(let text): appendString(text, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object): appendSortedObject(object, into: &out)
        }
    }

    /// An object with its keys sorted. Most objects in a route are small (a segment's `maxspeed`, a waypoint's engine
    /// keys), and an array of members made and sorted per object was most of their cost: up to eight members are
    /// written smallest key first by scanning the object again for each, with nothing allocated.
    private static func appendSortedObject(_ object: [String: JSONValue], into out: inout JSONOutput) {
        guard object.count <= 8 else { return appendObject(object, leading: [], into: &out) }
        out.append(UInt8(ascii: "{"))
        var previous: String?
        for position in 0..<object.count {
            var next: Dictionary<String, JSONValue>.Index?
            var index = object.startIndex
            while index != object.endIndex {
                let key = object[index].key
                if previous.map({ $0 < key }) ?? true, next.map({ key < object[$0].key }) ?? true { next = index }
                index = object.index(after: index)
            }
            let member = object[next!]
            if position > 0 { out.append(UInt8(ascii: ",")) }
            appendString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            append(member.value, into: &out)
            previous = member.key
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends an object with the keys of `leading` first (those present, in that order), then the rest sorted.
    /// `encoded` adds members whose values are JSON text already (written as they are, in key order with the
    /// others): a large value encoded once, straight to text, is not turned into a tree to be written again.
    public static func appendObject(
        _ object: [String: JSONValue], encoded: [String: [UInt8]] = [:], leading: [String], into out: inout JSONOutput
    ) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ key: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            appendString(key, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        func member(_ name: String) {
            if let text = encoded[name] {
                key(name)
                out.append(contentsOf: text)
            } else if let value = object[name] {
                key(name)
                append(value, into: &out)
            }
        }
        for name in leading { member(name) }
        if encoded.isEmpty {
            let rest = leading.isEmpty ? Array(object) : object.filter { !leading.contains($0.key) }
            for (name, value) in rest.sorted(by: { $0.key < $1.key }) {
                key(name)
                append(value, into: &out)
            }
        } else {
            var rest = Set(object.keys).union(encoded.keys)
            rest.subtract(leading)
            for name in rest.sorted() { member(name) }
        }
        out.append(UInt8(ascii: "}"))
    }

    public static func appendNull(into out: inout JSONOutput) {
        out.append("null")
    }

    /// Whole numbers below 10^15 as integers (ids and counts stay integers), others in shortest round-trip form.
    public static func appendNumber(_ number: Double, into out: inout JSONOutput) {
        guard number.isFinite else { return appendNull(into: &out) }
        if number.magnitude < 1e15 {
            // Whole when its part toward zero is itself (a conversion, not a call to the C library's `round`).
            let whole = Int64(number)
            if Double(whole) == number { return appendInteger(whole, into: &out) }
            if appendShortDecimal(number, into: &out) { return }
        }
        var text = number.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Writes a finite number that is not whole as `description` writes it, when that is a decimal of at most
    /// nine fraction digits (navd's own numbers are rounded to such: coordinates to 1e-7 degrees, distances to
    /// centimetres); false, writing nothing, otherwise. `description` (the shortest text that reads back as the
    /// same double) took about 900 instructions a number, a `trip_state` has some twenty, a route's event thousands.
    ///
    /// Why it is `description`'s text: k is the most fraction digits (up to nine) with |number| × 10^k below 2^40,
    /// and n the nearest whole number to that product. Below 2^40, at most one k-digit decimal reads as the number
    /// (they lie 10^-k apart, more than the number's spacing), and the product's rounding error is too small to miss
    /// it, so n is that decimal if there is one: it is, exactly when n / 10^k, divided in floating point, is the
    /// number again (IEEE division is correctly rounded and n and 10^k are exact, so that quotient is the double the
    /// text n·10^-k reads as). Every shorter decimal that reads as the number is n with zeros struck off its end, so
    /// the shortest is n with all of them struck (keeping one fraction digit), which is the text `description`
    /// writes. One product and one division, where trying k = 1, 2, ... took up to nine of each. Property-tested
    /// against `description`.
    static func appendShortDecimal(_ number: Double, into out: inout JSONOutput) -> Bool {
        let magnitude = number.magnitude
        // `description` writes smaller numbers with an exponent.
        guard magnitude >= 1e-3 else { return false }
        var fractionDigits = 9
        var scale = 1e9
        var scaled = magnitude * scale
        while scaled >= 0x1p40 {
            fractionDigits -= 1
            if fractionDigits == 0 { return false }
            scale /= 10  // exact: the quotient, a power of ten below 10^9, is a double
            scaled = magnitude * scale
        }
        // The nearest whole number (the product is below 2^40, so adding a half is exact).
        var whole = UInt64(scaled + 0.5)
        guard Double(whole) / scale == magnitude else { return false }
        while fractionDigits > 1, whole % 10 == 0 {
            whole /= 10
            fractionDigits -= 1
        }
        if number < 0 { out.append(UInt8(ascii: "-")) }
        appendDecimal(whole, fractionDigits: fractionDigits, into: &out)
        return true
    }

    /// 10^`exponent` for 0...9 (a decimal's fraction digits).
    private static func wholePowerOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        default: 1_000_000_000
        }
    }

    /// `digits` × 10^-`fractionDigits` as `12.345` or `0.05` (at least one digit before the point), or with no
    /// fraction digits as the whole number `42` (`fractionDigits`: 0...9). Without a heap allocation, two digits at a
    /// time from the end.
    private static func appendDecimal(_ digits: UInt64, fractionDigits: Int, into out: inout JSONOutput) {
        // 24 bytes: the 20 digits of any UInt64, or up to 13 digits (below 2^40), a point and padding zeros.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { bytes in
            let buffer = bytes.bindMemory(to: UInt8.self)
            var index = buffer.count
            var whole = digits
            if fractionDigits > 0 {
                let divisor = wholePowerOfTen(fractionDigits)
                var fraction = whole % divisor
                whole /= divisor
                var left = fractionDigits
                while left >= 2 {
                    index -= 2
                    writePair(Int(fraction % 100), at: index, in: buffer)
                    fraction /= 100
                    left -= 2
                }
                if left == 1 {
                    index -= 1
                    buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction)
                }
                index -= 1
                buffer[index] = UInt8(ascii: ".")
            }
            while whole >= 100 {
                index -= 2
                writePair(Int(whole % 100), at: index, in: buffer)
                whole /= 100
            }
            if whole >= 10 {
                index -= 2
                writePair(Int(whole), at: index, in: buffer)
            } else {
                index -= 1
                buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: whole)
            }
            // As a typed buffer: appended as one copy, not byte by byte through a raw slice's iterator.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index...]))
        }
    }

    /// The two digits of `pair` (0...99) at `index` and the byte after it.
    @inline(__always)
    private static func writePair(_ pair: Int, at index: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
        let digits: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        buffer[index] = digits.utf8Start[2 &* pair]
        buffer[index &+ 1] = digits.utf8Start[2 &* pair &+ 1]
    }

    /// Decimal digits of `value`, without a heap allocation.
    public static func appendInteger(_ value: Int64, into out: inout JSONOutput) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude, fractionDigits: 0, into: &out)
    }

    /// A JSON string: `"`, `\` and control characters escaped, everything else (UTF-8 included) as is.
    public static func appendString(_ text: String, into out: inout JSONOutput) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(byte, into: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, into out: inout JSONOutput) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
        case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            out.append("u00")
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
