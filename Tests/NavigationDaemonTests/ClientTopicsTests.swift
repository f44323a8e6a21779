import NavigationProtocol
import Testing

@testable import NavigationDaemon

/// A client's subscription as a bit mask: every type its own bit, and the mask says what the set said.
@Suite("Client topics")
struct ClientTopicsTests {
    @Test func everyEventTypeHasItsOwnBit() {
        let bits = EventType.allCases.map(\.topicBit)
        #expect(bits.allSatisfy { $0.nonzeroBitCount == 1 })
        #expect(Set(bits).count == EventType.allCases.count)
    }

    @Test func aNewClientWantsEveryType() {
        let client = ClientConnection(id: 1, peer: PeerCredentials(pid: 0, uid: 0, gid: 0), mayControl: false, queueLimit: 8)
        #expect(client.topics == Set(EventType.allCases))
        #expect(EventType.allCases.allSatisfy(client.wants))
    }

    /// Each subscription is read back as set and wanted type by type, for subsets drawn from the types' bits.
    @Test(arguments: [0, 1, 0b101, 0x7FFF, 0x2AAA, 0x5555, 1 << 14, 0b110_0000_0011])
    func aSubscriptionIsWantedTypeByType(selection: Int) {
        let chosen = Set(EventType.allCases.enumerated().filter { selection & (1 << $0.offset) != 0 }.map(\.element))
        let client = ClientConnection(id: 1, peer: PeerCredentials(pid: 0, uid: 0, gid: 0), mayControl: true, queueLimit: 8)
        client.topics = chosen
        #expect(client.topics == chosen)
        for type in EventType.allCases { #expect(client.wants(type) == chosen.contains(type)) }
    }
}
