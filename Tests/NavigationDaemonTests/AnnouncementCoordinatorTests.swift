import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import Testing

/// What navd says on its own, in the driver's language (`[guidance]`): rerouting when the car leaves the route,
/// GNSS lost and back, never without a trip. Canned answers; fix times.
@Suite struct AnnouncementCoordinatorTests {
    /// `said`: the tag announcements carry: the configured one, or English for a language navd does not ship.
    @Test(arguments: [("de-DE", "Neue Route wird berechnet.", "GPS-Signal ist wieder da.", "de-DE"), ("fi", "Haetaan uutta reittiä.", "GPS-signaali palasi.", "fi"),
                      ("en", "Finding a new route.", "GPS signal is back.", "en"), ("it-IT", "Finding a new route.", "GPS signal is back.", "en")])
    func navdSpeaksTheDriversLanguage(language: String, rerouting: String, gnssBack: String, said tag: String) throws {
        var config = NavdConfig()
        config.guidance.language = language
        var harness = CoordinatorHarness(config: config)
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        // Without a trip nothing is said.
        harness.coordinator.handle(.receiverLost(silentFor: 10))
        _ = harness.feed(fixes[0])
        #expect(harness.effects.events(.announcement).isEmpty)
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1...10])
        _ = harness.feed(CoordinatorHarness.fixes(along: route, offset: 120)[11...20])
        let said = harness.effects.events(.announcement)
        #expect(said.map { $0["key"]?.stringValue } == ["rerouting"], "\(said)")
        #expect(said.first?["text"]?.stringValue == rerouting && said.first?["language"]?.stringValue == tag)
        // GNSS lost during the trip, then back.
        harness.coordinator.handle(.receiverLost(silentFor: 10))
        _ = harness.take()
        _ = harness.feed(CoordinatorHarness.fixes(along: route, offset: 120)[21])
        let gnss = harness.effects.events(.announcement).map { $0["text"]?.stringValue }
        #expect(gnss.suffix(2).last == gnssBack, "\(gnss)")
        #expect(harness.effects.events(.announcement).contains { $0["key"]?.stringValue == "gnss_lost" })
    }
}

extension AnnouncementCoordinatorTests {
    /// `repeat`: the next maneuver at its distance now, in the driver's language and units, announced; refused
    /// without a trip.
    @Test func repeatSaysTheNextManeuverAtItsDistanceNow() throws {
        var config = NavdConfig()
        config.guidance.language = "de-DE"
        var harness = CoordinatorHarness(config: config)
        #expect(throws: ProtocolError.self) { try harness.coordinator.repeatPrompt() }
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1...3])
        let state = try #require(harness.effects.events(.tripState).last)
        let toManeuver = try #require(state["progress"]?["distanceToNextManeuver"]?.doubleValue)
        let banner = try #require(state["visualInstruction"]?["primary"]?["text"]?.stringValue)
        let reply = try harness.coordinator.repeatPrompt()
        let rounded = toManeuver < 95 ? Int((toManeuver / 10).rounded() * 10) : Int((toManeuver / 50).rounded() * 50)
        #expect(reply.text == "In \(max(10, rounded)) Meter: \(banner)", "\(reply.text); \(toManeuver) m to go")
        let said = try #require(harness.take().events(.announcement).last)
        #expect(said["key"]?.stringValue == "repeat_maneuver" && said["text"]?.stringValue == reply.text && said["language"]?.stringValue == "de-DE")
    }
}

extension AnnouncementCoordinatorTests {
    /// A trip in its own language and units (`navigate` `options.language`, `units`): the engine is asked in them,
    /// navd says its texts in them, voice clients are told; after the trip, `[guidance]` again.
    @Test func aTripInItsOwnLanguageAndUnits() throws {
        var config = NavdConfig()
        config.guidance.language = "de-DE"
        var harness = CoordinatorHarness(config: config)
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        // A language alone brings its region's units: American English, feet and miles.
        let command = NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)], options: RouteOptions(language: "en-US"))
        let reply = try harness.coordinator.navigate(command, now: harness.now)
        guard case .route(_, let asked)? = harness.take().startedSessions.first?.request else {
            Issue.record("no route calculation started")
            return
        }
        #expect(asked.locale == InstructionLocale(language: "en-US", imperial: true))
        #expect(asked.json.objectValue?["units"] == "imperial", "the journal keeps the trip's units")
        harness.coordinator.calculationFinished(session: reply.session, result: .success([route]), attempts: 1, now: harness.now)
        let told = try #require(harness.take().events(.voice).last)
        #expect(told["language"] == "en-US" && told["units"] == "imperial", "\(told)")
        _ = harness.feed(fixes[1...3])
        let repeated = try harness.coordinator.repeatPrompt()
        #expect(repeated.text.hasPrefix("In ") && (repeated.text.contains(" feet:") || repeated.text.contains(" mile")), "\(repeated.text)")
        #expect(harness.coordinator.snapshot().voice?.language == "en-US")
        _ = harness.take()
        // The trip ends: German and metres again, and voice clients are told.
        _ = harness.coordinator.cancel()
        let back = try #require(harness.take().events(.voice).last)
        #expect(back["language"] == "de-DE" && back["units"] == "metric", "\(back)")
    }

    /// Units alone keep the configured language; a tag that is not one, or units navd does not know, are refused.
    @Test func unitsAloneAndBadOptionsOfNavigate() throws {
        var config = NavdConfig()
        config.guidance.language = "fi"
        let harness = CoordinatorHarness(config: config)
        let resolved = harness.coordinator.settings.guidance.resolve(RouteOptions(imperial: true))
        #expect(resolved.locale == InstructionLocale(language: "fi", imperial: true))
        #expect(harness.coordinator.settings.guidance.resolve(RouteOptions()).locale == nil, "no options: the trip follows [guidance]")
        for bad in [#"{"language":"not a tag!"}"#, #"{"units":"furlongs"}"#, #"{"language":7}"#] {
            let fields = try #require(try JSONParser.parse(Array(bad.utf8)).objectValue)
            #expect(throws: ProtocolError.self) { try RouteOptions(fields: CommandFields(fields)) }
        }
        let good = try RouteOptions(fields: CommandFields(try #require(try JSONParser.parse(Array(#"{"language":"sv_SE","units":"auto"}"#.utf8)).objectValue)))
        #expect(good.language == "sv-SE" && good.imperial == nil)
    }
}
