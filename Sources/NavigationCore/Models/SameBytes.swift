/// Whether `a` and `b` hold the same bytes, compared a word at a time (a repeated annotation's text, a value's bits).
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    let word = MemoryLayout<UInt64>.size
    var offset = 0
    while offset + word <= a.count {
        guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
            return false
        }
        offset += word
    }
    while offset < a.count {
        guard a[offset] == b[offset] else { return false }
        offset += 1
    }
    return true
}
