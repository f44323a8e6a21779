import NavigationCore
import Testing

/// The hash behind utterance ids (which recordings and clients keep across runs) and the instruction check's word
/// table: FNV-1a 64 as published, byte by byte.
struct FNV1aTests {
    /// The published test vectors (the FNV authors' list): the empty text is the offset basis.
    @Test(arguments: [
        ("", UInt64(0xcbf2_9ce4_8422_2325)), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
    ])
    func publishedVectors(text: String, hash: UInt64) {
        var fnv = FNV1a()
        fnv.mix(text.utf8)
        #expect(fnv.value == hash)
    }

    /// Bytes mixed one at a time or as a sequence, in pieces or at once, hash the same.
    @Test func piecesHashAsTheWhole() {
        let bytes = Array("Käänny oikealle Bulevardille".utf8)
        var whole = FNV1a()
        whole.mix(bytes)
        for cut in 0...bytes.count {
            var pieces = FNV1a()
            pieces.mix(bytes[..<cut])
            for byte in bytes[cut...] { pieces.mix(byte) }
            #expect(pieces.value == whole.value)
        }
    }
}
