/// The JSON text navd's writers append to: bytes in memory of its own (a pointer, a count and a capacity), its
/// appends inlined into the writers.
///
/// Written into a Swift array, a key or a number's digits cost about 90 instructions an append (the array's generic
/// `append(contentsOf:)`, its check whether the storage is shared, its growth path), and a `trip_state` line is
/// dozens of them, a `route` event thousands. Here an append is a capacity check and a copy. Not copyable: one
/// owner writes it, and it frees its memory when that owner is done; ``bytes`` copies the text out as an array.
public struct JSONOutput: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>?
    /// Bytes written, at the front of `base`.
    @usableFromInline var written: Int
    /// Bytes `base` has room for.
    @usableFromInline var capacity: Int

    /// An empty text with room for `capacity` bytes (it grows past them when needed).
    public init(capacity: Int = 0) {
        precondition(capacity >= 0, "a JSON text's capacity is not negative")
        base = capacity > 0 ? UnsafeMutablePointer<UInt8>.allocate(capacity: capacity) : nil
        written = 0
        self.capacity = capacity
    }

    deinit { base?.deallocate() }

    /// Bytes written so far.
    @inlinable
    public var count: Int { written }

    @inlinable
    public var isEmpty: Bool { written == 0 }

    /// The text as an array (a copy).
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// The text `write` writes, as an array.
    public static func bytes(_ write: (inout JSONOutput) throws -> Void) rethrows -> [UInt8] {
        var out = JSONOutput()
        try write(&out)
        return out.bytes
    }

    /// The text so far, for reading while `body` runs.
    @inlinable
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    /// The byte at `index` (0..<count).
    @inlinable
    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < written, "a JSON text's byte within its text")
        return base.unsafelyUnwrapped[index]
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if written == capacity { grow(toHold: written &+ 1) }
        base.unsafelyUnwrapped[written] = byte
        written &+= 1
    }

    @inlinable @inline(__always)
    public mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        guard length > 0, let source = bytes.baseAddress else { return }
        if capacity &- written < length { grow(toHold: written + length) }
        UnsafeMutableRawPointer(base.unsafelyUnwrapped + written).copyMemory(from: source, byteCount: length)
        written &+= length
    }

    @inlinable @inline(__always)
    public mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: UnsafeRawBufferPointer(bytes))
    }

    /// A text fixed when navd is built (a key, a literal).
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable
    public mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    @inlinable
    public mutating func append(contentsOf bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// The bytes of `other` in `range` (within its text).
    @inlinable
    public mutating func append(contentsOf other: borrowing JSONOutput, in range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= other.written, "a piece of a JSON text within it")
        other.withUnsafeBytes { append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Forgets the last `count` bytes (at most all of them).
    public mutating func removeLast(_ count: Int) {
        precondition(count >= 0 && count <= written, "removing at most the JSON text's bytes")
        written -= count
    }

    /// Room for at least `needed` bytes: twice the capacity, or `needed` if that is more. Not inlined: taken once in
    /// a while, not on every append.
    @usableFromInline
    mutating func grow(toHold needed: Int) {
        let newCapacity = Swift.max(needed, 2 * capacity, 64)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        if let base {
            newBase.initialize(from: base, count: written)
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }
}
