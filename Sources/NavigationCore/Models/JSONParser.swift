/// A strict RFC 8259 JSON parser producing ``JSONValue``.
///
/// Written for routing answers of several megabytes: one pass over the bytes, no error-driven type probing,
/// and a nesting limit so that hostile input cannot exhaust the stack.
public struct JSONParser {
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong, e.g. "unexpected end of input".
        public var reason: String
        /// Byte offset where it was found.
        public var offset: Int

        public init(reason: String, offset: Int) {
            self.reason = reason
            self.offset = offset
        }

        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 256

    // Visible to inlinable code: the reader's small steps (`JSONReader.kind()` and the like) are inlined where a
    // route's fields are read, in another module (reading an answer's fields took 6 % fewer instructions).
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    /// Members and items of the open objects and arrays, innermost last: each container is built once, at its
    /// close, with its exact size (no rehashing or regrowth while it fills).
    private var pendingKeys: [String] = []
    private var pendingValues: [JSONValue] = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
    public static func parse<C: Collection>(_ data: C) throws(Error) -> JSONValue where C.Element == UInt8 {
        let result: Result<JSONValue, Error> =
            data.withContiguousStorageIfAvailable { buffer in
                var parser = JSONParser(bytes: buffer)
                return Result { () throws(Error) in try parser.parseDocument() }
            } ?? Array(data).withUnsafeBufferPointer { buffer in
                var parser = JSONParser(bytes: buffer)
                return Result { () throws(Error) in try parser.parseDocument() }
            }
        return try result.get()
    }

    private mutating func parseDocument() throws(Error) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    @usableFromInline func fail(_ reason: String) -> Error { Error(reason: reason, offset: index) }

    @inlinable mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0a, 0x0d, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(Error) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    /// Past `literal` (`true`, `false` or `null`) at `index`; an error where the text differs or ends.
    @usableFromInline mutating func expectLiteral(_ literal: StaticString) throws(Error) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of input") }
        let expected = UnsafeRawPointer(literal.utf8Start)  // read once: each read asks the literal how it is stored
        let text = UnsafeRawPointer(bytes.baseAddress! + index)  // not nil: the guard found `count` bytes in it
        // The last four bytes as one word (the whole of `true` and `null`), then any before them one by one.
        let tail = count - 4
        precondition(tail >= 0, "a JSON literal has at least four letters")
        guard text.loadUnaligned(fromByteOffset: tail, as: UInt32.self) == expected.loadUnaligned(fromByteOffset: tail, as: UInt32.self)
        else { throw fail("invalid literal") }
        for i in 0..<tail where text.load(fromByteOffset: i, as: UInt8.self) != expected.load(fromByteOffset: i, as: UInt8.self) {
            throw fail("invalid literal")
        }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(Error) -> JSONValue {
        guard try open(depth: depth, closer: UInt8(ascii: "}")) else { return .object([:]) }
        let keysBase = pendingKeys.count
        let valuesBase = pendingValues.count  // an enclosing array's items sit below this object's values
        while true {
            try expectKey()
            let key = try parseString()
            try expectColon()
            let value = try parseValue(depth: depth)
            pendingKeys.append(key)
            pendingValues.append(value)
            if try closes(UInt8(ascii: "}")) {
                let count = pendingKeys.count - keysBase
                var object = [String: JSONValue](minimumCapacity: count)
                for member in 0..<count {
                    object[pendingKeys[keysBase + member]] = pendingValues[valuesBase + member]  // a repeated key: the last one counts
                }
                pendingKeys.removeSubrange(keysBase...)
                pendingValues.removeSubrange(valuesBase...)
                return .object(object)
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(Error) -> JSONValue {
        guard try open(depth: depth, closer: UInt8(ascii: "]")) else { return .array([]) }
        let base = pendingValues.count
        while true {
            let item = try parseValue(depth: depth)
            pendingValues.append(item)
            if try closes(UInt8(ascii: "]")) {
                let array = Array(pendingValues[base...])
                pendingValues.removeSubrange(base...)
                return .array(array)
            }
        }
    }

    // MARK: - A container's steps, shared by parsing and skipping

    /// Past the opening bracket of a container at `depth`: true when an item or member follows, false (past the
    /// closer) when it is empty.
    private mutating func open(depth: Int, closer: UInt8) throws(Error) -> Bool {
        guard depth <= Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == closer {
            index += 1
            return false
        }
        return true
    }

    /// At a member's key (its opening quote), whitespace before it skipped.
    private mutating func expectKey() throws(Error) {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        guard bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
    }

    /// Past the colon after a member's key.
    private mutating func expectColon() throws(Error) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
        index += 1
    }

    /// After an item or a member's value: true past `closer`, false past the comma before the next one.
    private mutating func closes(_ closer: UInt8) throws(Error) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        guard bytes[index] == closer else {
            throw fail(closer == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
        }
        index += 1
        return true
    }

    // MARK: - Skipping

    /// Reads past the next value as ``parseValue(depth:)`` reads it, with the same checks and the same error at the
    /// same place, building nothing. A route answer's members navd does not keep (an intersection's bearings, entries,
    /// weights and durations) were skipped value by value through ``JSONReader``'s steps, about 360 instructions a
    /// member; here a member's scalars are read in one function, as the parser reads them.
    @usableFromInline mutating func skipValue(depth: Int) throws(Error) {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try skipObject(depth: depth + 1)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1)
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    /// ``parseObject(depth:)``'s steps and errors, keeping nothing.
    private mutating func skipObject(depth: Int) throws(Error) {
        guard try open(depth: depth, closer: UInt8(ascii: "}")) else { return }
        repeat {
            try expectKey()
            try skipString()
            try expectColon()
            try skipValue(depth: depth)
        } while try !closes(UInt8(ascii: "}"))
    }

    /// ``parseArray(depth:)``'s steps and errors, keeping nothing.
    private mutating func skipArray(depth: Int) throws(Error) {
        guard try open(depth: depth, closer: UInt8(ascii: "]")) else { return }
        repeat {
            try skipValue(depth: depth)
        } while try !closes(UInt8(ascii: "]"))
    }

    /// Past a string that is a run of plain ASCII up to its closing quote, with no `String` made; any other string
    /// (escapes, characters beyond ASCII, a control character, no closing quote) is read by ``parseString()``, which
    /// checks it and finds its error.
    private mutating func skipString() throws(Error) {
        let end = plainRunEnd(from: index + 1)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            index = end + 1
            return
        }
        _ = try parseString()
    }

    /// The index of the first byte from `start` that ends a run of plain ASCII in a string: a quote, a backslash, a
    /// control character or a byte of a character beyond ASCII; `bytes.count` if none. Eight bytes at a time: most
    /// of an answer's keys and texts are such runs.
    func plainRunEnd(from start: Int) -> Int {
        var i = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // A byte that is zero in `v` has its high bit set in `(v - 1) & ~v` (a borrow can set bits above it,
                // never below: the lowest flagged byte is a true one, and only the lowest is used).
                let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
                let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                var special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                special |= (word &- ones &* 0x20) & ~word  // a byte below 0x20
                special = (special | word) & highs  // a byte from 0x80 up
                if special != 0 { return i + special.trailingZeroBitCount / 8 }
                i += 8
            }
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return i }
            i += 1
        }
        return i
    }

    @usableFromInline mutating func parseString() throws(Error) -> String {
        index += 1  // opening quote
        let start = index
        index = plainRunEnd(from: start)
        // Fast path: no escapes.
        var highBits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII needs no validation; anything else must be well-formed UTF-8 (RFC 8259), not repaired.
                if highBits & 0x80 == 0 { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else {
                    index -= 1
                    throw fail("invalid UTF-8 in a string")
                }
                return text
            }
            highBits |= byte
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw fail("control character in a string") }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scalars, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0c)
                case UInt8(ascii: "n"): scalars.append(0x0a)
                case UInt8(ascii: "r"): scalars.append(0x0d)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw fail("unpaired surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw fail("unpaired surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid unicode escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw fail("control character in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw fail("unexpected end of input in a string")
    }

    private mutating func parseHex4() throws(Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    @usableFromInline mutating func parseNumber() throws(Error) -> Double {
        // Scanned first, on its own: `value(of: scanNumber())` would read `self` (and its index) before the scan.
        let number = try scanNumber()
        return try value(of: number)
    }

    /// Reads past a number, checking it as ``parseNumber()`` does; its value is worked out only when the digits alone
    /// cannot tell that it is in range (an exponent, or more digits than a double holds exactly).
    @usableFromInline mutating func skipNumber() throws(Error) {
        if let end = plainDecimalEnd(from: index) {
            index = end
            return
        }
        let number = try scanNumber()
        if number.isExact { return }
        _ = try value(of: number)
    }

    /// Where a number at `start` ends when it is written without an exponent and with fewer than 300 digits
    /// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`): such a number is well formed and always in a double's range, so skipping it
    /// needs its grammar only, not its digits' value. nil for any other text, which the full scan reads (and finds
    /// its error in, at the same place as the parser). Most numbers an answer's skipped members hold are such.
    private func plainDecimalEnd(from start: Int) -> Int? {
        let end = bytes.count
        var i = start
        if i < end, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end else { return nil }
        let first = i
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            guard bytes[i] &- UInt8(ascii: "0") < 10 else { return nil }
            while i < end, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fraction = i
            while i < end, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            guard i > fraction else { return nil }
        }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") { return nil }
        guard i - first < 300 else { return nil }
        return i
    }

    /// A number's text, read by the RFC 8259 grammar: where it starts, and its digits when they are few enough to be
    /// the value exactly.
    private struct ScannedNumber {
        var start: Int
        var mantissa: UInt64
        var fractionDigits: Int
        /// No exponent and at most 18 digits.
        var simple: Bool

        /// An integer below 2^53 over an exact power of ten: the division is correctly rounded.
        var isExact: Bool { simple && fractionDigits <= 15 && mantissa < (1 << 53) }
    }

    /// Reads a number's text by the grammar, its position in a local written back to `index` at the end or where an
    /// error is thrown (the error's offset), and a digit told by one subtraction and one comparison: 112 instructions
    /// a number on a route answer against 121 (an answer has some 1,500). At most 18 digits go into the mantissa,
    /// below 10^18, so its arithmetic cannot overflow.
    private mutating func scanNumber() throws(Error) -> ScannedNumber {
        let start = index
        let end = bytes.count
        var i = index
        func digit(at position: Int) -> UInt8? {
            guard position < end else { return nil }
            let value = bytes[position] &- UInt8(ascii: "0")
            return value < 10 ? value : nil
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end else {
            index = i
            throw fail("unexpected end of input")
        }
        // Integer part: 0, or a non-zero digit followed by digits.
        var mantissa: UInt64 = 0
        var digits = 0
        var simple = true
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            guard digit(at: i) != nil else {
                index = i
                throw fail("invalid number")
            }
            while let value = digit(at: i) {
                if digits < 18 { mantissa = mantissa &* 10 &+ UInt64(value) } else { simple = false }
                digits += 1
                i += 1
            }
        }
        var fractionDigits = 0
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(at: i) != nil else {
                index = i
                throw fail("invalid number")
            }
            while let value = digit(at: i) {
                if digits < 18 {
                    mantissa = mantissa &* 10 &+ UInt64(value)
                    fractionDigits += 1
                } else {
                    simple = false
                }
                digits += 1
                i += 1
            }
        }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            simple = false
            i += 1
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digit(at: i) != nil else {
                index = i
                throw fail("invalid number")
            }
            while digit(at: i) != nil { i += 1 }
        }
        index = i
        return ScannedNumber(start: start, mantissa: mantissa, fractionDigits: fractionDigits, simple: simple)
    }

    /// The value of the number just scanned (`index` is past it); an error when it is out of a double's range.
    private func value(of number: ScannedNumber) throws(Error) -> Double {
        let negative = bytes[number.start] == UInt8(ascii: "-")
        if number.isExact {
            let value = Double(number.mantissa) / Self.exactPowerOfTen(number.fractionDigits)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[number.start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
        return value
    }

    /// 10^`exponent` for 0...15, each exact in a double (a `switch`, not a global array read behind its lazy
    /// initialization on every number).
    private static func exactPowerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }

}
