import Foundation
import NavigationCore
import Testing
import TestSupport

/// Past the navigation loop's share of clients (64), navd gives new Unix socket clients to its other event loops,
/// which queue and write their lines (docs/daemon.md, *Many clients on every core*). The real navd with the real Valhalla:
/// whichever loop a client is on, it gets its hello first, every event in the one order navd made them, and its
/// replies, a command answered later included.
@Suite(.serialized)
struct ClientEventLoopsTests {
    @Test func ninetyClientsGetTheirHelloEveryEventInOneOrderAndTheirReplies() throws {
        let navd = try ClientFaultTests.busyNavd()
        try navd.start()
        var clients: [SocketClient] = []
        for index in 0..<90 {
            let client = try navd.connect()
            let first = client.next(timeout: 5)
            #expect(first?.type == "hello", "client \(index + 1)'s first line: \(String(describing: first))")
            clients.append(client)
        }
        // Every client keeps reading throughout: one that stops fills its socket, and navd then rightly replaces
        // its waiting trip_states (a gap in its sequence numbers, docs/protocol.md).
        func readAll(for seconds: Double, until done: () -> Bool = { false }) {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !done() {
                for client in clients { client.drain(for: 0.001) }
            }
        }
        func answer(_ client: SocketClient, _ id: String) -> JSONValue? {
            client.received.first { $0["id"]?.stringValue == id && ($0.type == "reply" || $0.type == "error") }
        }
        // The last to connect (on another loop on a machine of two cores or more) plans the trip: its reply comes
        // once the engine answered (a late answer), and every client gets the route.
        let last = clients[clients.count - 1]
        last.send(DeviatingDrive.navigateCommand(id: "go"))
        readAll(for: 20) { answer(last, "go") != nil && last.received.contains { $0.type == "route" } }
        #expect(answer(last, "go")?.type == "reply", "\(String(describing: answer(last, "go")))\n\(navd.log.suffix(2000))")
        #expect(last.received.contains { $0.type == "route" })
        let asking = [0, 63, 64, 65, 80]
        for index in asking { clients[index].send(#"{"type":"status","id":"s\#(index)"}"#) }
        readAll(for: 10) { asking.allSatisfy { answer(clients[$0], "s\($0)") != nil } }
        for index in asking { #expect(answer(clients[index], "s\(index)")?.type == "reply", "client \(index + 1)") }
        readAll(for: 3)
        for client in clients { client.drain(for: 0.05) }

        // Every client's events in sequence with no gap, and the same lines wherever two clients' ranges meet.
        func events(_ client: SocketClient) -> [(seq: Int, line: String)] {
            zip(client.received, client.receivedLines).compactMap { message, line in
                message.type == "hello" ? nil : message["seq"]?.doubleValue.map { (Int($0), line) }
            }
        }
        let all = clients.map(events)
        for (index, list) in all.enumerated() {
            let seqs = list.map(\.seq)
            #expect(seqs.count > 20, "client \(index + 1): \(seqs.count) events")
            #expect(seqs == Array((seqs.first ?? 0)..<((seqs.first ?? 0) + seqs.count)), "client \(index + 1): a gap or a reorder in \(seqs)")
        }
        let from = all.compactMap { $0.first?.seq }.max() ?? 0
        let to = all.compactMap { $0.last?.seq }.min() ?? 0
        #expect(to - from > 20, "the clients' common events: \(from)...\(to)")
        let reference = all[0].filter { (from...to).contains($0.seq) }.map(\.line)
        for (index, list) in all.enumerated() {
            #expect(list.filter { (from...to).contains($0.seq) }.map(\.line) == reference, "client \(index + 1)'s lines differ")
        }
        #expect(all[clients.count - 1].contains { $0.line.contains(#""type":"route""#) })
    }
}
