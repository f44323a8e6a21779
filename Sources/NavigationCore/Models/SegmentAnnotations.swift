/// The per-segment annotations of one step, kept as the server sends them: one column per member.
///
/// An engine sends annotations as columns (`"speed": [...]`, `"maxspeed": [...]`, one value per segment). They
/// were kept as a dictionary per segment, built when the answer was read, hashed on every lookup and sorted again
/// for every segment when the `route` event was written: 40 % of navd's own work on a real answer
/// (docs/performance.md). A column per member is read in one slice per step, looked up by name in a short list,
/// and written in the order of its names, sorted once.
///
/// Element `i` is segment `i`'s ``SegmentAnnotation``, a view of this table (no copy).
public struct SegmentAnnotations: Sendable, RandomAccessCollection {
    /// Member names, sorted as ``JSONText`` sorts an object's keys, each once.
    public private(set) var names: [String]
    /// `columns[n][segment]`: member `names[n]` on that segment; nil where the segment does not have it.
    private var columns: [[JSONValue?]]
    /// Number of segments.
    public private(set) var count: Int

    /// No segments.
    public init() {
        names = []
        columns = []
        count = 0
    }

    /// `count` segments without members (a route refresh fills them in).
    public init(emptySegments count: Int) {
        names = []
        columns = []
        self.count = Swift.max(0, count)
    }

    /// A step's segments from the leg's columns: segment `i` has `column[offset + i]` of every column, for
    /// `count` segments. A column too short for them (the server's answer is from outside) is left out.
    public init(columns byName: [String: [JSONValue]], offset: Int, count: Int) {
        let wanted = Swift.max(0, offset)..<(Swift.max(0, offset) + Swift.max(0, count))
        let usable = byName.filter { $0.value.count >= wanted.upperBound }
        let sorted = usable.keys.sorted()
        names = sorted
        columns = sorted.map { name in usable[name]![wanted].map { $0 } }
        self.count = wanted.count
    }

    /// One segment per element of `segments`, in order.
    public init(_ segments: some Sequence<SegmentAnnotation>) {
        let rows = segments.map(\.values)
        names = Set(rows.flatMap(\.keys)).sorted()
        columns = names.map { name in rows.map { $0[name] } }
        count = rows.count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Segment `segment`'s annotation. Setting it replaces every member of that segment.
    public subscript(segment: Int) -> SegmentAnnotation {
        get {
            precondition(segment >= 0 && segment < count, "segment \(segment) outside 0..<\(count)")
            return SegmentAnnotation(table: self, segment: segment)
        }
        set { setSegment(segment, to: newValue.values) }
    }

    /// Replaces every member of segment `segment` with `values`.
    public mutating func setSegment(_ segment: Int, to values: [String: JSONValue]) {
        precondition(segment >= 0 && segment < count, "segment \(segment) outside 0..<\(count)")
        for n in names.indices { columns[n][segment] = values[names[n]] }
        for (name, value) in values where !names.contains(name) {
            let n = names.firstIndex { name < $0 } ?? names.endIndex
            names.insert(name, at: n)
            var column = [JSONValue?](repeating: nil, count: count)
            column[segment] = value
            columns.insert(column, at: n)
        }
    }

    /// Member `name` of segment `segment`, nil when the segment does not have it.
    public func value(_ name: String, at segment: Int) -> JSONValue? {
        memberIndex(name).flatMap { value(member: $0, at: segment) }
    }

    /// Where member `name` is in ``names``, nil when no segment has it: for a walk over many segments, which then
    /// asks ``value(member:at:)`` without comparing names each time.
    public func memberIndex(_ name: String) -> Int? {
        // A handful of names: a scan of short strings beats hashing one.
        names.firstIndex(of: name)
    }

    /// The member at `member` in ``names`` of segment `segment`, nil when the segment does not have it.
    public func value(member: Int, at segment: Int) -> JSONValue? {
        columns[member][segment]
    }

    /// Whether segment `left` of `lhs` has the same members as segment `right` of `rhs`: the two tables' names
    /// walked side by side, skipping the members a segment does not have.
    static func segment(_ left: Int, of lhs: Self, equals right: Int, of rhs: Self) -> Bool {
        var l = 0, r = 0
        while true {
            while l < lhs.names.count, lhs.columns[l][left] == nil { l += 1 }
            while r < rhs.names.count, rhs.columns[r][right] == nil { r += 1 }
            guard l < lhs.names.count, r < rhs.names.count else { return l == lhs.names.count && r == rhs.names.count }
            guard lhs.names[l] == rhs.names[r], lhs.columns[l][left] == rhs.columns[r][right] else { return false }
            l += 1
            r += 1
        }
    }

    /// Segment `segment`'s members in the order of ``names``.
    func forEachMember(of segment: Int, _ body: (String, JSONValue) -> Void) {
        for n in names.indices {
            if let value = columns[n][segment] { body(names[n], value) }
        }
    }
}

extension SegmentAnnotations: Hashable {
    /// Equal when every segment has the same members: a column no segment has does not count.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.names == rhs.names, lhs.columns == rhs.columns { return true }
        return lhs.indices.allSatisfy { segment($0, of: lhs, equals: $0, of: rhs) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for n in names.indices where columns[n].contains(where: { $0 != nil }) {
            hasher.combine(names[n])
            hasher.combine(columns[n])
        }
    }
}

extension SegmentAnnotations: ExpressibleByArrayLiteral {
    public init(arrayLiteral segments: SegmentAnnotation...) {
        self.init(segments)
    }
}

extension SegmentAnnotations: Codable {
    /// An array of objects, one per segment, as the protocol has always carried them.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([SegmentAnnotation].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(self))
    }
}

extension SegmentAnnotations: JSONTextWritable {
    /// An array of objects, one per segment, each with its members in the order of ``names`` (sorted): the tree
    /// path's bytes, each key escaped once per step rather than once per segment.
    ///
    /// The values are written column by column into one text first, each column read through its own buffer (read
    /// row by row as `columns[n][segment]`, every value retained and released the column's storage; the annotations
    /// were half of the `route` event's text), then the rows are put together from that text. A value that is
    /// the segment before's very value (``JSONValue/isIdentical(to:)``: a street's speed limit, read once for its run
    /// of segments by ``JSONReader/readValue(repeating:)``, or the same speed) takes the text written for it.
    public func writeJSON(into out: inout JSONOutput) {
        var keys = JSONOutput(capacity: names.count * 16)
        var keySpans: [Range<Int>] = []
        keySpans.reserveCapacity(names.count)
        for name in names {
            let start = keys.count
            JSONText.appendString(name, into: &keys)
            keys.append(UInt8(ascii: ":"))
            keySpans.append(start..<keys.count)
        }
        // `spans[n * count + segment]`: where that segment's value of member `n` is in `texts`; empty where the
        // segment does not have it (a value's text is never empty).
        var texts = JSONOutput(capacity: count * columns.count * 8)
        var spans = [Range<Int>](repeating: 0..<0, count: columns.count * count)
        for n in columns.indices {
            columns[n].withUnsafeBufferPointer { column in
                let first = n * count
                for segment in 0..<count {
                    guard let value = column[segment] else { continue }
                    if segment > 0, let previous = column[segment - 1], previous.isIdentical(to: value) {
                        spans[first + segment] = spans[first + segment - 1]
                        continue
                    }
                    let start = texts.count
                    JSONText.append(value, into: &texts)
                    spans[first + segment] = start..<texts.count
                }
            }
        }
        out.append(UInt8(ascii: "["))
        for segment in 0..<count {
            if segment > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            var first = true
            for n in keySpans.indices {
                let span = spans[n * count + segment]
                guard !span.isEmpty else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: keys, in: keySpans[n])
                out.append(contentsOf: texts, in: span)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }
}
