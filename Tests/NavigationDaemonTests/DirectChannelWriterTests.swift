import Glibc
import NIOCore
import NIOPosix
import Testing

@testable import NavigationDaemon

/// A writer that knows its socket (navd accepted it) sends lines to it directly and hands NIO only what the
/// socket does not take at once. Real socket pairs, a real NIO event loop: the order of lines, the hand-over when
/// the client stops reading, the return to direct sends once NIO has written everything, and a client that left.
@Suite("Client writers sending to their socket")
struct DirectChannelWriterTests {
    /// One end of a socket pair under NIO with a writer that sends to it directly; the other end for the test.
    final class Pair {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel: any Channel
        let outbox: ClientOutbox
        let writer: ChannelWriter
        let peer: CInt
        private var peerOpen = true

        /// - Parameter startingWriter: false to queue lines before the writer starts (``startWriter()``), which
        ///   then takes them all at once.
        init(outboxLimit: Int = 16, startingWriter: Bool = true) throws {
            var ends: [CInt] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            peer = ends[1]
            // As navd's socket: a client that shuts down its side is still written to.
            channel = try ClientBootstrap(group: group).channelOption(.allowRemoteHalfClosure, value: true)
                .withConnectedSocket(ends[0]).wait()
            outbox = ClientOutbox(limit: outboxLimit)
            writer = ChannelWriter(channel: channel, outbox: outbox, descriptor: ends[0])
            if startingWriter { startWriter() }
        }

        func startWriter() { writer.start(scheduler: WriterScheduler()) }

        /// Closes the test's end, as a client that leaves.
        func closePeer() {
            close(peer)
            peerOpen = false
        }

        deinit {
            if peerOpen { close(peer) }
            try? channel.close().wait()
            try? group.syncShutdownGracefully()
        }

        /// Lines sent directly, read on the event loop after the writer's drain running now: the bytes reach the
        /// test's end as each `send` returns, before the writer counts them.
        func linesSentDirectly() throws -> Int {
            let writer = self.writer
            return try channel.eventLoop.submit { writer.linesSentDirectly }.wait()
        }

        /// The system calls that sent them, read the same way.
        func directSendCalls() throws -> Int {
            let writer = self.writer
            return try channel.eventLoop.submit { writer.directSendCalls }.wait()
        }

        /// Waits (at most 5 s) until the writer sends no more lines directly: three looks 20 ms apart find the same
        /// count.
        func waitUntilTheWriterIsIdle() throws {
            var last = try linesSentDirectly()
            var unchanged = 0
            for _ in 0..<250 where unchanged < 3 {
                usleep(20_000)
                let now = try linesSentDirectly()
                unchanged = now == last ? unchanged + 1 : 0
                last = now
            }
        }

        /// Reads from the test's end until `count` bytes came or `seconds` passed without any.
        func read(bytes count: Int, seconds: Int32 = 5) -> [UInt8] {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while received.count < count {
                var poll = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&poll, 1, seconds * 1000) == 1 else { break }
                let length = buffer.withUnsafeMutableBytes { Glibc.read(peer, $0.baseAddress, $0.count) }
                if length <= 0 { break }
                received += buffer[0..<length]
            }
            return received
        }
    }

    static func line(_ number: Int, padding: Int = 0) -> [UInt8] {
        Array("\(number) \(String(repeating: "x", count: padding))\n".utf8)
    }

    @Test func linesGoStraightToTheSocketInOrder() throws {
        let pair = try Pair()
        let lines = (0..<3).map { Self.line($0) }
        for line in lines { #expect(pair.outbox.enqueue(line: line, eventType: nil)) }
        let expected = lines.flatMap { $0 }
        #expect(pair.read(bytes: expected.count) == expected)
        #expect(try pair.linesSentDirectly() == 3)
    }

    /// Lines waiting together (an input's events: a session's end, a trip_state, a route) go to the socket in one
    /// system call, in order: the client is woken once, not once per line.
    @Test(arguments: [2, 3, 64, 65, 200])
    func linesWaitingTogetherGoInOneSystemCallPerBatch(count: Int) throws {
        let pair = try Pair(outboxLimit: 1000, startingWriter: false)
        let lines = (0..<count).map { Self.line($0, padding: $0 % 7 * 100) }
        for line in lines { #expect(pair.outbox.enqueue(line: line, eventType: nil)) }
        pair.startWriter()
        let expected = lines.flatMap { $0 }
        #expect(pair.read(bytes: expected.count) == expected)
        #expect(try pair.linesSentDirectly() == count)
        let batches = (count + ChannelWriter.linesPerSend - 1) / ChannelWriter.linesPerSend
        #expect(try pair.directSendCalls() == batches)
    }

    /// The test's end reads nothing until 400 lines of 4 KB are queued: the socket takes what it has room for,
    /// NIO the rest, and once read every line is there once, in order. Then NIO holds nothing, and the next line
    /// is sent directly again. Queued while the writer runs (a line or a few at a time), or all before it starts
    /// (batches of 64 lines, the socket filling in the middle of one).
    @Test(arguments: [true, false])
    func aFullSocketHandsTheRestToNIOAndTheOrderHolds(writerRunning: Bool) throws {
        let pair = try Pair(outboxLimit: 1000, startingWriter: writerRunning)
        let count = 400
        let lines = (0..<count).map { Self.line($0, padding: 4000) }
        for line in lines { #expect(pair.outbox.enqueue(line: line, eventType: nil)) }
        if !writerRunning { pair.startWriter() }
        // Read only once the writer has taken every line (the socket full, NIO holding the rest): reading while
        // it still sends could keep the socket from ever filling.
        try pair.waitUntilTheWriterIsIdle()
        let expected = lines.flatMap { $0 }
        let received = pair.read(bytes: expected.count)
        #expect(received.count == expected.count)
        #expect(received == expected)
        let direct = try pair.linesSentDirectly()
        #expect(direct > 0)
        #expect(direct < count)  // 1.6 MB is more than a Unix socket holds: NIO took some
        let next = Self.line(count)
        #expect(pair.outbox.enqueue(line: next, eventType: nil))
        #expect(pair.read(bytes: next.count) == next)
        #expect(try pair.linesSentDirectly() == direct + 1)
    }

    /// The client shut its end for reading (the channel, which reads nothing from it, stays open): the send
    /// fails (EPIPE), NIO's write of the same line meets the same error, and the channel closes.
    @Test func aClientThatWillNotReadAgainIsClosed() throws {
        let pair = try Pair()
        #expect(pair.outbox.enqueue(line: Self.line(1), eventType: nil))
        #expect(pair.read(bytes: Self.line(1).count) == Self.line(1))
        shutdown(pair.peer, Int32(SHUT_RD))
        usleep(50_000)
        #expect(pair.channel.isActive)
        for number in 2..<6 { _ = pair.outbox.enqueue(line: Self.line(number), eventType: nil) }
        var waited = 0
        while pair.channel.isActive, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(!pair.channel.isActive)
        #expect(try pair.linesSentDirectly() == 1)
    }
}
