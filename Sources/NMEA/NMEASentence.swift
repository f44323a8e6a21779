/// One NMEA 0183 sentence, split into fields. The checksum has been verified (or was absent).
public struct NMEASentence: Hashable, Sendable {
    /// Talker id: `GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `GI`, `QZ`, ... Empty for proprietary sentences.
    public var talker: String
    /// Sentence type: `RMC`, `GGA`, ... For proprietary sentences (`$P...`), the whole address, e.g. `PGRME`.
    public var type: String
    /// The fields after the address, in order (empty strings for empty fields).
    public var fields: [Substring]
    /// False when the sentence carried no checksum (some old receivers omit it).
    public var hadChecksum: Bool

    /// The field at `index`, or an empty string when the sentence is shorter.
    public subscript(index: Int) -> Substring {
        index < fields.count ? fields[index] : ""
    }
}

/// Why a line is not a usable sentence.
public enum NMEASentenceError: Error, Hashable, Sendable {
    /// No `$` or `!` start, or no address.
    case notASentence
    /// The checksum does not match the sentence.
    case badChecksum
}

extension NMEASentence {
    /// Longest line accepted, bytes. NMEA says 82, but real receivers (GSV with many satellites, proprietary
    /// sentences, high-precision RTK) send longer ones; anything past this is garbage, not a sentence.
    public static let maximumLength = 1024

    /// Parses one line (with or without its line ending). Text before the first `$` or `!` (binary noise on a
    /// serial line) is skipped.
    public static func parse<C: Collection>(_ line: C) throws(NMEASentenceError) -> NMEASentence where C.Element == UInt8 {
        var bytes = ArraySlice(line)
        guard let start = bytes.lastIndex(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "!") }) else { throw .notASentence }
        bytes = bytes[(start + 1)...]
        while let last = bytes.last, last == 0x0d || last == 0x0a || last == 0x20 { bytes.removeLast() }
        var hadChecksum = false
        if let star = bytes.lastIndex(of: UInt8(ascii: "*")) {
            let checksumText = bytes[(star + 1)...]
            guard checksumText.count == 2, let expected = UInt8(String(decoding: checksumText, as: UTF8.self), radix: 16) else {
                throw .badChecksum
            }
            let body = bytes[..<star]
            guard body.reduce(0, ^) == expected else { throw .badChecksum }
            bytes = body
            hadChecksum = true
        }
        // Printable ASCII only: anything else is line noise.
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { throw .notASentence }
        let text = String(decoding: bytes, as: UTF8.self)
        // Printable ASCII: one byte per character, so the fields are cut at the commas' bytes (splitting by
        // Character and asking each character's Unicode properties was a tenth of a fix's time in navd).
        // The address is the first part and not a field: it is kept apart rather than removed from the front of
        // the fields (which moved every field).
        var addressPart: Substring?
        var parts: [Substring] = []
        parts.reserveCapacity(24)
        let utf8 = text.utf8
        var fieldStart = utf8.startIndex
        var index = fieldStart
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: ",") {
                if addressPart == nil { addressPart = text[fieldStart..<index] } else { parts.append(text[fieldStart..<index]) }
                fieldStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if addressPart == nil { addressPart = text[fieldStart..<utf8.endIndex] } else { parts.append(text[fieldStart..<utf8.endIndex]) }
        let address = addressPart!
        guard address.utf8.count >= 3, address.utf8.allSatisfy(Self.isASCIILetterOrDigit) else { throw .notASentence }
        if address.hasPrefix("P") {
            return NMEASentence(talker: "", type: String(address), fields: parts, hadChecksum: hadChecksum)
        }
        guard address.utf8.count == 5 else { throw .notASentence }
        return NMEASentence(
            talker: String(address.prefix(2)), type: String(address.dropFirst(2)), fields: parts, hadChecksum: hadChecksum)
    }
}

extension NMEASentence {
    static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}

/// Splits a byte stream into lines without ever holding more than ``NMEASentence/maximumLength`` bytes of an
/// unfinished line: a stream of garbage without line endings costs bounded memory.
public struct NMEALineSplitter: Sendable {
    private var buffer: [UInt8] = []
    private var discarding = false
    /// Lines dropped because they grew past the maximum length.
    public private(set) var overlongLines = 0

    public init() {}

    /// Appends bytes and returns the complete lines they finish.
    public mutating func append<C: Collection>(_ bytes: C) -> [[UInt8]] where C.Element == UInt8 {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == 0x0a || byte == 0x0d {
                if !discarding, !buffer.isEmpty { lines.append(buffer) }
                buffer.removeAll(keepingCapacity: true)
                discarding = false
            } else if discarding {
                continue
            } else if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") {
                // A new sentence start: whatever came before on this line was noise.
                buffer.removeAll(keepingCapacity: true)
                buffer.append(byte)
            } else if buffer.count >= NMEASentence.maximumLength {
                overlongLines += 1
                buffer.removeAll(keepingCapacity: true)
                discarding = true
            } else {
                buffer.append(byte)
            }
        }
        return lines
    }
}
