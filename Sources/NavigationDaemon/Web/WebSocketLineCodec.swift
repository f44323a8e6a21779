import NavigationProtocol
import NIOCore
import NIOWebSocket
import WebBridge

/// The WebSocket transport of the socket protocol, as a pipeline handler: a text frame in is a line
/// (``LineFrame``), a line out is a text frame (its newline dropped). Pings are answered, a close is echoed and
/// the channel closed. With it, a WebSocket connection reads frames of lines and takes lines to write like a Unix
/// socket connection, and the same client session (``ClientInputHandler`` above it) serves both.
final class WebSocketLineCodec: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// Bytes: the socket's `max_line_length`.
    private let limit: Int
    private var closing = false
    /// The code of the close frame navd sends when the session ends the connection.
    private var closeCode = WebSocketErrorCode.normalClosure

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard frame.fin else {
                context.fireChannelRead(wrapInboundOut(.refused(ProtocolError(.invalidMessage, "fragmented frames are not read: send each command as one frame"))))
                return
            }
            let payload = Array(frame.unmaskedData.readableBytesView)
            switch WebFrame.line(frame.opcode == .text ? .text : .binary, payload, limit: limit) {
            case .success(let line): context.fireChannelRead(wrapInboundOut(.line(context.channel.allocator.buffer(bytes: line))))
            case .failure(let error) where error.code == .lineTooLong:
                closeCode = .messageTooLarge
                context.fireChannelRead(wrapInboundOut(.tooLong(payload.count)))
            case .failure(let error): context.fireChannelRead(wrapInboundOut(.refused(error)))
            }
        case .continuation:
            context.fireChannelRead(wrapInboundOut(.refused(ProtocolError(.invalidMessage, "fragmented frames are not read: send each command as one frame"))))
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            guard !closing else { return }
            closing = true
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))).whenComplete { _ in
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    /// The frame decoder's errors: a frame over the limit is the socket's long line (`line_too_long`, and the
    /// session closes the connection); a broken frame closes the connection with WebSocket's protocol error.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? NIOWebSocketError else { return context.fireErrorCaught(error) }
        switch error {
        case .invalidFrameLength:
            closeCode = .messageTooLarge
            context.fireChannelRead(wrapInboundOut(.tooLong(limit + 1)))
        case .fragmentedControlFrame, .multiByteControlFrameLength:
            closeWithProtocolError(context: context)
        }
    }

    private func closeWithProtocolError(context: ChannelHandlerContext) {
        closeCode = .protocolError
        close(context: context, mode: .all, promise: nil)
    }

    /// The session ends the connection (a line too long, a slow client, navd stopping) as it closes a socket
    /// connection; a browser is told with a close frame first, so it sees why rather than a dropped connection.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard !closing, mode == .all else { return context.close(mode: mode, promise: promise) }
        closing = true
        var code = context.channel.allocator.buffer(capacity: 2)
        code.write(webSocketErrorCode: closeCode)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))).whenComplete { _ in
            context.close(mode: .all, promise: promise)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var line = unwrapOutboundIn(data)
        // One message per frame: the line without its newline.
        if line.readableBytesView.last == UInt8(ascii: "\n") { line.moveWriterIndex(to: line.writerIndex - 1) }
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: line)), promise: promise)
    }
}
