import NavigationCore
import NavigationProtocol
import Testing
import VoiceGuidance

/// The scheduler from navd's event lines, as a voice client gets them.
struct SpeechSchedulerTests {
    static func line(_ json: String) -> EventMessage {
        guard case .event(let message) = try! ServerLine(line: Array(json.utf8)) else { fatalError("not an event: \(json)") }
        return message
    }

    static func prompt(_ id: String, step: Int, route: String = "r1", seq: Int = 1, text: String = "Turn left") -> EventMessage {
        line(#"{"type":"instruction","seq":\#(seq),"routeId":"\#(route)","kind":"spoken","stepIndex":\#(step),"utteranceId":"\#(id)","instruction":{"text":"\#(text)","triggerDistanceBeforeManeuver":200,"utteranceId":"\#(id)"}}"#)
    }

    static func announcement(_ key: String, priority: String, seq: Int) -> EventMessage {
        line(#"{"type":"announcement","seq":\#(seq),"routeId":"r1","key":"\#(key)","text":"\#(key) text","language":"de","priority":"\#(priority)"}"#)
    }

    static func tripState(step: Int, route: String = "r1", seq: Int = 1) -> EventMessage {
        line(#"{"type":"trip_state","seq":\#(seq),"routeId":"\#(route)","state":"navigating","time":"2026-01-01T00:00:00Z","stepIndex":\#(step)}"#)
    }

    static func retracted(_ ids: [String], seq: Int = 1) -> EventMessage {
        let list = ids.map { #"{"kind":"spoken","stepIndex":1,"utteranceId":"\#($0)"}"# }.joined(separator: ",")
        return line(#"{"type":"instruction_retracted","seq":\#(seq),"routeId":"r1","reason":"reroute","instructions":[\#(list)]}"#)
    }

    static func voice(_ mode: String, language: String = "de") -> EventMessage {
        line(#"{"type":"voice","seq":1,"routeId":null,"mode":"\#(mode)","language":"\#(language)","units":"metric"}"#)
    }

    static func spoken(_ decisions: [SpeechDecision]) -> [String] {
        decisions.compactMap { if case .speak(let u) = $0 { u.id } else { nil } }
    }

    static func dropped(_ decisions: [SpeechDecision]) -> [String] {
        decisions.compactMap { if case .drop(let u, _) = $0 { u.id } else { nil } }
    }

    static func interrupted(_ decisions: [SpeechDecision]) -> [String] {
        decisions.compactMap { if case .interrupt(let u, _) = $0 { u.id } else { nil } }
    }

    @Test func aPromptIsSpokenAtOnceInTheVoiceLanguage() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.voice("full", language: "de"), now: 0)
        let decisions = scheduler.receive(Self.prompt("u1", step: 1), now: 1)
        #expect(decisions == [.speak(Utterance(id: "u1", kind: .maneuver, text: "Turn left", language: "de", routeId: "r1", stepIndex: 1, received: 1))])
        #expect(scheduler.speaking?.id == "u1")
    }

    @Test func aManeuverPromptInterruptsAnAnnouncement() {
        var scheduler = SpeechScheduler()
        #expect(Self.spoken(scheduler.receive(Self.announcement("traffic_ahead", priority: "info", seq: 1), now: 0)) == ["announcement-1"])
        let decisions = scheduler.receive(Self.prompt("u1", step: 1, seq: 2), now: 1)
        #expect(Self.interrupted(decisions) == ["announcement-1"])
        #expect(Self.spoken(decisions) == ["u1"])
    }

    @Test func anAlertWaitsForAManeuverPromptAndThenFollows() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.prompt("u1", step: 1), now: 0)
        let alert = scheduler.receive(Self.announcement("speed_over", priority: "alert", seq: 2), now: 1)
        #expect(alert.isEmpty)
        #expect(Self.spoken(scheduler.finished("u1", now: 3)) == ["announcement-2"])
    }

    @Test func anAlertInterruptsInfoButInfoNeverInterruptsAnAlert() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.announcement("traffic_ahead", priority: "info", seq: 1), now: 0)
        let alert = scheduler.receive(Self.announcement("speed_over", priority: "alert", seq: 2), now: 1)
        #expect(Self.interrupted(alert) == ["announcement-1"])
        #expect(Self.spoken(alert) == ["announcement-2"])
        #expect(scheduler.receive(Self.announcement("gnss_lost", priority: "info", seq: 3), now: 2).isEmpty)
        #expect(Self.spoken(scheduler.finished("announcement-2", now: 3)) == ["announcement-3"])
    }

    @Test func aRetractedPromptIsNeverSpokenAndOneBeingSpokenStops() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.announcement("rerouting", priority: "info", seq: 1), now: 0)
        _ = scheduler.receive(Self.prompt("u1", step: 1, seq: 2), now: 0.5)
        _ = scheduler.receive(Self.announcement("traffic_ahead", priority: "info", seq: 3), now: 0.6)
        // u1 is being said, the traffic announcement waits; a reroute retracts u1.
        let retraction = scheduler.receive(Self.retracted(["u1"], seq: 4), now: 1)
        #expect(Self.interrupted(retraction) == ["u1"])
        #expect(Self.spoken(retraction) == ["announcement-3"])
        #expect(scheduler.finished("u1", now: 1.1).isEmpty, "the interrupted prompt's end starts nothing twice")
    }

    @Test func aQueuedPromptRetractedWhileWaitingIsDropped() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.prompt("u1", step: 1, seq: 1), now: 0)
        _ = scheduler.receive(Self.announcement("speed_over", priority: "alert", seq: 2), now: 0.1)
        let next = scheduler.receive(Self.prompt("u2", step: 2, seq: 3), now: 0.2)
        #expect(next.isEmpty, "equal rank: u2 waits for u1")
        #expect(Self.dropped(scheduler.receive(Self.retracted(["u2"], seq: 4), now: 0.3)) == ["u2"])
        #expect(Self.spoken(scheduler.finished("u1", now: 2)) == ["announcement-2"])
        #expect(scheduler.queue.isEmpty)
    }

    @Test func aPromptWhoseManeuverIsBehindTheVehicleIsDroppedBeforeItStarts() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.announcement("speed_over", priority: "alert", seq: 1), now: 0)
        _ = scheduler.receive(Self.announcement("speed_far_over", priority: "alert", seq: 2), now: 0.1)
        // A maneuver prompt interrupts; then a second alert is queued behind... and a prompt for step 3 arrives
        // while another prompt is being said.
        _ = scheduler.receive(Self.prompt("u1", step: 2, seq: 3), now: 0.2)
        _ = scheduler.receive(Self.prompt("u2", step: 3, seq: 4), now: 0.3)
        #expect(scheduler.queue.map(\.id).contains("u2"))
        // The vehicle passes step 3's maneuver before u1 ends.
        let moved = scheduler.receive(Self.tripState(step: 4, seq: 5), now: 4)
        #expect(Self.dropped(moved) == ["u2"])
        let next = scheduler.finished("u1", now: 5)
        #expect(!Self.spoken(next).contains("u2"))
    }

    @Test func aNewerPromptSupersedesAnOlderOneStillWaiting() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.prompt("u1", step: 1, seq: 1), now: 0)
        _ = scheduler.receive(Self.prompt("u2", step: 2, seq: 2), now: 1)
        let newer = scheduler.receive(Self.prompt("u3", step: 2, seq: 3), now: 2)
        #expect(Self.dropped(newer) == ["u2"])
        #expect(Self.spoken(scheduler.finished("u1", now: 3)) == ["u3"])
    }

    @Test func aPromptOfAnotherRouteIsStale() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.announcement("rerouting", priority: "info", seq: 1), now: 0)
        _ = scheduler.receive(Self.announcement("speed_over", priority: "alert", seq: 2), now: 0)
        _ = scheduler.receive(Self.prompt("old", step: 5, route: "r1", seq: 3), now: 0.1)
        _ = scheduler.receive(Self.tripState(step: 0, route: "r2", seq: 4), now: 0.5)
        #expect(!scheduler.queue.map(\.id).contains("old"))
    }

    @Test func anAnnouncementThatWaitedTooLongIsDropped() {
        var scheduler = SpeechScheduler(maximumWait: 10)
        _ = scheduler.receive(Self.prompt("u1", step: 1, seq: 1), now: 0)
        _ = scheduler.receive(Self.announcement("traffic_ahead", priority: "info", seq: 2), now: 1)
        let late = scheduler.finished("u1", now: 12)
        #expect(Self.dropped(late) == ["announcement-2"])
        #expect(scheduler.speaking == nil)
    }

    @Test(arguments: [
        ("full", ["u1", "announcement-2", "announcement-3", "announcement-4"]),
        ("alerts_only", ["announcement-2", "announcement-4"]),
        ("muted", []),
    ])
    func theVoiceModeDecidesWhatIsSaid(mode: String, expected: [String]) {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.voice(mode), now: 0)
        var said: [String] = []
        for (index, message) in [
            Self.prompt("u1", step: 1, seq: 1), Self.announcement("speed_over", priority: "alert", seq: 2),
            Self.announcement("traffic_ahead", priority: "info", seq: 3), Self.announcement("repeat_maneuver", priority: "info", seq: 4),
        ].enumerated() {
            said += Self.spoken(scheduler.receive(message, now: Double(index)))
            if let current = scheduler.speaking { said += Self.spoken(scheduler.finished(current.id, now: Double(index) + 0.5)) }
        }
        #expect(said == expected)
    }

    @Test func mutingStopsWhatIsSaidAndClearsTheQueue() {
        var scheduler = SpeechScheduler()
        _ = scheduler.receive(Self.prompt("u1", step: 1, seq: 1), now: 0)
        _ = scheduler.receive(Self.announcement("traffic_ahead", priority: "info", seq: 2), now: 0.1)
        let muted = scheduler.receive(Self.voice("muted"), now: 1)
        #expect(Self.interrupted(muted) == ["u1"])
        #expect(Self.dropped(muted) == ["announcement-2"])
        #expect(scheduler.speaking == nil && scheduler.queue.isEmpty)
    }

    @Test func ssmlFromTheEngineIsKept() {
        var scheduler = SpeechScheduler()
        let message = Self.line(#"{"type":"instruction","seq":1,"routeId":"r1","kind":"spoken","stepIndex":0,"utteranceId":"u1","instruction":{"text":"Turn left","ssml":"<speak>Turn left</speak>","triggerDistanceBeforeManeuver":200,"utteranceId":"u1"}}"#)
        guard case .speak(let utterance)? = scheduler.receive(message, now: 0).first else {
            Issue.record("not spoken")
            return
        }
        #expect(utterance.ssml == "<speak>Turn left</speak>")
    }
}
