import NavigationProtocol
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import NavigationDaemon

/// Clients whose lines are queued on another event loop (past the navigation loop's share): every line reaches
/// them in the order the navigation loop made it, events, replies and the goodbye alike, and one whose queue
/// overflows there is handed to the overflow handler. An embedded event loop stands for the other loop: it runs
/// what was handed to it only when told, so what is queued in place and what waits for the loop is seen apart.
@Suite("Event hub: clients on other event loops")
struct EventHubLoopTests {
    static func client(_ hub: EventHub, loop: (any EventLoop)?, limit: Int = 64) -> ClientConnection {
        ClientConnection(
            id: hub.makeClientID(), clientPeer: .unix(PeerCredentials(pid: 1, uid: 0, gid: 0)), mayControl: true, queueLimit: limit,
            queueingLoop: loop)
    }

    static func voice(_ mode: VoiceMode) -> NavigationEvent { .voice(VoiceEvent(mode: mode, language: "de", units: .metric)) }

    /// Everything queued for `client`, as text.
    static func queued(_ client: ClientConnection) -> [String] {
        switch client.outbox.take() {
        case .line(let line)?: [String(buffer: line)]
        case .lines(let lines)?: lines.map { String(buffer: $0) }
        case .closing(let lines)?: lines.map { String(buffer: $0) }
        case nil: []
        }
    }

    @Test func eventsAndRepliesKeepTheLoopsOrderOnAnotherEventLoop() throws {
        let hub = EventHub()
        let other = EmbeddedEventLoop()
        let (here, there) = (Self.client(hub, loop: nil), Self.client(hub, loop: other))
        for client in [here, there] { hub.add(client) }
        hub.publish(Self.voice(.full), routeId: nil)
        let settled = Atomic(0)
        for client in [here, there] { hub.deliver(Array("{\"type\":\"reply\"}\n".utf8), to: client) { settled.add(1, ordering: .relaxed) } }
        hub.publish(Self.voice(.muted), routeId: nil)

        // Queued in place for the client on the publisher's loop, and its reply settled at once.
        let inPlace = Self.queued(here)
        #expect(inPlace.count == 3)
        #expect(settled.load(ordering: .relaxed) == 1)
        // Nothing for the other loop's client until that loop runs; then the same lines in the same order.
        #expect(Self.queued(there).isEmpty)
        other.run()
        #expect(settled.load(ordering: .relaxed) == 2)
        let elsewhere = Self.queued(there)
        #expect(elsewhere == inPlace)
        #expect(elsewhere[0].contains("\"seq\":1") && elsewhere[0].contains("\"full\""))
        #expect(elsewhere[1] == "{\"type\":\"reply\"}\n")
        #expect(elsewhere[2].contains("\"seq\":2") && elsewhere[2].contains("\"muted\""))
    }

    @Test func aClientOnAnotherLoopGetsOnlyItsTopics() throws {
        let hub = EventHub()
        let other = EmbeddedEventLoop()
        let there = Self.client(hub, loop: other)
        there.topics = [.tripState]
        hub.add(there)
        hub.publish(Self.voice(.full), routeId: nil)
        other.run()
        #expect(Self.queued(there).isEmpty)
    }

    @Test func anOverflowOnAnotherLoopReachesTheHandler() throws {
        let hub = EventHub()
        let other = EmbeddedEventLoop()
        let overflowed = Mutex<[Int]>([])
        hub.onOverflow { client in overflowed.withLock { $0.append(client.id) } }
        let reader = Self.client(hub, loop: other, limit: 4)
        let stalled = Self.client(hub, loop: other, limit: 4)
        hub.add(reader)
        hub.add(stalled)
        for round in 0..<6 {
            hub.publish(Self.voice(round % 2 == 0 ? .full : .muted), routeId: nil)
            other.run()
            _ = Self.queued(reader)
        }
        // Only the client that never took its lines (on each line refused after; the handler's grace period and
        // close happen once, NavigationService.disconnectSlow).
        let ids = overflowed.withLock { $0 }
        #expect(!ids.isEmpty && ids.allSatisfy { $0 == stalled.id }, "\(ids)")
        #expect(stalled.outbox.overflowed && !reader.outbox.overflowed)
        #expect(Self.queued(stalled).last?.contains("slow_client") == true)
    }

    @Test func theGoodbyeComesAfterWhatWasQueuedOnAnotherLoop() throws {
        let hub = EventHub()
        let other = EmbeddedEventLoop()
        let there = Self.client(hub, loop: other)
        hub.add(there)
        hub.publish(Self.voice(.full), routeId: nil)
        hub.closeAll(reason: "navd is stopping")
        other.run()
        let lines = Self.queued(there)
        #expect(lines.count == 2)
        #expect(lines.first?.contains("\"voice\"") == true)
        #expect(lines.last?.contains("\"bye\"") == true)
    }

    /// A client that left (its outbox closed, then removed) before the loop added it is not added afterwards,
    /// where it would stay for good.
    @Test func aClientThatLeftBeforeItWasAddedIsNotAdded() throws {
        let hub = EventHub()
        let gone = Self.client(hub, loop: nil)
        gone.outbox.close()
        hub.remove(gone)
        hub.add(gone)
        let published = hub.publish(Self.voice(.full), routeId: nil)
        #expect(published.overflowed.isEmpty)
        #expect(Self.queued(gone).isEmpty)
    }

    @Test func removedClientsOnAnotherLoopGetNothingMore() throws {
        let hub = EventHub()
        let other = EmbeddedEventLoop()
        let stays = Self.client(hub, loop: other)
        let leaves = Self.client(hub, loop: other)
        hub.add(stays)
        hub.add(leaves)
        hub.remove(leaves)
        hub.publish(Self.voice(.full), routeId: nil)
        other.run()
        #expect(Self.queued(stays).count == 1)
        #expect(Self.queued(leaves).isEmpty)
    }
}

/// Which event loop a new Unix socket client lives on: the navigation loop's for its first share, then the loop
/// with the fewest clients, the navigation loop first among equals.
@Suite("Client loop chooser")
struct ClientLoopChooserTests {
    /// A chooser over `count` event loops of a group of their own, the first the home loop with `share` clients.
    static func withChooser(loops count: Int, share: Int, _ body: ([any EventLoop], ClientLoopChooser) throws -> Void) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: count)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        try body(loops, ClientLoopChooser(home: loops[0], others: loops, homeClients: share))
    }

    @Test(arguments: [1, 3, 64])
    func theHomeLoopFillsItsShareThenTheFewestGetTheNext(share: Int) throws {
        try Self.withChooser(loops: 3, share: share) { loops, chooser in
            var taken: [(any EventLoop)?] = []
            for _ in 0..<share { taken.append(chooser.take()) }
            #expect(taken.allSatisfy { $0 == nil }, "the first \(share) on the home loop (queued in place)")
            for _ in 0..<(2 * share + 30) { taken.append(chooser.take()) }
            let counts = chooser.clientCounts
            #expect(counts.reduce(0, +) == taken.count)
            #expect(counts.max()! - counts.min()! <= 1, "\(counts)")
            // A loop that loses clients gets the next ones.
            for loop in taken.suffix(20).compactMap({ $0 }).filter({ $0 === loops[2] }) { chooser.release(loop) }
            let next = chooser.take()
            #expect(next === loops[2])
            // Releasing every client empties every loop.
            chooser.release(next)
            for loop in taken.dropLast(20) { chooser.release(loop) }
            for loop in taken.suffix(20) where loop !== loops[2] { chooser.release(loop) }
            #expect(chooser.clientCounts == [0, 0, 0])
        }
    }

    /// WebSocket clients live on the navigation loop and count toward its share: the Unix socket clients after
    /// them go to the other loops, and back to it once they left.
    @Test(arguments: [1, 3, 64])
    func webSocketClientsCountTowardTheHomeLoopsShare(share: Int) throws {
        try Self.withChooser(loops: 2, share: share) { loops, chooser in
            for _ in 0..<share { chooser.takeHome() }
            let unix = chooser.take()
            #expect(unix === loops[1], "a Unix socket client after \(share) WebSocket clients")
            #expect(chooser.clientCounts == [share, 1])
            // More WebSocket clients still live on the home loop, past its share.
            chooser.takeHome()
            #expect(chooser.clientCounts == [share + 1, 1])
            for _ in 0...share { chooser.release(nil) }
            #expect(chooser.take() == nil, "the home loop's share is free again")
            #expect(chooser.clientCounts == [1, 1])
        }
    }

    @Test func withOneEventLoopEveryClientIsQueuedInPlace() throws {
        try Self.withChooser(loops: 1, share: 2) { _, chooser in
            for _ in 0..<10 { #expect(chooser.take() == nil) }
            #expect(chooser.clientCounts == [10])
        }
    }
}
