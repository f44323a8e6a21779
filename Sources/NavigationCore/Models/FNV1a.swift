/// FNV-1a, 64 bit: a small, fixed hash of bytes, the same in every run and on every machine (Swift's `Hasher` is
/// seeded per process). For ids that must stay the same across runs, and for tables keyed by bytes.
public struct FNV1a: Sendable {
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of the bytes mixed in so far.
    public var value: UInt64 { state }

    public init() {}

    @inlinable
    public mutating func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes { mix(byte) }
    }

    @inlinable
    public mutating func mix(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x100_0000_01b3
    }
}
