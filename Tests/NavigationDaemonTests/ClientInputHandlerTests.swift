import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import NavigationProtocol
import Testing

@testable import NavigationDaemon

/// A client's frames reach its session in the order read, as they are read; while the loop owes the client a
/// queue's worth of answers its lines wait and the socket is not read; at the end of its input the outbox closes
/// once its answers are queued, or after the grace. An embedded channel shows each step: the frames run, the reads
/// asked of the socket, the end.
@Suite("Client input")
struct ClientInputHandlerTests {
    /// The session's side: answers owed (each frame run owes one), frames run, input ends.
    final class Client: Sendable {
        let limit: Int
        let owed = Mutex(0)
        let ran = Mutex<[String]>([])
        let ends = Mutex(0)
        let closing = Mutex(false)

        init(limit: Int) { self.limit = limit }

        var session: ClientInputHandler.Session {
            ClientInputHandler.Session(
                clientID: 1,
                mustWait: { self.owed.withLock { $0 } >= self.limit && !self.closing.withLock { $0 } },
                isSettled: { self.owed.withLock { $0 } == 0 || self.closing.withLock { $0 } },
                run: { frame in
                    self.owed.withLock { $0 += 1 }
                    self.ran.withLock { $0.append(ClientInputHandlerTests.name(frame)) }
                },
                endInput: { self.ends.withLock { $0 += 1 } }, isEnding: { self.closing.withLock { $0 } })
        }

        var frames: [String] { ran.withLock { $0 } }
    }

    /// Counts the reads the pipeline asks of the socket (it sits below the input handler).
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        let reads = Mutex(0)
        func read(context: ChannelHandlerContext) {
            reads.withLock { $0 += 1 }
            context.read()
        }
    }

    static func name(_ frame: LineFrame) -> String {
        switch frame {
        case .line(let buffer): String(buffer: buffer)
        case .tooLong(let length): "tooLong \(length)"
        case .refused(let error): "refused \(error.code.rawValue)"
        }
    }

    static func make(grace: TimeAmount = .seconds(10), log: CapturedLog? = nil) throws -> (EmbeddedChannel, ClientInputHandler, ReadCounter) {
        let channel = EmbeddedChannel()
        let counter = ReadCounter()
        let logger = log.map { log in Logger(label: "test") { _ in log } } ?? Logger(label: "test")
        let handler = ClientInputHandler(answerGrace: grace, logger: logger)
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, handler, counter)
    }

    static func line(_ text: String) -> LineFrame { .line(ByteBuffer(string: text)) }

    /// A started session that has read `lines` and then, when `ended`, the end of its input.
    static func started(
        limit: Int, grace: TimeAmount = .seconds(10), reading lines: [String], ended: Bool = false
    ) throws -> (channel: EmbeddedChannel, handler: ClientInputHandler, client: Client) {
        let (channel, handler, _) = try make(grace: grace)
        let client = Client(limit: limit)
        handler.start(client.session)
        for text in lines { try channel.writeInbound(line(text)) }
        if ended { channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        return (channel, handler, client)
    }

    @Test func framesReadBeforeTheSessionWaitAndRunInOrderAtItsStart() throws {
        let (channel, handler, counter) = try Self.make()
        let client = Client(limit: 16)
        try channel.writeInbound(Self.line("a"))
        try channel.writeInbound(LineFrame.refused(ProtocolError(.invalidJSON, "x")))
        channel.pipeline.read()
        #expect(client.frames.isEmpty)
        #expect(counter.reads.withLock { $0 } == 0, "the socket was read before the session existed")
        handler.start(client.session)
        #expect(client.frames == ["a", "refused invalid_json"])
        #expect(counter.reads.withLock { $0 } == 1, "the read held back was not asked at the start")
        try channel.writeInbound(Self.line("b"))
        #expect(client.frames == ["a", "refused invalid_json", "b"], "a frame read later did not run within its read")
    }

    /// With `limit` answers owed, lines wait and the socket is not read; each answer lets one more line run, and
    /// once none waits the socket is read again. Frames keep their order behind a waiting line.
    @Test(arguments: [1, 2, 5])
    func linesWaitWhileAQueuesWorthOfAnswersIsOwed(limit: Int) throws {
        let (channel, handler, counter) = try Self.make()
        let client = Client(limit: limit)
        handler.start(client.session)
        let readsAtStart = counter.reads.withLock { $0 }
        for index in 0..<(limit + 3) { try channel.writeInbound(Self.line("c\(index)")) }
        try channel.writeInbound(LineFrame.tooLong(99))
        #expect(client.frames == (0..<limit).map { "c\($0)" })
        channel.pipeline.read()
        #expect(counter.reads.withLock { $0 } == readsAtStart, "the socket was read while lines waited")
        for answered in 1...2 {
            client.owed.withLock { $0 -= 1 }
            handler.resume()
            #expect(client.frames.count == limit + answered)
            #expect(counter.reads.withLock { $0 } == readsAtStart, "the socket was read while lines waited")
        }
        // The last line runs; the frame behind it needs no answer owed to run, and then nothing waits.
        client.owed.withLock { $0 -= 1 }
        handler.resume()
        #expect(client.frames == (0..<(limit + 3)).map { "c\($0)" } + ["tooLong 99"])
        #expect(counter.reads.withLock { $0 } == readsAtStart + 1, "the held read was not asked once the lines ran")
    }

    @Test func aClosingClientsLinesAreNotHeld() throws {
        let (channel, handler, client) = try Self.started(limit: 1, reading: ["a", "b"])
        #expect(client.frames == ["a"])
        client.closing.withLock { $0 = true }
        handler.resume()
        try channel.writeInbound(Self.line("c"))
        #expect(client.frames == ["a", "b", "c"], "a closing client's lines were held (the session drops them itself)")
    }

    @Test func theInputsEndClosesTheOutboxOnceItsAnswersAreQueued() throws {
        let (channel, handler, client) = try Self.started(limit: 16, reading: ["a", "b"], ended: true)
        #expect(client.ends.withLock { $0 } == 0, "ended with two answers owed")
        client.owed.withLock { $0 -= 1 }
        handler.resume()
        #expect(client.ends.withLock { $0 } == 0, "ended with one answer owed")
        client.owed.withLock { $0 -= 1 }
        handler.resume()
        #expect(client.ends.withLock { $0 } == 1)
        // The grace's deadline, cancelled, does not end it again.
        channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        handler.resume()
        #expect(client.ends.withLock { $0 } == 1)
    }

    @Test func theInputsEndWaitsForAnswersNoLongerThanTheGrace() throws {
        let (channel, _, client) = try Self.started(limit: 16, grace: .seconds(10), reading: ["a"], ended: true)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(client.ends.withLock { $0 } == 0, "ended before the grace ran out")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(client.ends.withLock { $0 } == 1, "the answer never came and the input was not ended")
    }

    @Test func aClosedConnectionDropsWhatWaitedAndEndsNothing() throws {
        let (channel, handler, client) = try Self.started(limit: 1, reading: ["a", "b"], ended: true)
        _ = try? channel.finish()
        client.owed.withLock { $0 = 0 }
        handler.resume()
        channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        #expect(client.frames == ["a"], "a line ran after the connection closed")
        #expect(client.ends.withLock { $0 } == 0, "the outbox of a connection gone was closed by the input's end")
    }

    /// A read error closes the connection, unless the session is ending it already: a WebSocket frame over the
    /// limit is answered (`line_too_long`) and the connection closed by its writer, while the rest of the frame's
    /// bytes arrive as errors. The error is logged with the client's id (a field tester matches it to the client's
    /// connect and disconnect lines), and not when the session ends the connection itself.
    @Test(arguments: [false, true])
    func aReadErrorClosesTheConnectionUnlessTheSessionIsEndingIt(ending: Bool) throws {
        let log = CapturedLog()
        let (channel, handler, _) = try Self.make(log: log)
        let client = Client(limit: 16)
        client.closing.withLock { $0 = ending }
        handler.start(client.session)
        channel.pipeline.fireErrorCaught(ChannelError.inputClosed)
        channel.embeddedEventLoop.run()
        #expect(channel.isActive == ending)
        let logged = zip(log.messages, log.metadataOfEntries).filter { $0.0 == "client connection ended with an error" }
        #expect(logged.count == (ending ? 0 : 1))
        if !ending { #expect(logged.first?.1["client"] == "1") }
    }
}
