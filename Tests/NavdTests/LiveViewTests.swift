import Foundation
import NavigationCore
import Testing
import TestSupport

/// `navctl watch` on a terminal (tmux): the live view redraws in place through a drive with a missed turn, a
/// reroute and the arrival, against the real navd with its simulated receiver and the real Valhalla.
@Suite(.serialized)
struct LiveViewTests {
    /// tmux on a server of the test's own (`-L`), so no one else's sessions are touched.
    static func tmux(_ server: String, _ arguments: [String]) throws -> ToolRun.Output {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            Issue.record("tmux is not installed: scripts/setup installs it")
            throw CancellationError()
        }
        return try ToolRun.run(URL(fileURLWithPath: "/usr/bin/tmux"), ["-L", server] + arguments)
    }

    @Test func theLiveViewFollowsAMissedTurnTheRerouteAndTheArrival() throws {
        let navd = try NavdInstance.simulated(valhalla: try Engines.valhallaURL(), timeScale: 6, missedTurn: 2)
        try navd.start()
        let navctl = URL(fileURLWithPath: try NavdInstance.binary()).deletingLastPathComponent().appendingPathComponent("navctl").path
        let server = "navd-live-\(UUID().uuidString.prefix(8))", session = "watch"
        // The pane stays after navctl exits (sleep), so its last picture can be read. Started as an ExternalProcess
        // (output to a file): the tmux server it forks must not hold a pipe this test reads to its end.
        let command = "\(navctl) watch --socket \(navd.socketPath) --to 60.1770,24.9480 --until-arrived --timeout 120; echo navctl-exit=$?; sleep 60"
        let started = try ExternalProcess("tmux", ["-L", server, "new-session", "-d", "-s", session, "-x", "100", "-y", "34", command])
        try #require(started.waitForExit(timeout: 10) == 0, "tmux did not start: \(started.output)")
        defer { _ = try? Self.tmux(server, ["kill-server"]) }
        var screens: [String] = []
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let screen = try Self.tmux(server, ["capture-pane", "-p", "-t", session]).stdout
            if screens.last != screen { screens.append(screen) }
            if screen.contains("navctl-exit=") { break }
            usleep(250_000)
        }
        let last = try #require(screens.last)
        print("live view: \(screens.count) distinct screens; last:\n\(last)")
        #expect(last.contains("navctl-exit=0"), "navctl did not end on arrival:\n\(last)\n\(navd.log.suffix(2000))")
        #expect(last.contains("⚑  ARRIVED after"), "the last picture shows the arrival")
        // Drawn in place: every picture starts with the header, and nothing scrolled off the top.
        let drawn = screens.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        #expect(drawn.count > 10 && drawn.allSatisfy { $0.hasPrefix("navd 0.") })
        let history = try Self.tmux(server, ["display-message", "-p", "-t", session, "#{history_size}"]).stdout
        #expect(history.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the view scrolled: \(history) lines of history")
        // Guidance while navigating: an arrow with the distance, the road, time left with ETA and a progress bar.
        let guiding = screens.filter { $0.contains(" left · ") && $0.contains("ETA ") && $0.contains("[█") }
        #expect(!guiding.isEmpty, "no picture with progress:\n\(screens.prefix(3).joined(separator: "\n---\n"))")
        let arrows = ["↱", "↰", "↑", "↗", "↖", "↘", "↙", "↶", "↻", "⚑"]
        #expect(guiding.contains { screen in screen.split(separator: "\n").contains { line in arrows.contains { line.hasPrefix("  \($0)  in ") } } })
        #expect(guiding.contains { $0.contains("     on ") })
        // The missed turn: off route, the reroute, the retracted instructions, the new route.
        #expect(screens.contains { $0.contains("OFF ROUTE by") })
        #expect(screens.contains { $0.contains("retracted 2 instruction(s) (reroute)") || $0.contains("retracted") })
        #expect(screens.contains { $0.contains("reroutes 1") && $0.contains("(reroute)") })
    }
}
