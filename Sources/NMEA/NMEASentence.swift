/// One NMEA 0183 sentence, split into fields. The checksum has been verified (or was absent).
///
/// The sentence keeps its bytes and where each field lies in them: the assembler reads fields as bytes (a fix's
/// epoch is read once every 100 ms, when little of what it touches is in the caches, so the fewer strings,
/// dictionaries and allocations it touches the faster it is: `navbench nmea-paced`). ``talker``, ``type`` and the
/// `Substring` fields are there for reading a sentence by eye and in tests.
public struct NMEASentence: Hashable, Sendable {
    /// The address and the fields: the bytes between `$` and `*`, printable ASCII.
    let body: ArraySlice<UInt8>
    /// Where the address ends in ``body`` (the first comma, or the end).
    let addressEnd: Int
    /// Where each field lies in ``body``, in order.
    let fieldRanges: [Range<Int>]
    /// What kind of sentence this is, for the types the assembler reads.
    let kind: NMEASentenceKind
    /// False when the sentence carried no checksum (some old receivers omit it).
    public let hadChecksum: Bool

    /// Talker id: `GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `GI`, `QZ`, ... Empty for proprietary sentences.
    public var talker: String {
        body[body.startIndex] == UInt8(ascii: "P") ? "" : String(decoding: body[body.startIndex..<body.startIndex + 2], as: UTF8.self)
    }

    /// Sentence type: `RMC`, `GGA`, ... For proprietary sentences (`$P...`), the whole address, e.g. `PGRME`.
    public var type: String {
        let start = body[body.startIndex] == UInt8(ascii: "P") ? body.startIndex : body.startIndex + 2
        return String(decoding: body[start..<addressEnd], as: UTF8.self)
    }

    /// The address, talker and type together (`GPRMC`, `PGRME`).
    var address: String { String(decoding: body[body.startIndex..<addressEnd], as: UTF8.self) }

    /// The fields after the address, in order (empty strings for empty fields).
    public var fields: [Substring] { fieldRanges.map { Substring(String(decoding: body[$0], as: UTF8.self)) } }

    /// How many fields follow the address.
    public var fieldCount: Int { fieldRanges.count }

    /// The field at `index`, or an empty string when the sentence is shorter.
    public subscript(index: Int) -> Substring {
        Substring(String(decoding: bytes(ofField: index), as: UTF8.self))
    }

    /// True when the field at `index` is exactly the one character `character` (a status, a message number).
    func field(_ index: Int, is character: UInt8) -> Bool {
        bytes(ofField: index).elementsEqual(CollectionOfOne(character))
    }

    /// The bytes of the field at `index`, empty when the sentence is shorter.
    func bytes(ofField index: Int) -> ArraySlice<UInt8> {
        index < fieldRanges.count ? body[fieldRanges[index]] : body[body.endIndex...]
    }
}

/// The sentence types the epoch assembler reads, told apart once, when a sentence is parsed.
enum NMEASentenceKind: Hashable, Sendable {
    case rmc, gga, gns, gll, gsa, vtg, gst, zda, gsv
    /// SiRF's error estimate, `$PSRFEPE`.
    case sirfErrorEstimate
    /// Any other type, proprietary sentences included.
    case other

    /// The kind of a sentence with this address (the bytes before the first comma).
    init(address: ArraySlice<UInt8>) {
        let start = address.startIndex
        if address[start] == UInt8(ascii: "P") {
            self = address.elementsEqual("PSRFEPE".utf8) ? .sirfErrorEstimate : .other
            return
        }
        guard address.count == 5 else {
            self = .other
            return
        }
        switch (address[start + 2], address[start + 3], address[start + 4]) {
        case (UInt8(ascii: "R"), UInt8(ascii: "M"), UInt8(ascii: "C")): self = .rmc
        case (UInt8(ascii: "G"), UInt8(ascii: "G"), UInt8(ascii: "A")): self = .gga
        case (UInt8(ascii: "G"), UInt8(ascii: "N"), UInt8(ascii: "S")): self = .gns
        case (UInt8(ascii: "G"), UInt8(ascii: "L"), UInt8(ascii: "L")): self = .gll
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "A")): self = .gsa
        case (UInt8(ascii: "V"), UInt8(ascii: "T"), UInt8(ascii: "G")): self = .vtg
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "T")): self = .gst
        case (UInt8(ascii: "Z"), UInt8(ascii: "D"), UInt8(ascii: "A")): self = .zda
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "V")): self = .gsv
        default: self = .other
        }
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
        // The checksum's two digits, when the sentence has them; the body is what they cover.
        var expectedChecksum: UInt8?
        if let star = bytes.lastIndex(of: UInt8(ascii: "*")) {
            let checksumText = bytes[(star + 1)...]
            guard checksumText.count == 2, let high = Self.hexDigit(checksumText.first!), let low = Self.hexDigit(checksumText.last!) else {
                throw .badChecksum
            }
            expectedChecksum = high << 4 | low
            bytes = bytes[..<star]
        }
        // One pass over the body: its checksum, whether it is printable ASCII, and its fields cut at the commas' bytes
        // (the address is the part before the first comma). The checks then come in their order: the checksum first.
        var checksum: UInt8 = 0
        var unprintable = false
        var addressEnd: Int?
        var fieldRanges: [Range<Int>] = []
        fieldRanges.reserveCapacity(24)
        var fieldStart = bytes.startIndex
        bytes.withUnsafeBufferPointer { body in
            for offset in body.indices {
                let byte = body[offset]
                checksum ^= byte
                unprintable = unprintable || byte &- 0x20 >= 0x5f  // outside 0x20 ..< 0x7f
                if byte == UInt8(ascii: ",") {
                    let index = bytes.startIndex + offset
                    if addressEnd == nil { addressEnd = index } else { fieldRanges.append(fieldStart..<index) }
                    fieldStart = index + 1
                }
            }
        }
        if let expectedChecksum, checksum != expectedChecksum { throw .badChecksum }
        let hadChecksum = expectedChecksum != nil
        // Printable ASCII only: anything else is line noise.
        guard !bytes.isEmpty, !unprintable else { throw .notASentence }
        if addressEnd == nil { addressEnd = bytes.endIndex } else { fieldRanges.append(fieldStart..<bytes.endIndex) }
        let address = bytes[bytes.startIndex..<addressEnd!]
        guard address.count >= 3, address.allSatisfy(Self.isASCIILetterOrDigit) else { throw .notASentence }
        // Proprietary sentences (`$P...`) have no talker; any other address is a talker and a type of three.
        guard address.first == UInt8(ascii: "P") || address.count == 5 else { throw .notASentence }
        return NMEASentence(
            body: bytes, addressEnd: addressEnd!, fieldRanges: fieldRanges, kind: NMEASentenceKind(address: address),
            hadChecksum: hadChecksum)
    }
}

extension NMEASentence {
    /// Equal when their bytes are: the fields follow from them.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hadChecksum == rhs.hadChecksum && lhs.body == rhs.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hadChecksum)
        hasher.combine(body)
    }

    /// The value of a hexadecimal digit (either case), nil for any other byte.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

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
        if let lines = bytes.withContiguousStorageIfAvailable({ append(contiguous: $0) }) { return lines }
        return Array(bytes).withUnsafeBufferPointer { append(contiguous: $0) }
    }

    /// Bytes that end a line (CR, LF) or start a sentence (`$`, `!`); all the others are a line's run of text.
    private static func isMark(_ byte: UInt8) -> Bool {
        byte == 0x0a || byte == 0x0d || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!")
    }

    /// A run of text between marks is appended at once and a finished line handed over as it is (its storage
    /// becomes the line's): byte by byte, with a copy of each line and new storage for the next, this was a third
    /// of a fix's epoch assembly. The rules are those of a byte at a time (NMEAParserTests holds them to it).
    private mutating func append(contiguous bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x0a || byte == 0x0d {
                if !discarding, !buffer.isEmpty {
                    lines.append(buffer)
                    buffer = []
                } else {
                    buffer.removeAll(keepingCapacity: true)
                }
                discarding = false
                i += 1
            } else if discarding {
                // Skipped up to the line's end; a sentence start does not end the discarding.
                while i < bytes.count, bytes[i] != 0x0a, bytes[i] != 0x0d { i += 1 }
            } else if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") {
                // A new sentence start: whatever came before on this line was noise.
                buffer.removeAll(keepingCapacity: true)
                if buffer.capacity == 0 { buffer.reserveCapacity(96) }  // a sentence's length (82 by NMEA) at once
                buffer.append(byte)
                i += 1
            } else {
                var end = i + 1
                while end < bytes.count, !Self.isMark(bytes[end]) { end += 1 }
                let room = NMEASentence.maximumLength - buffer.count
                if end - i <= room {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<end]))
                    i = end
                } else {
                    // The line outgrows the maximum at the byte after `room` more: dropped up to its end.
                    overlongLines += 1
                    buffer.removeAll(keepingCapacity: true)
                    discarding = true
                    i += room + 1
                }
            }
        }
        return lines
    }
}
