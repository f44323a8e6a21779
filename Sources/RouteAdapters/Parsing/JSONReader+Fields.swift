import NavigationCore

// Typed reading of an answer's fields as they come (``JSONReader``). `null` reads as absent (nil); a value of another
// type than the field's is an error naming its path (``RouteParseError/typeMismatch``), and a number outside its range
// (`1e300`, a negative distance) is one too (``CheckedNumber``): never a number passed on to the controller or the
// socket. Errors in the JSON text itself are ``JSONParser/Error``s.
//
// A path is put together on the error's way out: a reader names the field relative to the object it reads, and
// each array or object it sits in puts its own key or index in front as the error passes (``RouteParseError/within``).
// An answer has thousands of objects, and a path made for each one as it was read (as text, then as boxes on the
// heap) cost a part of every parse that no well-formed answer needs.
extension JSONReader {
    /// Opens the next value, an object; an error naming the object itself (the empty path) if it is not one.
    mutating func members() throws -> Members {
        guard try kind() == .object else { throw RouteParseError.typeMismatch(path: "", expected: "an object") }
        return try beginObject()
    }

    /// Opens the object at `key`, or nil for `null`.
    mutating func optionalMembers(_ key: String) throws -> Members? {
        if try readNull() { return nil }
        return try within(key) { reader in try reader.members() }
    }

    mutating func double(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let n = try number(key, expected: "a number") else { return nil }
        guard let checked = CheckedNumber.measure(n, in: range) else {
            throw RouteParseError.typeMismatch(path: key, expected: "a number from \(range.lowerBound) to \(range.upperBound), not \(n)")
        }
        return checked
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let n = try number(key, expected: "an integer") else { return nil }
        guard let checked = CheckedNumber.whole(n, in: range) else {
            throw RouteParseError.typeMismatch(path: key, expected: "an integer from \(range.lowerBound) to \(range.upperBound), not \(n)")
        }
        return checked
    }

    private mutating func number(_ key: String, expected: String) throws -> Double? {
        try optional(key, .number, expected: expected) { reader in try reader.readNumber() }
    }

    mutating func string(_ key: String) throws -> String? {
        try optional(key, .string, expected: "a string") { reader in try reader.readString() }
    }

    mutating func bool(_ key: String) throws -> Bool? {
        try optional(key, .bool, expected: "true or false") { reader in try reader.readBool() }
    }

    /// The value at `key` when it is of kind `wanted`, read with `read`; nil for `null`; else an error naming `key`.
    /// The kind is asked once: each ask skips white space and looks at the byte again.
    private mutating func optional<T>(_ key: String, _ wanted: Kind, expected: String, _ read: (inout JSONReader) throws -> T) throws -> T? {
        switch try kind() {
        case wanted: return try read(&self)
        case .null:
            _ = try readNull()
            return nil
        default: throw RouteParseError.typeMismatch(path: key, expected: expected)
        }
    }

    /// The array at `key`, each item read with `item` (given the item's index; its errors name the item), or nil for
    /// `null`.
    mutating func array<T>(_ key: String, _ item: (inout JSONReader, Int) throws -> T) throws -> [T]? {
        guard var items = try optionalItems(key) else { return nil }
        var result: [T] = []
        while try nextItem(&items) {
            // Room for a few at the first item: most arrays here are short (a position, bearings, lanes), and growing
            // one item at a time was a third of reading a position.
            if result.isEmpty { result.reserveCapacity(4) }
            let index = result.count
            do {
                result.append(try item(&self, index))
            } catch let error as RouteParseError {
                throw error.within("\(key)[\(index)]")
            }
        }
        return result
    }

    /// Opens the array at `key`, or nil for `null`.
    private mutating func optionalItems(_ key: String) throws -> Items? {
        switch try kind() {
        case .array: return try beginArray()
        case .null:
            _ = try readNull()
            return nil
        default: throw RouteParseError.typeMismatch(path: key, expected: "an array")
        }
    }

    /// The position at `key` (an array of numbers, `[lon, lat]`), or nil for `null`; its errors as an array's have
    /// them (`location[1]` for an item that is not a number).
    mutating func position(_ key: String) throws -> PositionDTO? {
        guard var items = try optionalItems(key) else { return nil }
        var position = PositionDTO()
        while try nextItem(&items) {
            guard try kind() == .number else {
                throw RouteParseError.typeMismatch(path: "\(key)[\(position.count)]", expected: "a number")
            }
            position.append(try readNumber())
        }
        return position
    }

    mutating func strings(_ key: String) throws -> [String]? {
        try array(key) { reader, _ in
            guard try reader.kind() == .string else { throw RouteParseError.typeMismatch(path: "", expected: "a string") }
            return try reader.readString()
        }
    }

    /// The road classes at `key` that navd knows (an array of strings; `null` is none), without a string or an array
    /// made for them.
    mutating func knownRoadClasses(_ key: String) throws -> KnownRoadClasses {
        var classes = KnownRoadClasses()
        guard var items = try optionalItems(key) else { return classes }
        var index = 0
        while try nextItem(&items) {
            guard try kind() == .string else { throw RouteParseError.typeMismatch(path: "\(key)[\(index)]", expected: "a string") }
            classes.insert(try readStringBytes())
            index += 1
        }
        return classes
    }

    /// The array of objects at `key`, each read with `make`, or nil for `null`.
    mutating func objects<T>(_ key: String, _ make: (inout JSONReader) throws -> T) throws -> [T]? {
        try array(key) { reader, _ in try make(&reader) }
    }

    /// The value at `key`, read with `body`; its errors name their paths under `key`.
    mutating func within<T>(_ key: String, _ body: (inout JSONReader) throws -> T) throws -> T {
        do {
            return try body(&self)
        } catch let error as RouteParseError {
            throw error.within(key)
        }
    }
}

extension RouteParseError {
    /// The error seen from the value around its field: `path` put in front of the path it names (`routes[0]` and
    /// `legs` make `routes[0].legs`; `steps` and `[2]` make `steps[2]`). Other errors pass unchanged.
    func within(_ path: String) -> RouteParseError {
        guard case .typeMismatch(let inner, let expected) = self else { return self }
        if inner.isEmpty || path.isEmpty { return .typeMismatch(path: inner.isEmpty ? path : inner, expected: expected) }
        return .typeMismatch(path: inner.hasPrefix("[") ? path + inner : path + "." + inner, expected: expected)
    }
}
