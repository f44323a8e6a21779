import NIOCore
import NIOEmbedded
import Testing

@testable import NavigationDaemon

/// The writers of one event loop run in the job queued for them, or at once (`EventLoopWriters.runNow`) after an
/// input the navigation loop ran in place. An embedded event loop runs its queued jobs only when told, so what
/// each way writes, and when, is seen line by line.
@Suite("Client writers")
struct ChannelWriterTests {
    /// A connected channel on an embedded event loop, its outbox, and the writers' queue of that event loop.
    static func writer() throws -> (channel: EmbeddedChannel, outbox: ClientOutbox, queue: EventLoopWriters) {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let outbox = ClientOutbox(limit: 16)
        let scheduler = WriterScheduler()
        ChannelWriter(channel: channel, outbox: outbox).start(scheduler: scheduler)
        return (channel, outbox, scheduler.queue(for: channel.eventLoop))
    }

    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var lines: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { lines.append(String(buffer: buffer)) }
        return lines
    }

    @Test func theQueuedJobWritesWhenTheEventLoopRunsIt() throws {
        let (channel, outbox, _) = try Self.writer()
        #expect(outbox.enqueue(line: Array("a\n".utf8), eventType: nil))
        #expect(try Self.written(channel).isEmpty)
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["a\n"])
    }

    @Test func runNowWritesAtOnceAndTheJobFindsNothingLeft() throws {
        let (channel, outbox, queue) = try Self.writer()
        #expect(outbox.enqueue(line: Array("a\n".utf8), eventType: nil))
        #expect(outbox.enqueue(line: Array("b\n".utf8), eventType: nil))
        queue.runNow()
        #expect(try Self.written(channel) == ["a\n", "b\n"])
        // The job queued for the first line runs later and writes nothing twice.
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel).isEmpty)
    }

    /// A line queued after `runNow` while the earlier job is still pending is written by that job, and one queued
    /// after the job ran wakes a new one: no line is left behind either way.
    @Test func linesAfterRunNowAreNotLeftBehind() throws {
        let (channel, outbox, queue) = try Self.writer()
        #expect(outbox.enqueue(line: Array("a\n".utf8), eventType: nil))
        queue.runNow()
        #expect(outbox.enqueue(line: Array("b\n".utf8), eventType: nil))
        #expect(try Self.written(channel) == ["a\n"])
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["b\n"])
        #expect(outbox.enqueue(line: Array("c\n".utf8), eventType: nil))
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["c\n"])
    }

    @Test func runNowWithNothingWaitingWritesNothing() throws {
        let (channel, _, queue) = try Self.writer()
        queue.runNow()
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel).isEmpty)
    }
}
