import FoundationEssentials
import Glibc

/// Encodes any `Encodable` straight into a ``JSONValue`` (no bytes in between), as the protocol's typed
/// messages are written: optionals that are nil are left out, dates are ISO 8601 UTC strings
/// (``ISO8601Timestamp``), numbers are JSON numbers.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try ValueEncoder.box(value, codingPath: [])
    }
}

/// Decodes any `Decodable` from a ``JSONValue``: the reverse of ``JSONValueEncoder``. A wrong type names the
/// field's path.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: []).unbox(type)
    }
}

// MARK: - Encoding

/// A value under construction: objects and arrays stay open while nested containers write into them. Members
/// and items are stored properties, mutated in place (an enum payload would be copied on every insertion).
private final class EncodingNode {
    var value: JSONValue = .null
    var object: [String: EncodingNode]?
    var array: [EncodingNode]?

    var json: JSONValue {
        if let object { return .object(object.mapValues(\.json)) }
        if let array { return .array(array.map(\.json)) }
        return value
    }
}

private struct ValueEncoder: Encoder {
    let node: EncodingNode
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func box<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> JSONValue {
        switch value {
        case let json as JSONValue: return json
        case let date as Date: return .string(ISO8601Timestamp.format(date))
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Double: return .number(number)
        case let number as Int: return .number(Double(number))
        case let number as Int64: return .number(Double(number))
        case let number as Int32: return .number(Double(number))
        case let number as UInt: return .number(Double(number))
        case let number as UInt64: return .number(Double(number))
        case let number as UInt32: return .number(Double(number))
        case let number as Float: return .number(Double(number))
        default:
            let node = EncodingNode()
            try value.encode(to: ValueEncoder(node: node, codingPath: codingPath))
            return node.json
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.object == nil {
            node.object = [:]
            node.array = nil
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.array == nil {
            node.array = []
            node.object = nil
        }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath) }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: EncodingNode
        var codingPath: [any CodingKey]

        private func set(_ key: Key, _ child: EncodingNode) {
            node.object?[key.stringValue] = child
        }

        mutating func encodeNil(forKey key: Key) throws {
            let child = EncodingNode()
            set(key, child)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let child = EncodingNode()
            child.value = try ValueEncoder.box(value, codingPath: codingPath + [key])
            set(key, child)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = EncodingNode()
            set(key, child)
            return ValueEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = EncodingNode()
            set(key, child)
            return ValueEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(node: node, codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = EncodingNode()
            set(key, child)
            return ValueEncoder(node: child, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: EncodingNode
        var codingPath: [any CodingKey]
        var count: Int { node.array?.count ?? 0 }

        private func append(_ child: EncodingNode) {
            node.array?.append(child)
        }

        mutating func encodeNil() throws { append(EncodingNode()) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let child = EncodingNode()
            child.value = try ValueEncoder.box(value, codingPath: codingPath)
            append(child)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = EncodingNode()
            append(child)
            return ValueEncoder(node: child, codingPath: codingPath).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = EncodingNode()
            append(child)
            return ValueEncoder(node: child, codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let child = EncodingNode()
            append(child)
            return ValueEncoder(node: child, codingPath: codingPath)
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let node: EncodingNode
        var codingPath: [any CodingKey]
        mutating func encodeNil() throws { node.value = .null }
        mutating func encode<T: Encodable>(_ value: T) throws { node.value = try ValueEncoder.box(value, codingPath: codingPath) }
    }
}

// MARK: - Decoding

private struct ValueDecoder: Decoder {
    let value: JSONValue
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ type: Any.Type, _ what: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(what), found \(Self.describe(value))"))
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self { return value as! T }
        if type == Date.self {
            guard let text = value.stringValue, let date = ISO8601Timestamp.parse(text) else { throw mismatch(type, "an ISO 8601 UTC time") }
            return date as! T
        }
        if type == String.self {
            guard let text = value.stringValue else { throw mismatch(type, "a string") }
            return text as! T
        }
        if type == Double.self {
            guard let number = value.doubleValue else { throw mismatch(type, "a number") }
            return number as! T
        }
        if type == Int.self {
            guard let number = value.doubleValue, number == number.rounded(), abs(number) < 9e15 else { throw mismatch(type, "a whole number") }
            return Int(number) as! T
        }
        if let integer = type as? any FixedWidthInteger.Type {
            guard let number = value.doubleValue, number == number.rounded(), abs(number) < 9e15, let exact = integer.init(exactly: number) else {
                throw mismatch(type, "a whole number in range")
            }
            return exact as! T
        }
        if type == Float.self {
            guard let number = value.doubleValue else { throw mismatch(type, "a number") }
            return Float(number) as! T
        }
        if type == Bool.self {
            guard let flag = value.boolValue else { throw mismatch(type, "true or false") }
            return flag as! T
        }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let object = value.objectValue else { throw mismatch([String: Any].self, "an object") }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = value.arrayValue else { throw mismatch([Any].self, "an array") }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: JSONValue]
        var codingPath: [any CodingKey]
        var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func child(_ key: Key) throws -> ValueDecoder {
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "'\(key.stringValue)' is missing"))
            }
            return ValueDecoder(value: value, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { object[key.stringValue] == nil || object[key.stringValue] == .null }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
        func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [JSONValue]
        var codingPath: [any CodingKey]
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }
        var currentIndex = 0

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        private mutating func next() throws -> ValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "the array has only \(items.count) items"))
            }
            defer { currentIndex += 1 }
            return ValueDecoder(value: items[currentIndex], codingPath: codingPath)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().unbox(type) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct SingleContainer: SingleValueDecodingContainer {
        let decoder: ValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        func decodeNil() -> Bool { decoder.value == .null }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.unbox(type) }
    }
}
