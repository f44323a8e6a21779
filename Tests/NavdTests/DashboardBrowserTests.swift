import Foundation
import Guidance
import NavigationCore
import Testing
import TestSupport

/// The reference dashboard in headless Chromium against the real navd, the real Valhalla (behind a
/// ``FaultyEngine`` that holds the reroute's answer back for a moment) and the simulated car missing a turn. At
/// fixed points of the drive (before the turn, off route, after the reroute, arrival) the page's DOM and its
/// pixels must show what the driver needs; its console stays free of errors; a WebSocket client and a
/// Unix-socket client of the same navd receive the same messages.
@Suite(.serialized)
struct DashboardBrowserTests {
    /// The page's colours (style.css): the route, the vehicle, the off-route band, the arrival band (day theme).
    static let colours = ["route": "2e86de", "car": "e67e22", "alarm": "c0392b", "arrived": "1e8449"]

    @Test func theDashboardFollowsAMissedTurnAndIsControlledFromThePage() throws {
        let engine = try FaultyEngine(upstream: try Engines.valhallaURL())
        defer { engine.stop() }
        let port = freePort()
        let token = "dashboard-\(UUID().uuidString)"
        let tokenPath = "/tmp/navd-web-token-\(UUID().uuidString.prefix(8))"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: tokenPath)
        let navd = try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = 60.165574, lon = 24.9406 }
                speed = 11
                time_scale = 3
                missed_turn = 2
                [routing]
                engine = "valhalla"
                url = "\(engine.url)"
                [web]
                listen = "127.0.0.1:\(port)"
                token_file = "\(tokenPath)"
                [[web.destinations]]
                name = "Kallio library"
                lat = 60.1770
                lon = 24.9480
                """)
        try navd.start()
        try #require(waitForTCPListener(port: port, timeout: 10), "no web listener:\n\(navd.log.suffix(2000))")
        let socket = try navd.connect()
        let watcher = WebSocketRecorder(try WebSocketTestClient(port: port, headers: ["Origin": "http://127.0.0.1:\(port)"]))
        let browser = try HeadlessBrowser(url: "http://127.0.0.1:\(port)/#token=\(token)")
        // Kept after the test, for a look at what the driver saw (and the README's picture).
        let shots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/dashboard-screenshots").standardized.path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)

        // The token gave the page control; the destination list comes from the config.
        #expect(try browser.waitUntil("document.getElementById('rights').textContent === 'control' && document.getElementById('places').options.length === 1", timeout: 10))
        #expect(try browser.evaluate("location.hash") == .string(""), "the token stays in the address bar")

        // The page writes distances as navd does (one rounding for texts, prompts, navctl and the page).
        let distances = [0, 4, 5, 14, 15, 94.9, 95, 124, 125, 974, 975, 1049, 1050, 1149, 1150, 1250, 9949, 9950, 10_499, 10_500, 12_345.6,
                         152, 153, 160.9, 161, 1609.344, 16_000, 16_093, 16_094, 160_934]
        for units in UnitSystem.allCases {
            let list = distances.map { String($0) }.joined(separator: ",")
            let page = try browser.evaluate("[\(list)].map(m => distance(m, '\(units.rawValue)'))").arrayValue?.compactMap(\.stringValue) ?? []
            let navd = distances.map { DistanceFormatter(units: units).abbreviated($0) }
            #expect(page == navd, "\(units): page \(page), navd \(navd)")
        }
        try browser.click("#go-place")
        let initial = try #require(socket.waitFor(timeout: 30) { $0.type == "route" }, "the page's Go sent no navigate:\n\(navd.log.suffix(2000))")
        #expect(abs((initial["route"]?["waypoints"]?.arrayValue?.last?["lat"]?.doubleValue ?? 0) - 60.177) < 0.001, "not the configured place")
        let bannerTexts = Set((initial["route"]?["steps"]?.arrayValue ?? []).flatMap { step in
            (step["visualInstructions"]?.arrayValue ?? []).compactMap { $0["primary"]?["text"]?.stringValue }
        })

        // 1. Before the turn: maneuver, distance, road, what is left, the overview with the route and the vehicle.
        let points = initial["route"]?["geometry"]?.arrayValue?.count ?? 0
        #expect(try browser.waitUntil(
            "document.body.dataset.phase === 'navigating' && document.querySelector('#overview polyline')?.dataset.points === '\(points)' && !!document.querySelector('#overview circle')",
            timeout: 10))
        let distance = try browser.text("#distance"), road = try browser.text("#road")
        let left = try browser.text("#left"), eta = try browser.text("#eta")
        #expect(distance.range(of: #"^\d+(\.\d)? (m|km)$"#, options: .regularExpression) != nil, "\(distance)")
        #expect(bannerTexts.contains(road), "road '\(road)' is no banner of the route")
        #expect(left.hasSuffix(" left") && eta.hasPrefix("arrive "), "\(left) \(eta)")
        // Screenshots now, their pixels read after the drive (reading them takes seconds the drive does not wait).
        let before = try browser.screenshot("\(shots)/1-before-the-turn.png", boxes: ["#overview", "#state"])

        // Control from the page: repeat and the voice mode reach navd and every client.
        try browser.click("#repeat")
        #expect(socket.waitFor(timeout: 10) { $0.type == "announcement" && $0["key"]?.stringValue == "repeat_maneuver" } != nil)
        _ = try browser.evaluate("(() => { const s = document.getElementById('voice-mode'); s.value = 'alerts_only'; s.dispatchEvent(new Event('change')); })()")
        #expect(socket.waitFor(timeout: 10) { $0.type == "voice" }?["mode"]?.stringValue == "alerts_only")

        // 2. Off route: the reroute's answer is held back 1.2 s, so the page must show the state while it waits.
        engine.slowDelay = 1.2
        engine.behaviour = .slow
        try #require(socket.waitFor(timeout: 90) { $0.type == "deviation" && $0["offRoute"]?.boolValue == true } != nil, "never off route")
        #expect(try browser.waitUntil("['off_route', 'rerouting'].includes(document.body.dataset.phase)", timeout: 0.7))
        let state = try browser.text("#state")
        #expect(state.hasPrefix("OFF ROUTE by "), "\(state)")
        let off = try browser.screenshot("\(shots)/2-off-route.png", boxes: ["#state"])

        // 3. After the reroute: the new route drawn, the off-route band gone, retracted prompts removed.
        let reroute = try #require(socket.waitFor(timeout: 30) { $0.type == "route" && $0["reason"]?.stringValue == "reroute" }, "no reroute:\n\(navd.log.suffix(3000))")
        engine.behaviour = .forward
        let newPoints = reroute["route"]?["geometry"]?.arrayValue?.count ?? 0
        #expect(try browser.waitUntil(
            "document.body.dataset.phase === 'navigating' && document.querySelector('#overview polyline')?.dataset.points === '\(newPoints)'", timeout: 5))
        // Every prompt of the old route from the first retracted step on: the retracted one and any earlier
        // prompt for the same maneuver ("In 200 meters, ..."), which the driver must not read any more.
        let retractions = socket.received.filter { $0.type == "instruction_retracted" }
        #expect(!retractions.isEmpty, "the missed turn retracted nothing")
        var retracted: Set<String> = []
        for retraction in retractions {
            let firstStep = (retraction["instructions"]?.arrayValue ?? []).compactMap { $0["stepIndex"]?.intValue }.min() ?? .max
            let oldRoute = retraction["routeId"]?.stringValue
            for prompt in socket.received where prompt.type == "instruction" && prompt["kind"]?.stringValue == "spoken"
                && prompt["routeId"]?.stringValue == oldRoute && (prompt["stepIndex"]?.intValue ?? -1) >= firstStep {
                if let id = prompt["instruction"]?["utteranceId"]?.stringValue { retracted.insert(id) }
            }
        }
        #expect(!retracted.isEmpty, "the missed turn retracted no prompt")
        let shown = try browser.evaluate("[...document.querySelectorAll('#recent li')].map(li => li.dataset.utterance || '')").arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(shown).isDisjoint(with: retracted), "retracted prompts still shown: \(Set(shown).intersection(retracted))")
        let rerouted = try browser.screenshot("\(shots)/3-rerouted.png", boxes: ["#overview", "#state"])

        // A reload mid-trip resumes from hello and draws the route navd navigates now (the `route` command).
        _ = try browser.call("Page.reload")
        #expect(try browser.waitUntil(
            "document.body.dataset.phase === 'navigating' && document.querySelector('#overview polyline')?.dataset.points === '\(newPoints)'", timeout: 10))

        // 4. Arrival.
        try #require(socket.waitFor(timeout: 150) { $0.type == "arrived" } != nil, "no arrival:\n\(navd.log.suffix(2000))")
        #expect(try browser.waitUntil("document.body.dataset.phase === 'arrived'", timeout: 5))
        let arrivedTexts = (try browser.text("#distance"), try browser.text("#state"))
        #expect(arrivedTexts == ("arrived", "You have arrived"), "\(arrivedTexts)")
        let arrived = try browser.screenshot("\(shots)/4-arrived.png", boxes: ["#state"])

        // Night: the driver's choice of theme darkens the page and is kept across a reload.
        try browser.click("#theme")
        _ = try browser.call("Page.reload")
        #expect(try browser.waitUntil("document.body.classList.contains('night') && document.getElementById('rights').textContent !== ''", timeout: 10))
        let night = try browser.screenshot("\(shots)/5-night.png", boxes: ["header"])
        #expect(browser.consoleErrors.isEmpty, "\(browser.consoleErrors)")

        // The pixels: the route and the vehicle drawn, the off-route band red exactly while off route, green on arrival.
        let beforeColours = try HeadlessBrowser.colours(before, Self.colours)
        #expect(beforeColours["#overview"]!["route"]! > 0.003 && beforeColours["#overview"]!["car"]! > 0.0005, "\(beforeColours)")
        #expect(beforeColours["#state"]!["alarm"]! < 0.01, "\(beforeColours)")
        let offColours = try HeadlessBrowser.colours(off, Self.colours)
        #expect(offColours["#state"]!["alarm"]! > 0.3, "\(offColours)")
        let reroutedColours = try HeadlessBrowser.colours(rerouted, Self.colours)
        #expect(reroutedColours["#state"]!["alarm"]! < 0.01 && reroutedColours["#overview"]!["route"]! > 0.003, "\(reroutedColours)")
        let arrivedColours = try HeadlessBrowser.colours(arrived, Self.colours)
        #expect(arrivedColours["#state"]!["arrived"]! > 0.3, "\(arrivedColours)")
        let nightColours = try HeadlessBrowser.colours(night, ["night": "0c0f14", "day": "f4f4f0"])
        #expect(nightColours["header"]!["night"]! > 0.5 && nightColours["header"]!["day"]! < 0.01, "\(nightColours)")

        // The WebSocket client got what the Unix-socket client got: every event both read is the same line, and
        // each saw every event but the trip_states navd may replace for a client that reads late (docs/protocol.md).
        socket.drain(for: 1)
        let overWeb = watcher.stop().filter { $0.contains(#""seq":"#) && !$0.hasPrefix(#"{"type":"hello""#) }
        let overSocket = socket.receivedLines.filter { $0.contains(#""seq":"#) && !$0.hasPrefix(#"{"type":"hello""#) && !$0.hasPrefix(#"{"type":"reply""#) }
        func bySeq(_ lines: [String]) -> [Int: String] {
            Dictionary(lines.compactMap { line in (try? JSONParser.parse(Array(line.utf8)))?["seq"]?.intValue.map { ($0, line) } }) { first, _ in first }
        }
        let web = bySeq(overWeb), unix = bySeq(overSocket)
        let common = Set(web.keys).intersection(unix.keys)
        #expect(common.count > 100, "\(common.count) events in common")
        #expect(common.allSatisfy { web[$0] == unix[$0] }, "different lines for the same seq")
        let first = max(web.keys.min() ?? 0, unix.keys.min() ?? 0), last = min(web.keys.max() ?? 0, unix.keys.max() ?? 0)
        func others(_ lines: [Int: String]) -> Set<Int> {
            Set(lines.filter { (first...last).contains($0.key) && !$0.value.hasPrefix(#"{"type":"trip_state""#) }.keys)
        }
        #expect(others(web) == others(unix), "events one client saw and the other did not: \(others(web).symmetricDifference(others(unix)).sorted())")
        #expect(navd.process?.isRunning == true)
    }

    /// The rest of the page's control and its reconnect: a destination typed as coordinates (a bad one refused by
    /// the page with its reason), cancel, and navd restarted under the open page, which comes back by itself.
    @Test func coordinatesCancelAndARestartOfNavd() throws {
        let port = freePort()
        let token = "dashboard-\(UUID().uuidString)"
        let navd = try WebBridgeDaemonTests.navd(port: port, token: token)
        try navd.start()
        try #require(waitForTCPListener(port: port, timeout: 10))
        let socket = try navd.connect()
        #expect(socket.waitFor(timeout: 5) { $0.type == "hello" } != nil)
        let browser = try HeadlessBrowser(url: "http://127.0.0.1:\(port)/#token=\(token)")
        #expect(try browser.waitUntil("document.getElementById('rights').textContent === 'control'", timeout: 10))

        _ = try browser.evaluate("document.getElementById('coordinates').value = '95, 24.9'")
        try browser.click("#go-coordinates")
        #expect(try browser.text("#message").hasPrefix("enter the destination as lat, lon"))
        _ = try browser.evaluate("document.getElementById('coordinates').value = '60.1770, 24.9480'")
        try browser.click("#go-coordinates")
        let route = try #require(socket.waitFor(timeout: 30) { $0.type == "route" }, "the typed destination sent no navigate")
        #expect(abs((route["route"]?["waypoints"]?.arrayValue?.last?["lon"]?.doubleValue ?? 0) - 24.948) < 0.001)
        #expect(try browser.waitUntil("document.body.dataset.phase === 'navigating'", timeout: 10))
        try browser.click("#cancel")
        #expect(socket.waitFor(timeout: 10) { $0.type == "instruction_retracted" && $0["reason"]?.stringValue == "cancel" } != nil)
        #expect(try browser.waitUntil("document.getElementById('message').textContent === 'trip cancelled'", timeout: 5))

        // navd stops: the page says so; navd is back: the page reconnects with its token and resumes from hello.
        navd.process?.stop()
        #expect(try browser.waitUntil("document.getElementById('connection').textContent === 'navd: reconnecting…'", timeout: 10))
        try navd.start()
        #expect(try browser.waitUntil(
            "document.getElementById('connection').textContent.startsWith('navd 0') && document.getElementById('rights').textContent === 'control'",
            timeout: 15))
        // The failed reconnects while navd was down are the browser's own reports; the page itself raised nothing.
        #expect(!browser.consoleErrors.contains { $0.hasPrefix("exception") || $0.hasPrefix("console.") }, "\(browser.consoleErrors)")
    }

}
