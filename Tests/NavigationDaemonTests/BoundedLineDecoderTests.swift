import NavigationDaemon
import NIOCore
import NIOEmbedded
import Testing

@Suite("Socket lines")
struct BoundedLineDecoderTests {
    /// Passes what the decoder fires on to the channel's inbound queue; its context is the decoder's.
    final class Relay: ChannelInboundHandler {
        typealias InboundIn = LineFrame
    }

    func decode(_ chunks: [[UInt8]], limit: Int) throws -> (frames: [LineFrame], searched: Int) {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(Relay())
        let context = try channel.pipeline.syncOperations.context(handlerType: Relay.self)
        var decoder = BoundedLineDecoder(limit: limit)
        var buffer = channel.allocator.buffer(capacity: 1024)
        for chunk in chunks {
            buffer.writeBytes(chunk)
            while try decoder.decode(context: context, buffer: &buffer) == .continue {}
        }
        var frames: [LineFrame] = []
        while let frame = try channel.readInbound(as: LineFrame.self) { frames.append(frame) }
        return (frames, decoder.bytesSearched)
    }

    /// A 60 000-byte line sent one byte per read: each byte is searched once (it was searched again on every read,
    /// 1.8 billion comparisons for this line), and the line arrives whole.
    @Test func aTrickledLineIsSearchedOnce() throws {
        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 60_000)
        let (frames, searched) = try decode((line + [UInt8(ascii: "\r"), UInt8(ascii: "\n")]).map { [$0] }, limit: 65_536)
        #expect(searched <= line.count + 2)
        #expect(frames.count == 1)
        guard case .line(let received)? = frames.first else {
            Issue.record("no line: \(frames)")
            return
        }
        #expect(received.readableBytes == line.count, "the CR is dropped")
    }

    @Test func linesSplitAnywhereArriveInOrder() throws {
        let text = Array("{\"a\":1}\n{\"b\":2}\r\n\n{\"c\":3}\n".utf8)
        for cut in 1..<text.count {
            let (frames, _) = try decode([Array(text[..<cut]), Array(text[cut...])], limit: 100)
            let lines = frames.compactMap { frame -> String? in
                guard case .line(let buffer) = frame else { return nil }
                return String(buffer: buffer)
            }
            #expect(lines == [#"{"a":1}"#, #"{"b":2}"#, "", #"{"c":3}"#], "cut at \(cut)")
        }
    }

    /// A trickled line past the limit is reported once and costs no more than the limit in memory.
    @Test func aTrickledLineOverTheLimitIsTooLongOnce() throws {
        let chunks = [[UInt8]](repeating: [UInt8(ascii: "x")], count: 5_000) + [[UInt8(ascii: "\n")], Array("ok\n".utf8)]
        let (frames, searched) = try decode(chunks, limit: 1_000)
        #expect(searched <= 5_000 + 4)
        guard case .tooLong? = frames.first, case .line(let after)? = frames.last else {
            Issue.record("\(frames)")
            return
        }
        #expect(frames.count == 2)
        #expect(String(buffer: after) == "ok")
    }
}
