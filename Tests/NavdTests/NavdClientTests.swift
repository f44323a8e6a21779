import Foundation
import NavdClient
import NavigationCore
import NavigationProtocol
import Testing
import TestSupport

/// The NavdClient library against the real navd (simulated receiver, real Valhalla): typed hello, commands,
/// replies, errors and events, and reconnecting across a restart of navd.
@Suite(.serialized)
struct NavdClientTests {
    static func navd() throws -> NavdInstance { try NavdInstance.simulated(valhalla: try Engines.valhallaURL(), timeScale: 8) }

    static let destination = GeographicCoordinate(latitude: 60.1686, longitude: 24.9500)

    @Test func typedCommandsRepliesAndEventsOfARealTrip() async throws {
        let navd = try Self.navd()
        try navd.start()
        let connection = try await NavdConnection.connect(path: navd.socketPath)
        #expect(connection.hello.protocol == navigationProtocolVersion)
        #expect(connection.hello.control)
        let status = try await connection.send(StatusCommand())
        #expect(status.phase == .idle && status.control == true && status.routeId == nil)

        let reply = try await connection.send(NavigateCommand(waypoints: [Waypoint(coordinate: Self.destination)]))
        #expect(reply.session == 1)
        var route: RouteEvent?
        var navigating: TripStateRecord?
        var instructions: [InstructionEvent] = []
        var arrived: ArrivedEvent?
        var previousSeq = connection.hello.seq
        for await message in connection.events {
            #expect(message.seq == previousSeq + 1, "events arrive in order, none missing")
            previousSeq = message.seq
            switch message.event {
            case .route(let event): route = event
            case .tripState(let state) where state.state == "navigating": navigating = state
            case .instruction(let instruction): instructions.append(instruction)
            case .arrived(let event): arrived = event
            default: break
            }
            if arrived != nil { break }
        }
        let shown = try #require(route)
        #expect(shown.reason == .initial && shown.session == 1 && shown.steps == shown.route.steps.count && shown.steps > 1)
        #expect(navigating?.progress != nil && navigating?.rawLocation?.speed != nil)
        #expect(instructions.contains { $0.kind == .visual && $0.visual != nil })
        #expect(instructions.contains { $0.kind == .spoken && $0.spoken?.text.isEmpty == false && $0.utteranceId == $0.spoken?.utteranceId })
        #expect(try #require(arrived).distanceTravelled > 500)

        // Refusals are typed errors, and the connection stays usable.
        await #expect(throws: NavdClientError.refused(ProtocolError(.noActiveTrip, "no trip is being navigated"))) {
            _ = try await connection.send(AdvanceCommand())
        }
        let subscribed = try await connection.send(SubscribeCommand(topics: [.gnss, .route]))
        #expect(subscribed.topics == [.route, .gnss])
        connection.close()
    }

    @Test func updatesSurviveARestartOfNavd() async throws {
        let navd = try Self.navd()
        try navd.start()
        var seen: [String] = []
        let updates = NavdConnection.updates(path: navd.socketPath, retry: 0.2...0.5)
        for await update in updates {
            switch update {
            case .connected(let hello):
                seen.append("connected \(hello.seq)")
                if seen.filter({ $0.hasPrefix("connected") }).count == 1 {
                    // navd stops (clients get bye), and comes back on the same socket.
                    navd.process?.stop(signal: SIGTERM)
                    _ = navd.process?.waitForExit(timeout: 10)
                    try navd.start()
                }
            case .disconnected(let error):
                seen.append("disconnected: \(error)")
            case .event:
                break
            }
            if seen.filter({ $0.hasPrefix("connected") }).count == 2 || seen.count > 20 { break }
        }
        #expect(seen.first?.hasPrefix("connected") == true)
        #expect(seen.contains { $0.hasPrefix("disconnected: navd closed the connection") }, "\(seen)")
        #expect(seen.filter { $0.hasPrefix("connected") }.count == 2, "\(seen)")
    }

    @Test func navdNotRunningIsOneClearError() async {
        let path = "/tmp/navd-none-\(UUID().uuidString.prefix(8)).sock"
        await #expect(throws: NavdClientError.notRunning(path: path)) { _ = try await NavdConnection.connect(path: path) }
        #expect(NavdClientError.notRunning(path: path).description.hasPrefix("navd is not running at \(path)"))
    }
}
