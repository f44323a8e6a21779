/// Any JSON value. Used where servers send open-ended data (annotations, engine-specific waypoint
/// properties, request options) so that navd keeps what it does not understand instead of failing.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var doubleValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
    /// A number that is a whole number Int can hold; nil for 1.5, 1e300, NaN or anything not a number
    /// (`Int(someDouble)` would trap on the large ones, and the numbers come from outside).
    public var intValue: Int? {
        if case .number(let n) = self { return Int(exactly: n) }
        return nil
    }
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// True when `other` is this very value: the same number to the bit, or the same storage of an object, array or
    /// string (a copy of a value shares its storage; storage is never changed while shared). Such values have the same
    /// text, so a writer can copy the text it wrote for one. A few instructions, where comparing contents (`==`) costs
    /// about what writing them does; false says nothing (equal values in storage of their own are not identical).
    public func isIdentical(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return Self.sameBits(a, b)
        case (.array(let a), .array(let b)): return Self.sameBits(a, b)
        case (.object(let a), .object(let b)): return Self.sameBits(a, b)
        default: return false
        }
    }

    /// Whether two values are the same bits: for a value with storage, the same reference to it (and, for a short
    /// string kept in place, the same bytes).
    private static func sameBits<T>(_ a: T, _ b: T) -> Bool {
        withUnsafeBytes(of: a) { left in withUnsafeBytes(of: b) { right in sameBytes(left, right) } }
    }

    /// Merges `other` into `self`: objects merge key by key (recursively), anything else is replaced by `other`.
    public func merging(_ other: JSONValue) -> JSONValue {
        guard case .object(var mine) = self, case .object(let theirs) = other else { return other }
        for (key, value) in theirs {
            mine[key] = mine[key].map { $0.merging(value) } ?? value
        }
        return .object(mine)
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            // Whole numbers are written without a fraction so that ids and counts stay integers in JSON.
            if n.rounded() == n, abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
