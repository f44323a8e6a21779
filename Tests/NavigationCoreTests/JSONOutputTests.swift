import NavigationCore
import PropertyBased
import Testing

/// navd's own text buffer against a Swift array doing the same appends: every way in, growing from every capacity.
@Suite("JSON output buffer")
struct JSONOutputTests {
    /// `count` bytes that differ from one append to the next (so a piece copied to the wrong place shows).
    static func piece(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: seed &* 31 &+ $0 &* 7) }
    }

    static let texts: [StaticString] = ["", ",", "\":", "null", "{\"type\":", "a key somewhat longer than a few bytes"]

    /// Runs one step (`kind`, `size`) on both, the array being the model.
    static func step(_ kind: Int, _ size: Int, _ out: inout JSONOutput, _ model: inout [UInt8], _ other: borrowing JSONOutput, _ otherModel: [UInt8]) {
        switch kind {
        case 0:
            out.append(UInt8(truncatingIfNeeded: size))
            model.append(UInt8(truncatingIfNeeded: size))
        case 1:
            let bytes = piece(size, seed: model.count)
            out.append(contentsOf: bytes)
            model += bytes
        case 2:
            let text = texts[size % texts.count]
            out.append(text)
            model += UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        case 3:
            let dropped = size % (model.count + 1)
            out.removeLast(dropped)
            model.removeLast(dropped)
        case 4:
            let start = size % (otherModel.count + 1)
            let end = start + (size / 3) % (otherModel.count - start + 1)
            out.append(contentsOf: other, in: start..<end)
            model += otherModel[start..<end]
        default:
            let bytes = piece(size + 2, seed: size)
            out.append(contentsOf: bytes[1..<(size + 1)])
            model += bytes[1..<(size + 1)]
        }
    }

    @Test(arguments: [0, 1, 7, 64, 4096])
    func appendsWriteWhatAnArrayWould(capacity: Int) async {
        let steps = zip(Gen.int(in: 0...5), Gen.int(in: 0...300)).array(of: 0...120)
        await propertyCheck(count: 300, input: steps) { steps in
            var other = JSONOutput()
            let otherModel = Self.piece(200, seed: 3)
            other.append(contentsOf: otherModel)
            var out = JSONOutput(capacity: capacity)
            var model: [UInt8] = []
            for (kind, size) in steps {
                Self.step(kind, size, &out, &model, other, otherModel)
                let count = out.count
                #expect(count == model.count)
            }
            let (bytes, isEmpty) = (out.bytes, out.isEmpty)
            let byIndex = (0..<out.count).map { out[$0] }
            let read = out.withUnsafeBytes { Array($0) }
            #expect(bytes == model)
            #expect(isEmpty == model.isEmpty)
            #expect(byIndex == model)
            #expect(read == model)
        }
    }

    @Test func aBufferWithoutBytesReadsAsEmpty() {
        let empty = JSONOutput()
        let (bytes, isEmpty) = (empty.bytes, empty.isEmpty)
        #expect(bytes.isEmpty)
        #expect(isEmpty)
        #expect(JSONOutput.bytes { $0.append("null") } == Array("null".utf8))
    }
}
