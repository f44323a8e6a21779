import NavigationProtocol
import NIOCore

/// One received line, or the news that a line exceeded the limit.
public enum LineFrame: Sendable {
    case line(ByteBuffer)
    /// A line longer than the limit (bytes seen so far); the server answers with an error and closes.
    case tooLong(Int)
    /// Input a transport cannot turn into a line (a binary or fragmented WebSocket frame, invalid UTF-8): the
    /// server answers with the error and reads on.
    case refused(ProtocolError)
}

/// Splits the byte stream at `\n` (dropping a `\r` before it), never buffering more than `limit` bytes of one
/// line: a client sending an endless line costs the daemon at most `limit` bytes. Each byte is looked at once:
/// a line trickled one byte per read is not rescanned from its start on every read (that was quadratic: a
/// 64 KB line sent byte by byte cost two billion comparisons).
public struct BoundedLineDecoder: ByteToMessageDecoder {
    public typealias InboundOut = LineFrame
    public let limit: Int
    private var discarding = false
    /// Readable bytes already searched for a newline (none found).
    private var scanned = 0
    /// Bytes searched for newlines so far, for the tests: at most about the bytes received.
    public private(set) var bytesSearched = 0

    public init(limit: Int) {
        self.limit = limit
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        let from = view.startIndex + min(scanned, view.count)
        let found = view[from...].firstIndex(of: UInt8(ascii: "\n"))
        bytesSearched += (found.map { $0 + 1 } ?? view.endIndex) - from
        if let newline = found {
            scanned = 0
            let length = newline - view.startIndex
            if discarding || length > limit {
                buffer.moveReaderIndex(forwardBy: length + 1)
                if !discarding { context.fireChannelRead(wrapInboundOut(.tooLong(length))) }
                discarding = false
                return .continue
            }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        }
        scanned = view.count
        if buffer.readableBytes > limit {
            if !discarding { context.fireChannelRead(wrapInboundOut(.tooLong(buffer.readableBytes))) }
            discarding = true
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            scanned = 0
        }
        return .needMoreData
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last line without a newline still counts.
        if !discarding, buffer.readableBytes > 0, let line = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }
}
