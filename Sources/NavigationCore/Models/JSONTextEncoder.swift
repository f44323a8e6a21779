import FoundationEssentials
import Glibc

/// Encodes any `Encodable` straight to JSON text: the same bytes as ``JSONValueEncoder`` followed by
/// ``JSONText/append(_:into:)`` (keys sorted, nil optionals left out, dates as ISO 8601 UTC strings), without
/// building a ``JSONValue`` tree and its dictionaries on the way. Events are encoded on the navigation loop on
/// every fix; this is what keeps that cheap.
///
/// Values are written as they come; an object's members are put in key order when the object closes. A type
/// whose `encode(to:)` uses containers out of order (writes into a container after a later sibling was
/// opened, or uses `superEncoder`) makes `encode` throw ``Unsupported``; callers then take the tree path.
public struct JSONTextEncoder: Sendable {
    /// The value used its encoder in a way a streaming writer cannot follow.
    public struct Unsupported: Error, CustomStringConvertible {
        public var description: String { "the value's encode(to:) uses its containers out of order" }
    }

    /// An object's members, encoded but not yet written as an object: for callers that put some keys first.
    public struct ObjectMembers {
        /// The members' values, one after another.
        let text: [UInt8]
        /// Each member's key and where its value is in `text`: in key order, one per key (the last one written wins).
        let ranges: [(key: String, range: Range<Int>)]

        /// The keys, sorted.
        public var keys: [String] { ranges.map(\.key) }

        /// Appends the value of the member at `index` (of ``keys``).
        public func appendValue(at index: Int, into out: inout JSONOutput) {
            let range = ranges[index].range
            // A value that wrote nothing is null, as JSONValueEncoder has it.
            if range.isEmpty { return JSONText.appendNull(into: &out) }
            out.append(contentsOf: text[range])
        }
    }

    public init() {}

    /// JSON text for `value`.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let stream = TextStream()
        try stream.writeValue(value, depth: 0)
        stream.close(above: -1)
        if stream.unsupported { throw Unsupported() }
        if stream.out.isEmpty { JSONText.appendNull(into: &stream.out) }
        return stream.out.bytes
    }

    /// The members of the object `value` encodes to (it must encode to an object through a keyed container).
    public func encodeMembers<T: Encodable>(_ value: T) throws -> ObjectMembers {
        let stream = TextStream()
        try stream.writeValue(value, depth: 0, closing: false)
        stream.close(above: 0)
        guard !stream.unsupported, stream.frames.count == 1, stream.frames[0].isObject else { throw Unsupported() }
        let order = stream.memberOrder(of: stream.frames[0])
        return ObjectMembers(text: stream.out.bytes, ranges: order)
    }
}

/// The text written so far and the containers still open. Encoders and containers are views on it.
private final class TextStream {
    struct Frame {
        /// Unique per frame: a container holding a stale id writes nothing.
        var id: Int
        /// The encoder that opened it (asking the same encoder again reuses it).
        var slot: Int
        var isObject: Bool
        /// Objects: where the first member's value starts (keys are written at close). Arrays: offset of `[`.
        var start: Int
        /// Objects: index of its first member in `keys` / `starts`.
        var firstMember: Int
        /// Arrays: items written.
        var count: Int
    }

    var out = JSONOutput(capacity: 512)
    var frames: [Frame] = []
    /// Members of the open objects, innermost last: each key and where its value starts in `out`.
    var keys: [String] = []
    var starts: [Int] = []
    var nextID = 1
    var unsupported = false
    /// An object's values while its members are put in key order (reused: objects close one at a time).
    var scratch = JSONOutput()

    func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Closes every frame deeper than `depth` (-1: all of them).
    func close(above depth: Int) {
        while frames.count > depth + 1 { closeTop() }
    }

    /// True when the frame at `depth` is still the one with `id` (after closing deeper ones); marks misuse otherwise.
    func enter(depth: Int, id: Int) -> Bool {
        close(above: depth)
        guard frames.count == depth + 1, frames[depth].id == id else {
            unsupported = true
            return false
        }
        return true
    }

    func memberOrder(of frame: Frame) -> [(key: String, range: Range<Int>)] {
        let count = keys.count - frame.firstMember
        var members: [(key: String, range: Range<Int>, index: Int)] = []
        members.reserveCapacity(count)
        for index in frame.firstMember..<keys.count {
            let end = index + 1 < keys.count ? starts[index + 1] : out.count
            members.append((keys[index], starts[index]..<end, index))
        }
        members.sort { $0.key != $1.key ? $0.key < $1.key : $0.index < $1.index }
        // A key written twice keeps its last value, as a dictionary would.
        var unique: [(key: String, range: Range<Int>)] = []
        unique.reserveCapacity(members.count)
        for member in members {
            if let last = unique.last, last.key == member.key {
                unique[unique.count - 1] = (member.key, member.range)
            } else {
                unique.append((member.key, member.range))
            }
        }
        return unique
    }

    private func closeTop() {
        let frame = frames.removeLast()
        guard frame.isObject else {
            out.append(UInt8(ascii: "]"))
            return
        }
        let members = memberOrder(of: frame)
        scratch.removeLast(scratch.count)
        scratch.append(contentsOf: out, in: frame.start..<out.count)
        out.removeLast(out.count - frame.start)
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            if member.range.isEmpty {
                JSONText.appendNull(into: &out)  // a value that wrote nothing, as JSONValueEncoder has it
            } else {
                out.append(contentsOf: scratch, in: (member.range.lowerBound - frame.start)..<(member.range.upperBound - frame.start))
            }
        }
        out.append(UInt8(ascii: "}"))
        keys.removeSubrange(frame.firstMember...)
        starts.removeSubrange(frame.firstMember...)
    }

    func pushObject(slot: Int) -> Int {
        let id = makeID()
        frames.append(Frame(id: id, slot: slot, isObject: true, start: out.count, firstMember: keys.count, count: 0))
        return id
    }

    func pushArray(slot: Int) -> Int {
        let id = makeID()
        frames.append(Frame(id: id, slot: slot, isObject: false, start: out.count, firstMember: keys.count, count: 0))
        out.append(UInt8(ascii: "["))
        return id
    }

    /// Starts a member of the object at `depth`.
    func beginMember(_ key: String) {
        keys.append(key)
        starts.append(out.count)
    }

    /// Starts an item of the array at `depth`.
    func beginItem(depth: Int) {
        if frames[depth].count > 0 { out.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
    }

    /// Writes one value whose containers (if any) open at `depth`, and closes them (unless not `closing`).
    func writeValue<T: Encodable>(_ value: T, depth: Int, closing: Bool = true) throws {
        // The common leaf types first, by type identity (cheaper than the casts below).
        if T.self == Double.self {
            JSONText.appendNumber(unsafeBitCast(value, to: Double.self), into: &out)
        } else if T.self == String.self {
            JSONText.appendString(unsafeBitCast(value, to: String.self), into: &out)
        } else if T.self == Int.self {
            JSONText.appendNumber(Double(unsafeBitCast(value, to: Int.self)), into: &out)
        } else if T.self == Bool.self {
            JSONText.append(.bool(unsafeBitCast(value, to: Bool.self)), into: &out)
        } else if T.self == [String: JSONValue].self {
            // Open-ended server data (annotations): written as the tree path writes an object, keys sorted.
            JSONText.append(.object(unsafeBitCast(value, to: [String: JSONValue].self)), into: &out)
        } else if T.self == LineStringCoding.self {
            // A route's geometry (and each step's): most of a route event's bytes, written without a container
            // per point. The same text as its encode(to:): [[lon,lat],...].
            unsafeBitCast(value, to: LineStringCoding.self).writeJSON(into: &out)
        } else if T.self == Route.self {
            // A whole route (`route` events, the journal, the flight recorder): written by hand, the same bytes.
            unsafeBitCast(value, to: Route.self).writeJSON(into: &out)
        } else if T.self == [Double].self {
            out.append(UInt8(ascii: "["))
            for (index, number) in unsafeBitCast(value, to: [Double].self).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendNumber(number, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        } else {
            // The same cases, in the same order, as JSONValueEncoder's leaves.
            switch value {
            case let json as JSONValue: JSONText.append(json, into: &out)
            case let date as Date: JSONText.appendString(ISO8601Timestamp.format(date), into: &out)
            case let text as String: JSONText.appendString(text, into: &out)
            case let flag as Bool: JSONText.append(.bool(flag), into: &out)
            case let number as Double: JSONText.appendNumber(number, into: &out)
            case let number as Int: JSONText.appendNumber(Double(number), into: &out)
            case let number as Int64: JSONText.appendNumber(Double(number), into: &out)
            case let number as Int32: JSONText.appendNumber(Double(number), into: &out)
            case let number as UInt: JSONText.appendNumber(Double(number), into: &out)
            case let number as UInt64: JSONText.appendNumber(Double(number), into: &out)
            case let number as UInt32: JSONText.appendNumber(Double(number), into: &out)
            case let number as Float: JSONText.appendNumber(Double(number), into: &out)
            default:
                try value.encode(to: SlotEncoder(stream: self, depth: depth, slot: makeID(), start: out.count))
                if closing { close(above: depth - 1) }
            }
        }
    }
}

/// The `Encoder` for one value: its containers open at `depth`.
private struct SlotEncoder: Encoder {
    let stream: TextStream
    let depth: Int
    let slot: Int
    /// Where the value starts in the text: it may open one container, or write one single value.
    let start: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The frame this encoder opened earlier and that is still open, if any.
    private func reusableFrame(isObject: Bool) -> Int? {
        stream.close(above: depth)
        guard stream.frames.count == depth + 1, stream.frames[depth].slot == slot, stream.frames[depth].isObject == isObject else {
            return nil
        }
        return stream.frames[depth].id
    }

    /// True when this encoder may start its value now.
    private func mayStart() -> Bool {
        stream.close(above: depth - 1)
        guard stream.frames.count == depth, stream.out.count == start else {
            stream.unsupported = true
            return false
        }
        return true
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let id = reusableFrame(isObject: true) {
            return KeyedEncodingContainer(KeyedTextContainer<Key>(stream: stream, depth: depth, id: id))
        }
        let id = mayStart() ? stream.pushObject(slot: slot) : -1
        return KeyedEncodingContainer(KeyedTextContainer<Key>(stream: stream, depth: depth, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if let id = reusableFrame(isObject: false) {
            return UnkeyedTextContainer(stream: stream, depth: depth, id: id)
        }
        let id = mayStart() ? stream.pushArray(slot: slot) : -1
        return UnkeyedTextContainer(stream: stream, depth: depth, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleTextContainer(encoder: self)
    }

    struct SingleTextContainer: SingleValueEncodingContainer {
        let encoder: SlotEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws {
            guard encoder.mayStart() else { return }
            JSONText.appendNull(into: &encoder.stream.out)
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            guard encoder.mayStart() else { return }
            try encoder.stream.writeValue(value, depth: encoder.depth)
        }
    }
}

private struct KeyedTextContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: TextStream
    let depth: Int
    let id: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginMember(key.stringValue)
        JSONText.appendNull(into: &stream.out)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginMember(key.stringValue)
        JSONText.appendNumber(value, into: &stream.out)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginMember(key.stringValue)
        JSONText.appendString(value, into: &stream.out)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginMember(key.stringValue)
        JSONText.appendNumber(Double(value), into: &stream.out)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginMember(key.stringValue)
        try stream.writeValue(value, depth: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let id = stream.enter(depth: depth, id: id) ? open(key) { stream.pushObject(slot: $0) } : -1
        return KeyedEncodingContainer(KeyedTextContainer<NestedKey>(stream: stream, depth: depth + 1, id: id))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let id = stream.enter(depth: depth, id: id) ? open(key) { stream.pushArray(slot: $0) } : -1
        return UnkeyedTextContainer(stream: stream, depth: depth + 1, id: id)
    }

    private func open(_ key: Key, _ push: (Int) -> Int) -> Int {
        stream.beginMember(key.stringValue)
        return push(stream.makeID())
    }

    mutating func superEncoder() -> any Encoder { unsupportedEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { unsupportedEncoder() }

    private func unsupportedEncoder() -> any Encoder {
        stream.unsupported = true
        return SlotEncoder(stream: stream, depth: Int.max / 2, slot: -1, start: -1)
    }
}

private struct UnkeyedTextContainer: UnkeyedEncodingContainer {
    let stream: TextStream
    let depth: Int
    let id: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { stream.frames.count > depth && stream.frames[depth].id == id ? stream.frames[depth].count : 0 }

    mutating func encodeNil() throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginItem(depth: depth)
        JSONText.appendNull(into: &stream.out)
    }

    mutating func encode(_ value: Double) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginItem(depth: depth)
        JSONText.appendNumber(value, into: &stream.out)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard stream.enter(depth: depth, id: id) else { return }
        stream.beginItem(depth: depth)
        let start = stream.out.count
        try stream.writeValue(value, depth: depth + 1)
        // A value that wrote nothing is null, as JSONValueEncoder has it.
        if stream.out.count == start, !stream.unsupported { JSONText.appendNull(into: &stream.out) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        var id = -1
        if stream.enter(depth: depth, id: self.id) {
            stream.beginItem(depth: depth)
            id = stream.pushObject(slot: stream.makeID())
        }
        return KeyedEncodingContainer(KeyedTextContainer<NestedKey>(stream: stream, depth: depth + 1, id: id))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        var id = -1
        if stream.enter(depth: depth, id: self.id) {
            stream.beginItem(depth: depth)
            id = stream.pushArray(slot: stream.makeID())
        }
        return UnkeyedTextContainer(stream: stream, depth: depth + 1, id: id)
    }

    mutating func superEncoder() -> any Encoder {
        stream.unsupported = true
        return SlotEncoder(stream: stream, depth: Int.max / 2, slot: -1, start: -1)
    }
}
