import NavigationCore

/// TOML 1.0 (https://toml.io/en/v1.0.0) into ``JSONValue``: tables and inline tables become objects, arrays and
/// arrays of tables arrays, integers and floats numbers; dates and times stay their TOML text. Every syntax error
/// and every key or table defined twice is refused with its line and column.
///
/// navd's own parser, so that reading a configuration needs no C++ library and no Foundation.
enum TOMLParser {
    struct Failure: Error, CustomStringConvertible {
        /// 1-based, of the character where the problem was found.
        var line: Int
        var column: Int
        var message: String
        var description: String { "line \(line), column \(column): \(message)" }
    }

    static func parse(_ text: String) throws(Failure) -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        try parser.parseDocument()
        return parser.root.json
    }

    /// A table while the document is read: how it was defined decides what may still be added to it.
    fileprivate final class Table {
        enum Origin {
            /// Made on the way to a deeper header (`[a.b]` makes `a`): a later `[a]` may still define it.
            case implicit
            /// A `[header]` (or an `[[array]]` element): defined once.
            case header
            /// Dotted keys (`a.b = 1` makes `a`): more dotted keys may add to it, a header may not.
            case dotted
        }

        enum Entry {
            case value(JSONValue)
            case table(Table)
            case arrayOfTables([Table])
        }

        var origin: Origin
        var entries: [String: Entry] = [:]

        init(origin: Origin) { self.origin = origin }

        var json: JSONValue {
            .object(
                entries.mapValues { entry in
                    switch entry {
                    case .value(let value): value
                    case .table(let table): table.json
                    case .arrayOfTables(let tables): .array(tables.map(\.json))
                    }
                })
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lineStart = 0
        let root = Table(origin: .header)
        /// Where `key = value` lines go: the last header's table.
        var current: Table
        /// Arrays and inline tables open around the value being read (bounded, so that hostile input cannot
        /// exhaust the stack).
        var depth = 0
        static let maximumDepth = 128

        init(bytes: [UInt8]) {
            self.bytes = bytes
            current = root
        }

        // MARK: Reading

        var atEnd: Bool { index >= bytes.count }
        var byte: UInt8 { bytes[index] }

        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        func fail(_ message: String) -> Failure {
            // The column counts characters, not bytes.
            let column = String(decoding: bytes[lineStart..<min(index, bytes.count)], as: UTF8.self).count + 1
            return Failure(line: line, column: column, message: message)
        }

        mutating func advance() {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }

        mutating func skipSpaces() {
            while let next = peek(), next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") { index += 1 }
        }

        mutating func skipComment() throws(Failure) {
            guard peek() == UInt8(ascii: "#") else { return }
            while let next = peek(), next != UInt8(ascii: "\n") {
                if next == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { break }
                guard Self.mayAppearInText(next) else { throw fail("a control character in a comment") }
                index += 1
            }
        }

        /// After a statement: spaces, an optional comment, then a line break or the end.
        mutating func expectLineEnd() throws(Failure) {
            skipSpaces()
            try skipComment()
            guard let next = peek() else { return }
            if next == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                index += 1
                advance()
            } else if next == UInt8(ascii: "\n") {
                advance()
            } else {
                throw fail("expected the end of the line, found \(shownCharacter)")
            }
        }

        /// Inside arrays: white space, line breaks and comments.
        mutating func skipBlank() throws(Failure) {
            while true {
                skipSpaces()
                try skipComment()
                guard let next = peek() else { return }
                if next == UInt8(ascii: "\n") {
                    advance()
                } else if next == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                    index += 1
                    advance()
                } else {
                    return
                }
            }
        }

        static func show(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
        }

        /// The character at the current position, for messages: `Í`, not its first byte.
        var shownCharacter: String {
            guard let first = peek() else { return "the end of the file" }
            guard first >= 0x80 else { return "'\(Self.show(first))'" }
            let text = String(decoding: bytes[index..<min(index + 4, bytes.count)], as: UTF8.self)
            return text.first.map { "'\($0)'" } ?? "'\(Self.show(first))'"
        }

        // MARK: Statements

        mutating func parseDocument() throws(Failure) {
            while true {
                try skipBlank()
                guard let next = peek() else { return }
                if next == UInt8(ascii: "[") {
                    try parseHeader()
                } else {
                    try parseKeyValue(into: current, inline: false)
                }
                try expectLineEnd()
            }
        }

        mutating func parseHeader() throws(Failure) {
            index += 1
            let isArray = peek() == UInt8(ascii: "[")
            if isArray { index += 1 }
            skipSpaces()
            let keys = try parseKey()
            skipSpaces()
            guard peek() == UInt8(ascii: "]") else { throw fail("expected ']' to close the table header") }
            index += 1
            if isArray {
                guard peek() == UInt8(ascii: "]") else { throw fail("expected ']]' to close the array-of-tables header") }
                index += 1
            }
            var table = root
            for (position, key) in keys.dropLast().enumerated() {
                table = try descend(table, key, path: keys[...position])
            }
            let last = keys[keys.count - 1]
            let name = keys.joined(separator: ".")
            if isArray {
                let element = Table(origin: .header)
                switch table.entries[last] {
                case nil: table.entries[last] = .arrayOfTables([element])
                case .arrayOfTables(var tables):
                    tables.append(element)
                    table.entries[last] = .arrayOfTables(tables)
                default: throw fail("'\(name)' is already defined as something other than an array of tables")
                }
                current = element
            } else {
                switch table.entries[last] {
                case nil:
                    let defined = Table(origin: .header)
                    table.entries[last] = .table(defined)
                    current = defined
                case .table(let existing) where existing.origin == .implicit:
                    existing.origin = .header
                    current = existing
                case .table:
                    throw fail("the table [\(name)] is defined twice")
                default:
                    throw fail("'\(name)' is already defined as a value or an array of tables")
                }
            }
        }

        /// The table `key` names inside `table` on the way to a header, made if missing.
        mutating func descend(_ table: Table, _ key: String, path: ArraySlice<String>) throws(Failure) -> Table {
            switch table.entries[key] {
            case nil:
                let made = Table(origin: .implicit)
                table.entries[key] = .table(made)
                return made
            case .table(let existing): return existing
            case .arrayOfTables(let tables): return tables[tables.count - 1]
            case .value: throw fail("'\(path.joined(separator: "."))' is a value, not a table")
            }
        }

        mutating func parseKeyValue(into table: Table, inline: Bool) throws(Failure) {
            let keys = try parseKey()
            skipSpaces()
            guard peek() == UInt8(ascii: "=") else { throw fail("expected '=' after the key '\(keys.joined(separator: "."))'") }
            index += 1
            skipSpaces()
            let value = try parseValue()
            var target = table
            for (position, key) in keys.dropLast().enumerated() {
                switch target.entries[key] {
                case nil:
                    let made = Table(origin: .dotted)
                    target.entries[key] = .table(made)
                    target = made
                case .table(let existing) where existing.origin == .dotted || (existing.origin == .implicit && !inline):
                    target = existing
                default:
                    throw fail("'\(keys[...position].joined(separator: "."))' is already defined and cannot take more keys here")
                }
            }
            let last = keys[keys.count - 1]
            guard target.entries[last] == nil else { throw fail("the key '\(keys.joined(separator: "."))' is defined twice") }
            target.entries[last] = .value(value)
        }

        /// A key: bare, quoted or literal parts joined by dots.
        mutating func parseKey() throws(Failure) -> [String] {
            var parts: [String] = []
            while true {
                skipSpaces()
                guard let next = peek() else { throw fail("expected a key, found the end of the file") }
                if next == UInt8(ascii: "\"") {
                    guard peek(1) != UInt8(ascii: "\"") || peek(2) != UInt8(ascii: "\"") else { throw fail("a key cannot be a multi-line string") }
                    parts.append(try parseBasicString())
                } else if next == UInt8(ascii: "'") {
                    guard peek(1) != UInt8(ascii: "'") || peek(2) != UInt8(ascii: "'") else { throw fail("a key cannot be a multi-line string") }
                    parts.append(try parseLiteralString())
                } else {
                    let start = index
                    while let byte = peek(), Self.isBareKeyByte(byte) { index += 1 }
                    guard index > start else { throw fail("expected a key, found \(shownCharacter)") }
                    parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                skipSpaces()
                guard peek() == UInt8(ascii: ".") else { return parts }
                // Each part is a table level: as bounded as nesting.
                guard parts.count < Self.maximumDepth else { throw fail("a key of more than \(Self.maximumDepth) parts") }
                index += 1
            }
        }

        static func isBareKeyByte(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }

        // MARK: Values

        mutating func parseValue() throws(Failure) -> JSONValue {
            guard let next = peek() else { throw fail("expected a value, found the end of the file") }
            switch next {
            case UInt8(ascii: "\""):
                if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") { return .string(try parseMultilineBasicString()) }
                return .string(try parseBasicString())
            case UInt8(ascii: "'"):
                if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") { return .string(try parseMultilineLiteralString()) }
                return .string(try parseLiteralString())
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "{"): return try parseInlineTable()
            default: return try parseScalar()
            }
        }

        mutating func enter() throws(Failure) {
            depth += 1
            guard depth <= Self.maximumDepth else { throw fail("arrays and inline tables nested deeper than \(Self.maximumDepth) levels") }
        }

        mutating func parseArray() throws(Failure) -> JSONValue {
            try enter()
            defer { depth -= 1 }
            index += 1
            var items: [JSONValue] = []
            while true {
                try skipBlank()
                guard let next = peek() else { throw fail("an array is not closed with ']'") }
                if next == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                items.append(try parseValue())
                try skipBlank()
                guard let after = peek() else { throw fail("an array is not closed with ']'") }
                if after == UInt8(ascii: ",") {
                    index += 1
                } else if after != UInt8(ascii: "]") {
                    throw fail("expected ',' or ']' in an array")
                }
            }
        }

        mutating func parseInlineTable() throws(Failure) -> JSONValue {
            try enter()
            defer { depth -= 1 }
            index += 1
            let table = Table(origin: .header)
            skipSpaces()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return table.json
            }
            while true {
                skipSpaces()
                try parseKeyValue(into: table, inline: true)
                skipSpaces()
                guard let next = peek() else { throw fail("an inline table is not closed with '}'") }
                if next == UInt8(ascii: "}") {
                    index += 1
                    return table.json
                }
                guard next == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in an inline table (it must stay on one line)") }
                index += 1
            }
        }

        /// Booleans, numbers, dates and times: a run of the characters they are written with.
        mutating func parseScalar() throws(Failure) -> JSONValue {
            let start = index
            while let byte = peek(), Self.isScalarByte(byte) { index += 1 }
            // A date and a time may be separated by one space: "1979-05-27 07:32:00".
            if index - start == 10, peek() == UInt8(ascii: " "), let hour = peek(1), let second = peek(2), let colon = peek(3),
                Self.isDigit(hour), Self.isDigit(second), colon == UInt8(ascii: ":")
            {
                index += 1
                while let byte = peek(), Self.isScalarByte(byte) { index += 1 }
            }
            let token = String(decoding: bytes[start..<index], as: UTF8.self)
            guard !token.isEmpty else { throw fail("expected a value, found \(shownCharacter)") }
            if token == "true" { return .bool(true) }
            if token == "false" { return .bool(false) }
            if Self.isDateOrTime(token) { return .string(token) }
            if let number = Self.number(token) { return .number(number) }
            index = start
            throw fail("'\(token)' is not a TOML value (a string needs quotes)")
        }

        /// Tab and everything but control characters: what comments and strings may hold as they are.
        static func mayAppearInText(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F) }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        static func isScalarByte(_ byte: UInt8) -> Bool {
            isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }

        /// `1979-05-27`, `07:32:00`, `1979-05-27T07:32:00.5-07:00` and the like (kept as text).
        static func isDateOrTime(_ token: String) -> Bool {
            let bytes = Array(token.utf8)
            func digits(_ range: Range<Int>) -> Bool { range.upperBound <= bytes.count && range.allSatisfy { isDigit(bytes[$0]) } }
            func time(at offset: Int) -> Bool {
                digits(offset..<offset + 2) && bytes.count > offset + 2 && bytes[offset + 2] == UInt8(ascii: ":")
                    && digits(offset + 3..<offset + 5) && bytes.count > offset + 5 && bytes[offset + 5] == UInt8(ascii: ":")
                    && digits(offset + 6..<offset + 8)
            }
            if bytes.count >= 10, digits(0..<4), bytes[4] == UInt8(ascii: "-"), digits(5..<7), bytes[7] == UInt8(ascii: "-"), digits(8..<10) {
                if bytes.count == 10 { return true }
                let separator = bytes[10]
                guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else { return false }
                return time(at: 11) && trailingTimeIsValid(bytes, from: 19)
            }
            return time(at: 0) && trailingTimeIsValid(bytes, from: 8, offsetAllowed: false)
        }

        /// Fractional seconds and an offset (`Z` or `±hh:mm`) after `hh:mm:ss`.
        static func trailingTimeIsValid(_ bytes: [UInt8], from start: Int, offsetAllowed: Bool = true) -> Bool {
            var index = start
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let digitsStart = index
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                guard index > digitsStart else { return false }
            }
            if index == bytes.count { return true }
            guard offsetAllowed else { return false }
            if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") { return index + 1 == bytes.count }
            guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), bytes.count == index + 6 else { return false }
            return isDigit(bytes[index + 1]) && isDigit(bytes[index + 2]) && bytes[index + 3] == UInt8(ascii: ":")
                && isDigit(bytes[index + 4]) && isDigit(bytes[index + 5])
        }

        /// An integer (decimal, `0x`, `0o`, `0b`; `_` between digits) or a float (`inf`, `nan` included).
        static func number(_ token: String) -> Double? {
            var text = Substring(token)
            var sign = 1.0
            if text.first == "+" || text.first == "-" {
                if text.first == "-" { sign = -1 }
                text = text.dropFirst()
            }
            if text == "inf" { return sign * .infinity }
            if text == "nan" { return .nan }
            for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
                guard sign == 1, token.first != "+", let digits = underscoresRemoved(text.dropFirst(2)), let value = Int64(digits, radix: radix) else {
                    return nil
                }
                return Double(value)
            }
            guard let first = text.first, first.isASCII, first.isNumber, let plain = underscoresRemoved(text) else { return nil }
            let isFloat = plain.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
            // No leading zeros in the integer part ("01" and "01.5" are not TOML).
            let integerPart = plain.prefix { $0.isASCII && $0.isNumber }
            if integerPart.count > 1, integerPart.first == "0" { return nil }
            if isFloat {
                // A dot needs digits on both sides; an exponent needs digits after it.
                if let dot = plain.firstIndex(of: ".") {
                    let after = plain[plain.index(after: dot)...]
                    guard dot > plain.startIndex, let digit = after.first, digit.isASCII, digit.isNumber else { return nil }
                }
                guard plain.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }), let value = Double(plain), value.isFinite else {
                    return nil
                }
                return sign * value
            }
            guard plain.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64((sign < 0 ? "-" : "") + plain) else { return nil }
            return Double(value)
        }

        /// Digits with single underscores between them; nil for `_1`, `1_`, `1__2` or an underscore next to a
        /// non-digit.
        static func underscoresRemoved(_ text: Substring) -> String? {
            var result = ""
            var previous: Character?
            for (offset, character) in text.enumerated() {
                if character == "_" {
                    guard let before = previous, before.isHexDigit, offset + 1 < text.count else { return nil }
                    let after = text[text.index(text.startIndex, offsetBy: offset + 1)]
                    guard after.isHexDigit else { return nil }
                } else {
                    result.append(character)
                }
                previous = character
            }
            return result.isEmpty ? nil : result
        }

        // MARK: Strings

        mutating func parseBasicString() throws(Failure) -> String {
            index += 1
            var scalars: [UInt8] = []
            while true {
                guard let next = peek() else { throw fail("a string is not closed with '\"'") }
                switch next {
                case UInt8(ascii: "\""):
                    index += 1
                    return try text(scalars)
                case UInt8(ascii: "\\"):
                    try parseEscape(into: &scalars)
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    throw fail("a line break in a one-line string (use \"\"\" for several lines)")
                default:
                    guard Self.mayAppearInText(next) else { throw fail("a control character in a string") }
                    scalars.append(next)
                    index += 1
                }
            }
        }

        mutating func parseMultilineBasicString() throws(Failure) -> String {
            index += 3
            try skipFirstLineBreak()
            var scalars: [UInt8] = []
            while true {
                guard let next = peek() else { throw fail("a multi-line string is not closed with '\"\"\"'") }
                if closesMultiline(UInt8(ascii: "\""), into: &scalars) { return try text(scalars) }
                if next == UInt8(ascii: "\\") {
                    // A backslash at the end of a line joins it to the next non-blank character.
                    var look = index + 1
                    while look < bytes.count, bytes[look] == UInt8(ascii: " ") || bytes[look] == UInt8(ascii: "\t") { look += 1 }
                    if look < bytes.count, bytes[look] == UInt8(ascii: "\n") || bytes[look] == UInt8(ascii: "\r") {
                        index = look
                        while let blank = peek(), blank == UInt8(ascii: " ") || blank == UInt8(ascii: "\t") || blank == UInt8(ascii: "\n")
                            || blank == UInt8(ascii: "\r")
                        {
                            advance()
                        }
                        continue
                    }
                    try parseEscape(into: &scalars)
                    continue
                }
                try appendMultilineByte(next, into: &scalars)
            }
        }

        mutating func parseLiteralString() throws(Failure) -> String {
            index += 1
            let start = index
            while true {
                guard let next = peek() else { throw fail("a string is not closed with \"'\"") }
                if next == UInt8(ascii: "'") {
                    index += 1
                    return try text(Array(bytes[start..<index - 1]))
                }
                if next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r") { throw fail("a line break in a one-line string (use ''' for several lines)") }
                guard Self.mayAppearInText(next) else { throw fail("a control character in a string") }
                index += 1
            }
        }

        mutating func parseMultilineLiteralString() throws(Failure) -> String {
            index += 3
            try skipFirstLineBreak()
            var scalars: [UInt8] = []
            while true {
                guard let next = peek() else { throw fail("a multi-line string is not closed with \"'''\"") }
                if closesMultiline(UInt8(ascii: "'"), into: &scalars) { return try text(scalars) }
                try appendMultilineByte(next, into: &scalars)
            }
        }

        /// At three `quote`s: the string ends here. Up to two more quotes right before the closing three belong to
        /// the content (`""""a""""` is `"a"`).
        mutating func closesMultiline(_ quote: UInt8, into scalars: inout [UInt8]) -> Bool {
            guard peek() == quote, peek(1) == quote, peek(2) == quote else { return false }
            var extra = 0
            while extra < 2, peek(3 + extra) == quote { extra += 1 }
            scalars.append(contentsOf: repeatElement(quote, count: extra))
            index += 3 + extra
            return true
        }

        /// A line break right after the opening delimiter is not part of the string.
        mutating func skipFirstLineBreak() throws(Failure) {
            if peek() == UInt8(ascii: "\n") {
                advance()
            } else if peek() == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                index += 1
                advance()
            }
        }

        mutating func appendMultilineByte(_ byte: UInt8, into scalars: inout [UInt8]) throws(Failure) {
            if byte == UInt8(ascii: "\r") {
                guard peek(1) == UInt8(ascii: "\n") else { throw fail("a carriage return without a line feed in a string") }
                index += 1
                return
            }
            guard byte == UInt8(ascii: "\n") || Self.mayAppearInText(byte) else {
                throw fail("a control character in a string")
            }
            scalars.append(byte)
            advance()
        }

        mutating func parseEscape(into scalars: inout [UInt8]) throws(Failure) {
            index += 1
            guard let escape = peek() else { throw fail("a string ends in the middle of an escape") }
            index += 1
            switch escape {
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                let count = escape == UInt8(ascii: "u") ? 4 : 8
                guard index + count <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + count], as: UTF8.self), radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { throw fail("an invalid \\\(Self.show(escape)) escape (\(count) hex digits of a Unicode scalar)") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                index += count
            default:
                index -= 2  // at the backslash
                throw fail("an invalid escape '\\\(Self.show(escape))'")
            }
        }

        func text(_ scalars: [UInt8]) throws(Failure) -> String {
            guard let text = String(validating: scalars, as: UTF8.self) else { throw fail("a string that is not valid UTF-8") }
            return text
        }
    }
}
