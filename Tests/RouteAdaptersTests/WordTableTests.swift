import NavigationCore
import Testing

@testable import RouteAdapters

/// The instruction check's table of words, looked up by bytes, says what a dictionary of the same words says.
struct WordTableTests {
    /// Random words (ASCII, letters with marks, other scripts, hyphens, the empty word) into a table and a
    /// dictionary; every word in it, every word out of it, and each word's prefixes looked up in both.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func saysWhatADictionarySays(seed: UInt64) {
        let pieces = ["a", "b", "ä", "ö", "e\u{301}", "-", "ß", "μ", "ς", "z", "rechts", "links", "oikealle", "ii", ""]
        var generator = SeededRandomNumberGenerator(seed: seed)
        func word() -> String { (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
        var dictionary: [String: UInt64] = [:]
        for _ in 0..<Int.random(in: 0...300, using: &generator) { dictionary[word()] = generator.next() }
        let table = WordTable(dictionary)
        var asked = Array(dictionary.keys)
        for _ in 0..<300 { asked.append(word()) }
        for key in asked {
            for prefix in [key] + (0..<key.utf8.count).map({ String(decoding: key.utf8.prefix($0), as: UTF8.self) }) {
                let found = Array(prefix.utf8).withUnsafeBufferPointer { table.value(for: $0) }
                #expect(found == dictionary[prefix], "\(prefix.debugDescription)")
            }
        }
    }

    @Test func anEmptyTableHasNoWord() {
        let table = WordTable<Int>([:])
        #expect(Array("rechts".utf8).withUnsafeBufferPointer { table.value(for: $0) } == nil)
        #expect([UInt8]().withUnsafeBufferPointer { table.value(for: $0) } == nil)
    }
}
