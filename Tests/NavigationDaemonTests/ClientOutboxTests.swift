import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import Testing

@Suite struct ClientOutboxTests {
    static func event(_ type: EventType, _ n: Int) -> ServerMessage {
        .event(type, seq: UInt64(n), routeId: "r", fields: ["n": .number(Double(n))])
    }

    static func lines(_ next: ClientOutbox.Next) -> [JSONValue] {
        switch next {
        case .lines(let lines), .closing(let lines): lines.compactMap { try? JSONParser.parse($0.dropLast()) }
        }
    }

    @Test func aNewerTripStateReplacesAQueuedOneButInstructionsAreKept() async {
        let outbox = ClientOutbox(limit: 100)
        for n in 1...5 { outbox.enqueue(Self.event(.tripState, n)) }
        outbox.enqueue(Self.event(.instruction, 6))
        outbox.enqueue(Self.event(.tripState, 7))
        outbox.enqueue(Self.event(.instruction, 8))
        let delivered = Self.lines(await outbox.next())
        #expect(delivered.map { $0["seq"]!.doubleValue! } == [6, 7, 8])
        #expect(outbox.droppedCount == 5)
    }

    @Test func overflowingEndsWithOneSlowClientErrorAndRefusesMore() async {
        let outbox = ClientOutbox(limit: 8)
        var accepted = 0
        for n in 1...20 where outbox.enqueue(Self.event(.instruction, n)) { accepted += 1 }
        #expect(accepted == 8)
        #expect(outbox.overflowed)
        guard case .closing(let lines) = await outbox.next() else {
            Issue.record("expected the final lines")
            return
        }
        let final = lines.compactMap { try? JSONParser.parse($0.dropLast()) }
        #expect(final.count == 1)
        #expect(final.first?["code"] == "slow_client")
    }

    @Test func closingDeliversWhatWasQueuedThenTheFinalMessage() async {
        let outbox = ClientOutbox(limit: 8)
        outbox.enqueue(Self.event(.route, 1))
        outbox.close(after: [.bye(reason: "stopping")])
        #expect(!outbox.enqueue(Self.event(.route, 2)))
        let lines = Self.lines(await outbox.next())
        #expect(lines.map { $0["type"]!.stringValue! } == ["route", "bye"])
    }

    @Test func aWaitingWriterWakesForANewMessage() async {
        let outbox = ClientOutbox(limit: 8)
        async let next = outbox.next()
        try? await Task.sleep(for: .milliseconds(20))
        outbox.enqueue(Self.event(.gnss, 1))
        #expect(Self.lines(await next).count == 1)
    }
}

@Suite struct ProtocolEncodingTests {
    @Test(arguments: [
        #"{"type":"status","id":"a"}"#, #"{"type":"navigate","id":7,"waypoints":[]}"#, "{\"type\":\"x\",\"s\":\"tab\\tquote\\\"nl\\n\\u0001é\"}",
    ])
    func serializedLinesParseBackToTheSameValue(_ text: String) throws {
        let value = try JSONParser.parse(Array(text.utf8))
        let line = JSONLine.serialize(value.objectValue!)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")), "one message, one line")
        #expect(try JSONParser.parse(line.dropLast()) == value)
        #expect(String(decoding: line, as: UTF8.self).hasPrefix(#"{"type":"#))
    }

    @Test func eventsCarryTypeSeqAndRouteIdEvenWhenNull() throws {
        let line = ServerMessage.event(.gnss, seq: 42, routeId: nil, fields: ["status": "ok"]).line
        let value = try JSONParser.parse(line.dropLast())
        #expect(value["seq"] == 42)
        #expect(value["routeId"] == .null)
        #expect(value["type"] == "gnss")
    }
}
