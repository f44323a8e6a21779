import NavigationCore

/// Where a value is in the answer, e.g. `routes[0].legs`: written out only when an error names it (an answer has
/// thousands of objects, and building each one's path as text was a fifth of the parsing time).
indirect enum FieldPath: CustomStringConvertible {
    case root(String)
    case key(FieldPath, String)
    case index(FieldPath, Int)

    var description: String {
        switch self {
        case .root(let name): name
        case .key(let parent, let key):
            switch parent {
            case .root(let name) where name.isEmpty: key
            default: "\(parent).\(key)"
            }
        case .index(let parent, let index): "\(parent)[\(index)]"
        }
    }
}

// Typed, path-aware reading of an answer's fields as they come (``JSONReader``). `null` reads as absent (nil); a
// value of another type than the field's is an error naming its path (``RouteParseError/typeMismatch``), and a
// number outside its range (`1e300`, a negative distance) is one too (``CheckedNumber``): never a number passed on
// to the controller or the socket. Errors in the JSON text itself are ``JSONParser/Error``s.
extension JSONReader {
    /// Opens the object at `path`; an error if the value there is not an object.
    mutating func members(at path: @autoclosure () -> FieldPath) throws -> Members {
        guard try kind() == .object else { throw RouteParseError.typeMismatch(path: "\(path())", expected: "an object") }
        return try beginObject()
    }

    /// Opens the object at `path.key`, or nil for `null`.
    mutating func optionalMembers(_ path: FieldPath, _ key: String) throws -> Members? {
        if try readNull() { return nil }
        return try members(at: .key(path, key))
    }

    mutating func double(_ path: FieldPath, _ key: String, in range: ClosedRange<Double>) throws -> Double? {
        if try readNull() { return nil }
        guard try kind() == .number else { throw RouteParseError.typeMismatch(path: "\(FieldPath.key(path, key))", expected: "a number") }
        let n = try readNumber()
        guard let checked = CheckedNumber.measure(n, in: range) else {
            throw RouteParseError.typeMismatch(
                path: "\(FieldPath.key(path, key))", expected: "a number from \(range.lowerBound) to \(range.upperBound), not \(n)")
        }
        return checked
    }

    mutating func int(_ path: FieldPath, _ key: String, in range: ClosedRange<Int>) throws -> Int? {
        if try readNull() { return nil }
        guard try kind() == .number else { throw RouteParseError.typeMismatch(path: "\(FieldPath.key(path, key))", expected: "an integer") }
        let n = try readNumber()
        guard let checked = CheckedNumber.whole(n, in: range) else {
            throw RouteParseError.typeMismatch(
                path: "\(FieldPath.key(path, key))", expected: "an integer from \(range.lowerBound) to \(range.upperBound), not \(n)")
        }
        return checked
    }

    mutating func string(_ path: FieldPath, _ key: String) throws -> String? {
        if try readNull() { return nil }
        guard try kind() == .string else { throw RouteParseError.typeMismatch(path: "\(FieldPath.key(path, key))", expected: "a string") }
        return try readString()
    }

    mutating func bool(_ path: FieldPath, _ key: String) throws -> Bool? {
        if try readNull() { return nil }
        guard try kind() == .bool else { throw RouteParseError.typeMismatch(path: "\(FieldPath.key(path, key))", expected: "true or false") }
        return try readBool()
    }

    /// An array at `path.key`, each item read with `item` (given the item's index), or nil for `null`.
    mutating func array<T>(_ path: FieldPath, _ key: String, _ item: (inout JSONReader, Int) throws -> T) throws -> [T]? {
        if try readNull() { return nil }
        guard try kind() == .array else { throw RouteParseError.typeMismatch(path: "\(FieldPath.key(path, key))", expected: "an array") }
        var result: [T] = []
        var items = try beginArray()
        while try nextItem(&items) {
            result.append(try item(&self, result.count))
        }
        return result
    }

    mutating func doubles(_ path: FieldPath, _ key: String) throws -> [Double]? {
        try array(path, key) { reader, i in
            guard try reader.kind() == .number else {
                throw RouteParseError.typeMismatch(path: "\(FieldPath.index(.key(path, key), i))", expected: "a number")
            }
            return try reader.readNumber()
        }
    }

    mutating func strings(_ path: FieldPath, _ key: String) throws -> [String]? {
        try array(path, key) { reader, i in
            guard try reader.kind() == .string else {
                throw RouteParseError.typeMismatch(path: "\(FieldPath.index(.key(path, key), i))", expected: "a string")
            }
            return try reader.readString()
        }
    }

    /// An array of objects at `path.key`, each read with `make` (given its path), or nil for `null`.
    mutating func objects<T>(_ path: FieldPath, _ key: String, _ make: (inout JSONReader, FieldPath) throws -> T) throws -> [T]? {
        try array(path, key) { reader, i in try make(&reader, .index(.key(path, key), i)) }
    }
}
