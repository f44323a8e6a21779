import NavigationCore

/// Words with a value each, looked up by a word's UTF-8 bytes without making a `String` of them: the instruction
/// check looks up every word of a route's texts as its answer arrives, and a `String` made and hashed per word was
/// most of the check's time. Built once; open addressing over a power-of-two count of slots, at most half full.
struct WordTable<Value: Sendable>: Sendable {
    /// Every word's bytes, one after another.
    private let text: [UInt8]
    /// Each word's place in ``text`` and its value.
    private let entries: [(start: Int, count: Int, value: Value)]
    /// Per slot, the index of its entry plus one; 0 for an empty slot.
    private let slots: [Int32]

    init(_ values: [String: Value]) {
        var text: [UInt8] = []
        var entries: [(start: Int, count: Int, value: Value)] = []
        var slotCount = 8
        while slotCount < 2 * values.count { slotCount *= 2 }
        var slots = [Int32](repeating: 0, count: slotCount)
        // Sorted, so that the table is the same in every run (a dictionary's order is not).
        for (word, value) in values.sorted(by: { $0.key < $1.key }) {
            let bytes = Array(word.utf8)
            var slot = Self.firstSlot(of: bytes, mask: slotCount - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (slotCount - 1) }
            entries.append((text.count, bytes.count, value))
            slots[slot] = Int32(entries.count)
            text.append(contentsOf: bytes)
        }
        self.text = text
        self.entries = entries
        self.slots = slots
    }

    /// The value of the word whose UTF-8 bytes are `word`, or nil when the table does not have it.
    func value(for word: UnsafeBufferPointer<UInt8>) -> Value? {
        let mask = slots.count - 1
        var slot = Self.firstSlot(of: word, mask: mask)
        while slots[slot] != 0 {
            let entry = entries[Int(slots[slot]) - 1]
            if entry.count == word.count, text[entry.start..<(entry.start + entry.count)].elementsEqual(word) { return entry.value }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private static func firstSlot<C: Collection>(of bytes: C, mask: Int) -> Int where C.Element == UInt8 {
        var hash = FNV1a()
        hash.mix(bytes)
        return Int(truncatingIfNeeded: hash.value ^ (hash.value >> 32)) & mask
    }
}
