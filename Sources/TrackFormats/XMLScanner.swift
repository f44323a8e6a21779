/// A small, strict scanner for the XML that GPX files are: elements with attributes, text, CDATA, comments,
/// processing instructions and a doctype, over UTF-8 bytes. It checks that tags nest and close, decodes the five
/// named entities and character references, and never recurses (nesting depth costs only an array).
///
/// navd used Foundation's XMLParser (libxml2) until fuzzing found two inputs that crash it from inside
/// FoundationXML (malformed UTF-8 in a tag; a processing instruction without data); this also keeps libxml2 out
/// of the process.
struct XMLScanner {
    enum Event: Equatable {
        /// A start tag (also for `<a/>`, which is followed by its `.end`). `name` without its namespace prefix.
        case start(name: String, attributes: [String: String])
        case end(name: String)
        case text(String)
    }

    struct Failure: Error, Equatable {
        var message: String
        /// Byte offset of the problem; ``line`` is filled in from it when the scan ends.
        var offset: Int
        var line = 0
    }

    private let bytes: [UInt8]
    private var index = 0
    private var open: [String] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Calls `handle` for every element and text in document order, with the byte offset where it starts;
    /// throws at the first malformation, or the first failure `handle` throws, with its line number.
    mutating func scan(_ handle: (Event, _ offset: Int) throws(Failure) -> Void) throws(Failure) {
        do {
            try scanEvents(handle)
        } catch {
            var failure = error
            failure.line = line(at: failure.offset)
            throw failure
        }
    }

    private mutating func scanEvents(_ handle: (Event, _ offset: Int) throws(Failure) -> Void) throws(Failure) {
        var sawRoot = false
        while index < bytes.count {
            if bytes[index] != UInt8(ascii: "<") {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                let text = try decode(start..<index)
                if !open.isEmpty { try handle(.text(text), start) }
                else if !text.allSatisfy(\.isWhitespace) { throw fail("text outside the root element", at: start) }
                continue
            }
            let tagStart = index
            if starts(with: "<?") {
                try skip(past: "?>", what: "a processing instruction")
            } else if starts(with: "<!--") {
                try skip(past: "-->", what: "a comment")
            } else if starts(with: "<![CDATA[") {
                guard !open.isEmpty else { throw fail("CDATA outside the root element", at: tagStart) }
                index += 9
                let start = index
                try skip(past: "]]>", what: "a CDATA section")
                try handle(.text(String(decoding: bytes[start..<(index - 3)], as: UTF8.self)), start)
            } else if starts(with: "<!") {
                try skipDeclaration()
            } else if starts(with: "</") {
                index += 2
                let name = try readName()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw fail("expected '>' to end </\(name)", at: index) }
                index += 1
                guard let expected = open.popLast() else { throw fail("</\(name)> closes nothing", at: tagStart) }
                guard expected == name else { throw fail("</\(name)> where </\(expected)> was expected", at: tagStart) }
                try handle(.end(name: Self.local(name)), tagStart)
            } else {
                index += 1
                let name = try readName()
                if open.isEmpty {
                    guard !sawRoot else { throw fail("a second root element <\(name)>", at: tagStart) }
                    sawRoot = true
                }
                let attributes = try readAttributes(of: name)
                let selfClosing = starts(with: "/>")
                index += selfClosing ? 2 : 1
                try handle(.start(name: Self.local(name), attributes: attributes), tagStart)
                if selfClosing { try handle(.end(name: Self.local(name)), tagStart) } else { open.append(name) }
            }
        }
        if let unclosed = open.last { throw Failure(message: "the file ends inside <\(unclosed)> (truncated?)", offset: index) }
        if !sawRoot { throw Failure(message: "no root element", offset: index) }
    }

    /// `gpx:trkpt` → `trkpt`.
    static func local(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        return true
    }

    private mutating func skip(past terminator: StaticString, what: String) throws(Failure) {
        let start = index
        while index < bytes.count {
            if starts(with: terminator) {
                index += terminator.utf8CodeUnitCount
                return
            }
            index += 1
        }
        throw fail("\(what) that never ends", at: start)
    }

    /// `<!DOCTYPE …>`, with an internal subset in brackets.
    private mutating func skipDeclaration() throws(Failure) {
        let start = index
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where depth <= 0:
                index += 1
                return
            default: break
            }
            index += 1
        }
        throw fail("a declaration that never ends", at: start)
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func readName() throws(Failure) -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let isNameByte = byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isNameByte else { break }
            index += 1
        }
        guard index > start else { throw fail("expected a name", at: start) }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func readAttributes(of element: String) throws(Failure) -> [String: String] {
        var attributes: [String: String] = [:]
        while true {
            skipSpace()
            guard index < bytes.count else { throw fail("<\(element) never ends", at: index) }
            if bytes[index] == UInt8(ascii: ">") || starts(with: "/>") { return attributes }
            let name = try readName()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw fail("expected '=' after \(name)", at: index) }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw fail("the value of \(name) must be quoted", at: index)
            }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote {
                guard bytes[index] != UInt8(ascii: "<") else { throw fail("'<' inside the value of \(name)", at: index) }
                index += 1
            }
            guard index < bytes.count else { throw fail("the value of \(name) never ends", at: start) }
            guard attributes[Self.local(name)] == nil else { throw fail("\(name) given twice", at: start) }
            attributes[Self.local(name)] = try decode(start..<index)
            index += 1
        }
    }

    /// The text in `range` with entities and character references replaced.
    private func decode(_ range: Range<Int>) throws(Failure) -> String {
        guard bytes[range].contains(UInt8(ascii: "&")) else { return String(decoding: bytes[range], as: UTF8.self) }
        var result: [UInt8] = []
        var position = range.lowerBound
        while position < range.upperBound {
            guard bytes[position] == UInt8(ascii: "&") else {
                result.append(bytes[position])
                position += 1
                continue
            }
            guard let semicolon = bytes[position..<range.upperBound].firstIndex(of: UInt8(ascii: ";")), semicolon - position <= 10 else {
                throw fail("'&' that starts no entity", at: position)
            }
            let entity = String(decoding: bytes[(position + 1)..<semicolon], as: UTF8.self)
            let named = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
            if let text = named[entity] {
                result += Array(text.utf8)
            } else if entity.hasPrefix("#"), let code = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : UInt32(entity.dropFirst()),
                let scalar = Unicode.Scalar(code), code != 0
            {
                result += Array(String(Character(scalar)).utf8)
            } else {
                throw fail("unknown entity &\(entity);", at: position)
            }
            position = semicolon + 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    private func line(at offset: Int) -> Int {
        1 + bytes[..<min(offset, bytes.count)].lazy.filter { $0 == 0x0A }.count
    }

    private func fail(_ message: String, at offset: Int) -> Failure {
        Failure(message: message, offset: offset)
    }
}
