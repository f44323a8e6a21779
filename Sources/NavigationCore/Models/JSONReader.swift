/// Reads one JSON document front to back, value by value, without building a tree: a reader that knows the shape it
/// expects asks for each value as it comes (``kind()``, then ``readString()``, ``beginObject()`` ...) and skips the
/// rest with ``skipValue()``, which still checks it. The same strict RFC 8259 rules and nesting limit as
/// ``JSONParser`` (it shares its scanner); a routing answer of megabytes goes from bytes to typed values in one pass.
public struct JSONReader {
    /// What the next value is, seen from its first byte.
    public enum Kind: Hashable, Sendable {
        case object, array, string, number, bool, null
    }

    /// The open object's members: pass it to every ``nextKey(_:)`` of that object.
    public struct Members {
        @usableFromInline var started = false
        @usableFromInline init() {}
    }

    /// The open array's items: pass it to every ``nextItem(_:)`` of that array.
    public struct Items {
        @usableFromInline var started = false
        @usableFromInline init() {}
    }

    @usableFromInline var scanner: JSONParser
    /// Objects and arrays open around the next value.
    @usableFromInline var depth = 0
    /// Made at the first key that has to be decoded.
    private var decodedKeys: DecodedKeys?

    private init(bytes: UnsafeBufferPointer<UInt8>) { scanner = JSONParser(bytes: bytes) }

    /// Reads the document in `data` with `body`, which must read exactly one value; only whitespace may follow it.
    /// Errors in the text are ``JSONParser/Error``s; `body` may throw its own.
    public static func read<T, C: Collection>(_ data: C, _ body: (inout JSONReader) throws -> T) throws -> T
    where C.Element == UInt8 {
        func readAll(_ buffer: UnsafeBufferPointer<UInt8>) throws -> T {
            var reader = JSONReader(bytes: buffer)
            let value = try body(&reader)
            reader.scanner.skipWhitespace()
            guard reader.scanner.index == buffer.count else { throw reader.scanner.fail("unexpected data after the JSON value") }
            return value
        }
        if let result = try data.withContiguousStorageIfAvailable(readAll) { return result }
        return try Array(data).withUnsafeBufferPointer(readAll)
    }

    /// The first error in `data` as JSON text, or nil when it is one well-formed value.
    public static func firstError<C: Collection>(in data: C) -> JSONParser.Error? where C.Element == UInt8 {
        do {
            try read(data) { reader in try reader.skipValue() }
            return nil
        } catch let error as JSONParser.Error {
            return error
        } catch {
            return JSONParser.Error(reason: "\(error)", offset: 0)
        }
    }

    /// Byte offset of the next unread byte.
    public var offset: Int { scanner.index }

    /// The kind of the next value (whitespace before it is skipped).
    @inlinable
    public mutating func kind() throws(JSONParser.Error) -> Kind {
        scanner.skipWhitespace()
        guard scanner.index < scanner.bytes.count else { throw scanner.fail("unexpected end of input") }
        switch scanner.bytes[scanner.index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw scanner.fail("unexpected character '\(Character(Unicode.Scalar(scanner.bytes[scanner.index])))'")
        }
    }

    /// The next value, a string; an error if it is anything else.
    @inlinable
    public mutating func readString() throws(JSONParser.Error) -> String {
        guard try kind() == .string else { throw scanner.fail("expected a string") }
        return try scanner.parseString()
    }

    /// The next value, a string, as its UTF-8 bytes (as a key is read: valid until the read ends), without making a
    /// `String`: for a value that is only compared with known texts. An error if it is anything else.
    public mutating func readStringBytes() throws(JSONParser.Error) -> JSONKey {
        guard try kind() == .string else { throw scanner.fail("expected a string") }
        return try readKey()
    }

    /// The next value, a number; an error if it is anything else.
    @inlinable
    public mutating func readNumber() throws(JSONParser.Error) -> Double {
        guard try kind() == .number else { throw scanner.fail("expected a number") }
        return try scanner.parseNumber()
    }

    /// The next value, `true` or `false`; an error if it is anything else.
    public mutating func readBool() throws(JSONParser.Error) -> Bool {
        guard try kind() == .bool else { throw scanner.fail("expected true or false") }
        if scanner.bytes[scanner.index] == UInt8(ascii: "t") {
            try scanner.expectLiteral("true")
            return true
        }
        try scanner.expectLiteral("false")
        return false
    }

    /// Reads the next value if it is `null`: true when it was.
    public mutating func readNull() throws(JSONParser.Error) -> Bool {
        guard try kind() == .null else { return false }
        try scanner.expectLiteral("null")
        return true
    }

    /// The next value as a tree (for the parts of a document that are kept as the server sent them).
    public mutating func readValue() throws(JSONParser.Error) -> JSONValue {
        try scanner.parseValue(depth: depth)
    }

    /// The last object or array ``readValue(repeating:)`` read, and where its text was.
    public struct RepeatedValue {
        fileprivate var value: JSONValue
        fileprivate var text: Range<Int>
        public init() {
            value = .null
            text = 0..<0
        }

        fileprivate init(value: JSONValue, text: Range<Int>) {
            self.value = value
            self.text = text
        }
    }

    /// The next value as a tree, like ``readValue()``; an object or array whose text is byte for byte the one read
    /// last into `previous` is that value again, not parsed into a new tree. A route's annotation columns repeat
    /// (a `maxspeed` object per segment, the same for a whole street): the repeats share one dictionary. Identical
    /// text is an identical, well-formed value, so nothing goes unchecked.
    public mutating func readValue(repeating previous: inout RepeatedValue) throws(JSONParser.Error) -> JSONValue {
        let kind = try kind()
        // A number, most of a route's annotation values, read straight (the whitespace before it is skipped).
        if kind == .number { return .number(try scanner.parseNumber()) }
        guard kind == .object || kind == .array else { return try readValue() }
        let start = scanner.index
        let length = previous.text.count
        if length > 0, length <= scanner.bytes.count - start,
            sameBytes(
                UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: scanner.bytes[start..<(start + length)])),
                UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: scanner.bytes[previous.text])))
        {
            scanner.index = start + length
            return previous.value
        }
        let value = try readValue()
        previous = RepeatedValue(value: value, text: start..<scanner.index)
        return value
    }

    /// Reads past the next value, checking it as strictly as ``JSONParser`` would (strings included).
    @inlinable
    public mutating func skipValue() throws(JSONParser.Error) {
        try scanner.skipValue(depth: depth)
    }

    // MARK: - Objects and arrays

    /// Opens the next value, an object; read its members with ``nextKey(_:)``.
    @inlinable
    public mutating func beginObject() throws(JSONParser.Error) -> Members {
        try open(.object)
        return Members()
    }

    /// The next member's key (its value is read next), or nil when the object closes.
    @inlinable
    public mutating func nextKey(_ members: inout Members) throws(JSONParser.Error) -> JSONKey? {
        guard try moveToNext(closer: UInt8(ascii: "}"), started: &members.started) else { return nil }
        guard scanner.bytes[scanner.index] == UInt8(ascii: "\"") else { throw scanner.fail("expected a string key") }
        let key = try readKey()
        scanner.skipWhitespace()
        guard scanner.index < scanner.bytes.count, scanner.bytes[scanner.index] == UInt8(ascii: ":") else { throw scanner.fail("expected ':'") }
        scanner.index += 1
        return key
    }

    /// Opens the next value, an array; read its items after each ``nextItem(_:)`` that returns true.
    @inlinable
    public mutating func beginArray() throws(JSONParser.Error) -> Items {
        try open(.array)
        return Items()
    }

    /// True when another item follows (read it next), false when the array closes.
    @inlinable
    public mutating func nextItem(_ items: inout Items) throws(JSONParser.Error) -> Bool {
        try moveToNext(closer: UInt8(ascii: "]"), started: &items.started)
    }

    @inlinable
    mutating func open(_ expected: Kind) throws(JSONParser.Error) {
        guard try kind() == expected else { throw scanner.fail(expected == .object ? "expected an object" : "expected an array") }
        guard depth < JSONParser.maximumDepth else { throw scanner.fail("nesting deeper than \(JSONParser.maximumDepth) levels") }
        depth += 1
        scanner.index += 1
    }

    /// Past the separator before the next member or item: true when there is one; false, past the closer, when not.
    @inlinable
    mutating func moveToNext(closer: UInt8, started: inout Bool) throws(JSONParser.Error) -> Bool {
        scanner.skipWhitespace()
        guard scanner.index < scanner.bytes.count else { throw scanner.fail("unexpected end of input") }
        let byte = scanner.bytes[scanner.index]
        if byte == closer {
            scanner.index += 1
            depth -= 1
            return false
        }
        if started {
            guard byte == UInt8(ascii: ",") else {
                throw scanner.fail(closer == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
            }
            scanner.index += 1
            scanner.skipWhitespace()
            guard scanner.index < scanner.bytes.count else { throw scanner.fail("unexpected end of input") }
        }
        started = true
        return true
    }

    /// A plain ASCII key is its bytes in the document (no copy); one with escapes, other characters or an error is
    /// left to the string parser, which decodes and checks it.
    @usableFromInline
    mutating func readKey() throws(JSONParser.Error) -> JSONKey {
        let start = scanner.index + 1
        let end = scanner.plainRunEnd(from: start)
        if end < scanner.bytes.count, scanner.bytes[end] == UInt8(ascii: "\"") {
            scanner.index = end + 1
            return JSONKey(bytes: UnsafeBufferPointer(rebasing: scanner.bytes[start..<end]))
        }
        let decoded = try scanner.parseString()
        if decodedKeys == nil { decodedKeys = DecodedKeys() }
        return JSONKey(bytes: decodedKeys!.hold(decoded))
    }
}

/// An object member's key (or a string value read with ``JSONReader/readStringBytes()``) as ``JSONReader`` found it:
/// its UTF-8 bytes, in the document when the key has no escapes,
/// else as decoded. Valid until the ``JSONReader/read(_:_:)`` that gave it returns: match it (`case "name":`) or copy it
/// (``string``). A plain value (no reference counted), so that the thousands of keys of an answer cost no retains.
public struct JSONKey: CustomStringConvertible {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>

    fileprivate init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The key as text.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// True when the key is `text`, byte for byte.
    public func matches(_ text: String) -> Bool { text.utf8.elementsEqual(bytes) }

    public var description: String { string }

    /// True when the key is `pattern`, byte for byte: lets a `switch` match keys without making strings. Inlined where
    /// the `switch` is, so that a pattern's length is a constant there and most cases end at the length.
    @inlinable
    public static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        pattern.withUTF8Buffer { expected in
            guard key.bytes.count == expected.count else { return false }
            for i in 0..<expected.count where key.bytes[i] != expected[i] { return false }
            return true
        }
    }
}

/// The decoded bytes of keys with escapes or other than ASCII characters (rare), kept until the read ends.
private final class DecodedKeys {
    private var buffers: [UnsafeMutableBufferPointer<UInt8>] = []

    deinit { for buffer in buffers { buffer.deallocate() } }

    func hold(_ key: String) -> UnsafeBufferPointer<UInt8> {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: key.utf8.count)
        _ = buffer.initialize(from: key.utf8)
        buffers.append(buffer)
        return UnsafeBufferPointer(buffer)
    }
}
