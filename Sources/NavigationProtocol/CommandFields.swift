import NavigationCore

/// The fields of one command line, with typed accessors whose errors name the field.
public struct CommandFields: Sendable {
    public let object: [String: JSONValue]

    public init(_ object: [String: JSONValue]) {
        self.object = object
    }

    public func optional(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    public func string(_ key: String) throws(ProtocolError) -> String? {
        guard let value = optional(key) else { return nil }
        guard let text = value.stringValue else { throw ProtocolError(.invalidField, "'\(key)' must be a string") }
        return text
    }

    public func requiredString(_ key: String) throws(ProtocolError) -> String {
        guard let text = try string(key) else { throw ProtocolError(.missingField, "'\(key)' is required") }
        return text
    }

    /// A whole number inside `range` (``CheckedNumber``); `invalid_field` naming the field and the range otherwise.
    public func whole(_ key: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int? {
        guard let value = optional(key) else { return nil }
        guard let whole = CheckedNumber.whole(value, in: range) else {
            throw ProtocolError(.invalidField, "'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        return whole
    }

    /// `value` as a number inside `range`; `invalid_field` naming `path`, the range and `unit` otherwise.
    public static func measure(_ value: JSONValue, path: String, in range: ClosedRange<Double>, unit: String) throws(ProtocolError) -> Double {
        guard let number = CheckedNumber.measure(value, in: range) else {
            throw ProtocolError(.invalidField, "\(path) must be a number from \(range.lowerBound) to \(range.upperBound) (\(unit)), not \(value)")
        }
        return number
    }

    public func array(_ key: String) throws(ProtocolError) -> [JSONValue]? {
        guard let value = optional(key) else { return nil }
        guard let array = value.arrayValue else { throw ProtocolError(.invalidField, "'\(key)' must be an array") }
        return array
    }

    public func objectField(_ key: String) throws(ProtocolError) -> [String: JSONValue]? {
        guard let value = optional(key) else { return nil }
        guard let object = value.objectValue else { throw ProtocolError(.invalidField, "'\(key)' must be an object") }
        return object
    }

    /// A coordinate object `{"lat": …, "lon": …}` in degrees, checked for range. `path` names it in errors.
    public static func coordinate(_ value: JSONValue, path: String) throws(ProtocolError) -> GeographicCoordinate {
        guard let object = value.objectValue else { throw ProtocolError(.invalidField, "\(path) must be an object with lat and lon") }
        // A wrong type (`"lat":"60.17"`) is invalid_field; only an absent one is missing_field.
        func degrees(_ key: String) throws(ProtocolError) -> Double {
            guard let value = object[key], value != .null else { throw ProtocolError(.missingField, "\(path).\(key) is required (a number, degrees)") }
            guard let number = value.doubleValue, number.isFinite else { throw ProtocolError(.invalidField, "\(path).\(key) must be a number (degrees), not \(value)") }
            return number
        }
        let lat = try degrees("lat")
        let lon = try degrees("lon")
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw ProtocolError(.invalidField, "\(path) is outside the globe (lat \(lat), lon \(lon))")
        }
        return GeographicCoordinate(latitude: lat, longitude: lon)
    }
}
