/// A value that writes its own JSON text: byte for byte what ``JSONTextEncoder`` writes for it (keys sorted, nil
/// optionals left out, numbers as ``JSONText`` writes them), without the `Encodable` machinery. For values written
/// on every fix, where the generic containers, dynamic casts and metadata lookups were most of the line's cost.
public protocol JSONTextWritable {
    /// Appends this value's JSON text.
    func writeJSON(into out: inout JSONOutput)
}

/// Writes one JSON object's members into a buffer, in the order they are given. Keys must come in ascending byte
/// order, the order ``JSONText`` sorts them in (checked in debug builds); a nil optional writes no member, as
/// `encodeIfPresent` leaves it out.
public struct JSONObjectWriter: ~Copyable {
    /// The text so far (the caller's, taken while the object is written).
    @usableFromInline var out: JSONOutput
    private var needsComma: Bool
    #if DEBUG
    private var lastKey: [UInt8] = []
    #endif

    /// Writes an object into `out`: `{`, the members `body` writes, `}`.
    @inlinable
    public static func write(into out: inout JSONOutput, _ body: (inout JSONObjectWriter) -> Void) {
        var writer = JSONObjectWriter(taking: &out, opening: true)
        body(&writer)
        writer.finish(into: &out)
    }

    /// Adds members to an object already open in `out` (with members in it: each new one is preceded by a comma),
    /// then closes it with `}`. The members written before are not checked against the new keys' order.
    @inlinable
    public static func continueObject(in out: inout JSONOutput, _ body: (inout JSONObjectWriter) -> Void) {
        var writer = JSONObjectWriter(taking: &out, opening: false)
        body(&writer)
        writer.finish(into: &out)
    }

    // Takes the buffer without copying it (swap), and gives it back in `finish`.
    @usableFromInline
    init(taking buffer: inout JSONOutput, opening: Bool) {
        out = JSONOutput()
        swap(&out, &buffer)
        if opening { out.append(UInt8(ascii: "{")) }
        needsComma = !opening
    }

    @usableFromInline
    mutating func finish(into buffer: inout JSONOutput) {
        out.append(UInt8(ascii: "}"))
        swap(&out, &buffer)
    }

    /// `,"key":` (no comma before the first member). Keys are ASCII names: nothing to escape.
    private mutating func key(_ key: StaticString) {
        #if DEBUG
        let bytes = Array(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        precondition(lastKey.isEmpty || lastKey.lexicographicallyPrecedes(bytes), "JSON keys out of order: \(key) after \(String(decoding: lastKey, as: UTF8.self))")
        lastKey = bytes
        #endif
        if needsComma { out.append(UInt8(ascii: ",")) }
        needsComma = true
        out.append(UInt8(ascii: "\""))
        out.append(key)
        out.append("\":")
    }

    public mutating func member(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        JSONText.appendNumber(value, into: &out)
    }

    /// Integers are numbers as `JSONValueEncoder` has them (a `Double`): whole below 10^15 as digits.
    public mutating func member(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        JSONText.appendNumber(Double(value), into: &out)
    }

    public mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        out.append(value ? "true" : "false")
    }

    public mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        JSONText.appendString(value, into: &out)
    }

    public mutating func member(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(value, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A string member written as `null` when absent (a key clients can rely on), not left out.
    public mutating func memberOrNull(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { JSONText.appendString(value, into: &out) } else { JSONText.appendNull(into: &out) }
    }

    /// Open-ended data (a server's annotation, a waypoint's engine keys): an object with its keys sorted, as the
    /// tree path writes it.
    public mutating func member(_ name: StaticString, object: [String: JSONValue]?) {
        guard let object else { return }
        key(name)
        JSONText.append(.object(object), into: &out)
    }

    public mutating func member<Value: JSONTextWritable>(_ name: StaticString, _ value: Value?) {
        guard let value else { return }
        key(name)
        value.writeJSON(into: &out)
    }

    public mutating func member<Value: JSONTextWritable>(_ name: StaticString, _ values: [Value]?) {
        guard let values else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            value.writeJSON(into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
