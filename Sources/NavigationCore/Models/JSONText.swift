/// JSON text as navd writes every line: object keys sorted (`leading` keys first where asked), whole numbers
/// below 10^15 without a fraction, other numbers in Swift's shortest round-trip form, non-finite numbers as
/// `null`, and strings with only the escapes JSON requires.
///
/// One writer for ``JSONValue`` trees (``append(_:into:)``) and for ``JSONTextEncoder``, so both write the same
/// bytes for the same value.
public enum JSONText {
    /// Appends `value` as JSON text.
    public static func append(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: appendNull(into: &out)
        case .bool(let flag): out.append(contentsOf: flag ? Self.trueText : Self.falseText)
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
    private static func appendSortedObject(_ object: [String: JSONValue], into out: inout [UInt8]) {
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
        _ object: [String: JSONValue], encoded: [String: [UInt8]] = [:], leading: [String], into out: inout [UInt8]
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

    public static func appendNull(into out: inout [UInt8]) {
        out.append(contentsOf: Self.nullText)
    }

    /// Whole numbers below 10^15 as integers (ids and counts stay integers), others in shortest round-trip form.
    public static func appendNumber(_ number: Double, into out: inout [UInt8]) {
        guard number.isFinite else { return appendNull(into: &out) }
        if number == number.rounded(), abs(number) < 1e15 {
            appendInteger(Int64(number), into: &out)
        } else {
            var text = number.description
            text.withUTF8 { out.append(contentsOf: $0) }
        }
    }

    /// Decimal digits of `value`, without a heap allocation.
    public static func appendInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[index...])
        }
    }

    /// A JSON string: `"`, `\` and control characters escaped, everything else (UTF-8 included) as is.
    public static func appendString(_ text: String, into out: inout [UInt8]) {
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

    private static func appendEscape(_ byte: UInt8, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
        case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }

    private static let nullText: [UInt8] = Array("null".utf8)
    private static let trueText: [UInt8] = Array("true".utf8)
    private static let falseText: [UInt8] = Array("false".utf8)
}
