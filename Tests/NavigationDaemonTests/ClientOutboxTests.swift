import Foundation
import Synchronization
import NavigationCore
import NavigationDaemon
import NIOCore
import NavigationProtocol
import Testing

@Suite struct ClientOutboxTests {
    static func event(_ type: EventType, _ n: Int) -> ServerMessage {
        .event(type, seq: UInt64(n), routeId: "r", fields: ["n": .number(Double(n))])
    }

    static func lines(_ next: ClientOutbox.Next?) -> [JSONValue] {
        let buffers: [ByteBuffer] =
            switch next {
            case .line(let line): [line]
            case .lines(let lines), .closing(let lines): lines
            case nil: []
            }
        return buffers.compactMap { try? JSONParser.parse(Array($0.readableBytesView).dropLast()) }
    }

    /// A client whose socket is full gets the newest trip_state in place of the queued one; instructions are
    /// kept.
    @Test func aClientWhoseSocketIsFullGetsTheNewestTripStateButEveryInstruction() async {
        let outbox = ClientOutbox(limit: 100)
        outbox.markSocketFull()
        for n in 1...6 { outbox.enqueue(Self.event(.tripState, n)) }
        outbox.enqueue(Self.event(.instruction, 7))
        outbox.enqueue(Self.event(.tripState, 8))
        outbox.enqueue(Self.event(.instruction, 9))
        let delivered = Self.lines(outbox.take())
        #expect(delivered.map { $0["seq"]!.doubleValue! } == [7, 8, 9])
        #expect(outbox.droppedCount == 6)
    }

    /// Taking (the socket had room again) ends the full socket: what comes next is kept.
    @Test func aSocketThatDrainedIsNoLongerBehind() async {
        let outbox = ClientOutbox(limit: 100)
        outbox.markSocketFull()
        outbox.enqueue(Self.event(.tripState, 1))
        #expect(Self.lines(outbox.take()).count == 1)
        outbox.enqueue(Self.event(.tripState, 2))
        outbox.enqueue(Self.event(.tripState, 3))
        #expect(Self.lines(outbox.take()).map { $0["seq"]!.doubleValue! } == [2, 3])
        #expect(outbox.droppedCount == 0)
    }

    /// A client that reads gets every event even when navd's writer is late and a burst waits for it (a reroute
    /// publishes several events at once, and a busy event loop drains later): two trip_states published back to
    /// back, or six, all arrive.
    @Test(arguments: [2, 6, 24])
    func aClientThatReadsGetsEveryTripStateOfABurst(count: Int) async {
        let outbox = ClientOutbox(limit: 100)
        for n in 1...count { outbox.enqueue(Self.event(n % 3 == 0 ? .instruction : .tripState, n)) }
        #expect(Self.lines(outbox.take()).map { $0["seq"]!.doubleValue! } == (1...count).map(Double.init))
        #expect(outbox.droppedCount == 0)
    }

    /// Far behind (a quarter of the limit waiting, whatever the cause), trip_states are replaced even with room in
    /// the socket, so a stalled writer does not fill the queue with stale positions.
    @Test func farBehindTheNewestTripStateReplacesTheQueuedOne() async {
        let outbox = ClientOutbox(limit: 16)
        #expect(outbox.farBehind == 4)
        for n in 1...6 { outbox.enqueue(Self.event(.tripState, n)) }
        #expect(Self.lines(outbox.take()).map { $0["seq"]!.doubleValue! } == [1, 2, 3, 6])
        #expect(outbox.droppedCount == 2)
    }

    @Test func overflowingEndsWithOneSlowClientErrorAndRefusesMore() async {
        let outbox = ClientOutbox(limit: 8)
        var accepted = 0
        for n in 1...20 where outbox.enqueue(Self.event(.instruction, n)) { accepted += 1 }
        #expect(accepted == 8)
        #expect(outbox.overflowed)
        guard case .closing(let lines) = outbox.take() else {
            Issue.record("expected the final lines")
            return
        }
        let final = lines.compactMap { try? JSONParser.parse(Array($0.readableBytesView).dropLast()) }
        #expect(final.count == 1)
        #expect(final.first?["code"] == "slow_client")
    }

    @Test func closingDeliversWhatWasQueuedThenTheFinalMessage() async {
        let outbox = ClientOutbox(limit: 8)
        outbox.enqueue(Self.event(.route, 1))
        outbox.close(after: [.bye(reason: "stopping")])
        #expect(!outbox.enqueue(Self.event(.route, 2)))
        let lines = Self.lines(outbox.take())
        #expect(lines.map { $0["type"]!.stringValue! } == ["route", "bye"])
        #expect(outbox.take() == nil, "the last lines come once")
    }

    /// The writer is woken once per batch: the first message after it found the queue empty wakes it, the
    /// messages queued before it takes them do not, and it is woken again only after it found the queue empty.
    @Test func theWriterIsWokenOncePerBatch() {
        let outbox = ClientOutbox(limit: 8)
        let wakes = Mutex(0)
        outbox.enqueue(Self.event(.gnss, 1))
        outbox.setWriter { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 1, "a message already waiting wakes a new writer at once")
        outbox.enqueue(Self.event(.gnss, 2))
        #expect(wakes.withLock { $0 } == 1)
        #expect(Self.lines(outbox.take()).count == 2)
        outbox.enqueue(Self.event(.gnss, 3))
        #expect(wakes.withLock { $0 } == 1, "the writer is still draining: it takes this one without a wake")
        #expect(Self.lines(outbox.take()).count == 1)
        #expect(outbox.take() == nil)
        outbox.enqueue(Self.event(.gnss, 4))
        #expect(wakes.withLock { $0 } == 2)
        outbox.close(after: [.bye(reason: "stopping")])
        #expect(wakes.withLock { $0 } == 2, "closing while a wake is pending needs no second one")
        #expect(Self.lines(outbox.take()).map { $0["type"]!.stringValue! } == ["gnss", "bye"])
    }
}
