import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
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
