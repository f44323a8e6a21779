import Foundation
import NavigationCore
@testable import NavigationDaemon
import NavigationProtocol
import Testing

/// docs/protocol.schema.json names exactly what the code implements.
@Suite struct ProtocolSchemaTests {
    static func schema() throws -> JSONValue {
        try JSONParser.parse(Data(contentsOf: ConfigTests.repoRoot.appendingPathComponent("docs/protocol.schema.json")))
    }

    @Test func everyCommandOfTheRouterIsInTheSchemaAndNoOther() throws {
        let commands = try #require(try Self.schema()["$defs"]?["command"]?["oneOf"]?.arrayValue)
        let names = Set(commands.compactMap { $0["properties"]?["type"]?["const"]?.stringValue })
        #expect(names == Set(CommandRouter.standard().commandTypes))
    }

    @Test func everyEventTypeAndErrorCodeIsInTheSchema() throws {
        let schema = try Self.schema()
        let events = Set(schema["$defs"]?["eventType"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(events == Set(EventType.allCases.map(\.rawValue)))
        let codes = Set(schema["$defs"]?["errorCode"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(codes == Set(ProtocolError.Code.allCases.map(\.rawValue)))
        let messages = schema["$defs"]?["serverMessage"]?["oneOf"]?.arrayValue ?? []
        let described = Set(messages.compactMap { $0["properties"]?["type"]?["const"]?.stringValue })
        #expect(described.isSuperset(of: events.union(["hello", "reply", "error", "bye"])))
    }

    /// docs/protocol.md describes every command, event type and error code the code has (an emptied or stale
    /// page fails here).
    @Test func theProtocolPageNamesEveryCommandEventAndErrorCode() throws {
        let page = try String(contentsOf: ConfigTests.repoRoot.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let names = CommandRouter.standard().commandTypes + EventType.allCases.map(\.rawValue) + ProtocolError.Code.allCases.map(\.rawValue)
        let missing = names.filter { !page.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/protocol.md does not name: \(missing)")
    }
}

/// `navigate`'s reply is made by hand (it comes before the route's request): the same object the `Encodable`
/// machinery makes, the router's way to it included.
@Suite struct NavigateReplyObjectTests {
    @Test(arguments: [
        NavigateReply(session: 1, waitingForFix: false),
        NavigateReply(session: 7, waitingForFix: true),
        NavigateReply(session: 2_147_483_647, waitingForFix: false, originAge: 0.25, originStale: false),
        NavigateReply(session: 3, waitingForFix: false, originAge: 42.5, originStale: true),
        NavigateReply(session: 4, waitingForFix: false, originAge: nil, originStale: true),
        NavigateReply(session: 5, waitingForFix: true, originAge: 1e-9, originStale: nil),
    ])
    func madeByHandAsTheEncoderMakesIt(reply: NavigateReply) throws {
        let encoded = try #require(try JSONValueEncoder().encode(reply).objectValue)
        #expect(reply.resultObject == encoded)
        #expect(CommandRouter.encoded(reply) == encoded)
    }
}
