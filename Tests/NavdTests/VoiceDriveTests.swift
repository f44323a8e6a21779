import Foundation
import NavigationCore
import Testing
import TestSupport

/// `navctl speak` with the real espeak-ng writing each utterance to a WAV file, measured by sox, on a drive through
/// a missed turn with the real Valhalla: speech where prompts are due, in the driver's language and units, a
/// retracted prompt never rendered, every prompt accounted for.
@Suite(.serialized)
struct VoiceDriveTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var engine = "valhalla"
        var language: String
        var units: String
        /// Words of the units the prompts must use, and of those they must not.
        var unitWords: [String]
        var foreignUnitWords: [String]
        /// Phrases of English instructions that must not appear (navd writes OSRM's instructions itself).
        var englishPhrases: [String] = []
        var testDescription: String { "\(engine), \(language), \(units)" }
    }

    static let cases = [
        Case(language: "de", units: "auto", unitWords: ["Meter", "Kilometer"], foreignUnitWords: ["Fuß", "Meile", "feet", "mile"]),
        Case(language: "en-US", units: "imperial", unitWords: ["feet", "mile"], foreignUnitWords: ["meter", "metre", "kilomet"]),
        Case(
            // This drive's OSRM steps are all shorter than the 600 m that an advance notice ("Om 400 meter") needs.
            engine: "osrm", language: "sv", units: "auto", unitWords: [], foreignUnitWords: ["feet", "mile", "metres"],
            englishPhrases: ["Turn ", " onto ", "Continue ", "Head ", "You have"]),
    ]

    static var navctl: String {
        get throws { URL(fileURLWithPath: try NavdInstance.binary()).deletingLastPathComponent().appendingPathComponent("navctl").path }
    }

    /// navd's simulated car missing the second maneuver, guiding in `language` and `units`.
    static func navd(language: String, units: String, engine: String = "valhalla") throws -> NavdInstance {
        let url = engine == "osrm" ? try Engines.osrmURL() : try Engines.valhallaURL()
        return try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = 60.165574, lon = 24.9406 }
                speed = 11
                time_scale = 6
                missed_turn = 2
                [routing]
                engine = "\(engine)"
                url = "\(url)"
                [guidance]
                language = "\(language)"
                units = "\(units)"
                """)
    }

    /// sox's measure of a WAV file: its length (s) and RMS amplitude (0...1).
    static func measure(_ path: String) throws -> (length: Double, rms: Double) {
        let run = try ToolRun.run(URL(fileURLWithPath: "/usr/bin/sox"), [path, "-n", "stat"])
        func value(_ label: String) -> Double? {
            run.stderr.split(separator: "\n").first { $0.hasPrefix(label) }.flatMap { Double($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        }
        return (try #require(value("Length (seconds)")), try #require(value("RMS     amplitude")))
    }

    /// The speech programs the tests use, installed by scripts/setup: missing, the test fails here.
    static func requireSpeechTools() throws {
        for tool in ["/usr/bin/espeak-ng", "/usr/bin/sox"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: scripts/setup installs espeak-ng and sox")
        }
    }

    static func speakLog(_ output: String) -> [JSONValue] {
        output.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap { try? JSONParser.parse(Array($0.utf8)) }
    }

    /// Waits (bounded) until `navctl speak` reports its connection to navd: a `navigate` sent before it could
    /// publish the first prompt before the speaker is a client, and that prompt would never reach it.
    static func speakerConnected(_ speak: ExternalProcess, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if speakLog(speak.output).contains(where: { $0["action"]?.stringValue == "connected" }) { return true }
            usleep(50_000)
        }
        return false
    }

    @Test(arguments: cases)
    func aMissedTurnIsSpokenInTheDriversLanguageAndUnits(_ example: Case) throws {
        try Self.requireSpeechTools()
        let navd = try Self.navd(language: example.language, units: example.units, engine: example.engine)
        try navd.start()
        let wavs = navd.directory.appendingPathComponent("wav").path
        try FileManager.default.createDirectory(atPath: wavs, withIntermediateDirectories: true)
        let speak = try ExternalProcess(
            try Self.navctl, ["speak", "--socket", navd.socketPath, "--wav-dir", wavs, "--json", "--until-arrived", "--timeout", "170"])
        try #require(Self.speakerConnected(speak), "navctl speak did not connect:\n\(speak.output.suffix(3000))")
        let client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        #expect(client.command(#"{"type":"navigate","id":"go","waypoints":[{"lat":60.1770,"lon":24.9480}]}"#, id: "go")?.type == "reply")
        let arrived = client.waitFor(timeout: 160) { $0.type == "arrived" }
        try #require(arrived != nil, "no arrival:\n\(navd.log.suffix(3000))")
        #expect(speak.waitForExit(timeout: 30) == 0, "navctl speak did not end after the arrival:\n\(speak.output.suffix(3000))")

        let events = client.received
        let log = Self.speakLog(speak.output)
        let said = log.filter { $0["action"]?.stringValue == "speak" }
        let accounted = Set(log.filter { ["speak", "drop"].contains($0["action"]?.stringValue) }.compactMap { $0["id"]?.stringValue })

        // Every prompt navd sent was said or dropped for a stated reason: none lost.
        let prompts = events.filter { $0.type == "instruction" && $0["kind"]?.stringValue == "spoken" }
        let promptIds = prompts.compactMap { $0["utteranceId"]?.stringValue }
        #expect(promptIds.count >= 5, "\(promptIds.count) prompts")
        #expect(Set(promptIds).isSubset(of: accounted), "prompts neither said nor dropped: \(Set(promptIds).subtracting(accounted))")
        #expect(said.count >= 4, "\(said.count) utterances:\n\(speak.output)")

        // The missed turn: off route, a reroute, prompts retracted; none said after navd retracted it.
        var retractedAt: [String: Double] = [:]
        for event in events where event.type == "instruction_retracted" {
            for item in event["instructions"]?.arrayValue ?? [] {
                if let id = item["utteranceId"]?.stringValue, let seq = event["seq"]?.doubleValue { retractedAt[id] = retractedAt[id] ?? seq }
            }
        }
        #expect(!retractedAt.isEmpty, "the missed turn retracted nothing")
        #expect(events.contains { $0.type == "route" && $0["reason"]?.stringValue == "reroute" })
        for utterance in said {
            guard let id = utterance["id"]?.stringValue, let retraction = retractedAt[id] else { continue }
            #expect((utterance["afterSeq"]?.doubleValue ?? .infinity) < retraction, "\(id) was said after its retraction (seq \(retraction))")
        }
        // navd's own words for the reroute, in the driver's language, were said or stated as dropped.
        let rerouting = events.filter { $0.type == "announcement" && ["rerouting", "off_route"].contains($0["key"]?.stringValue) }
        #expect(!rerouting.isEmpty)
        #expect(rerouting.allSatisfy { $0["language"]?.stringValue == example.language })

        // The driver's language and units, in every prompt said.
        let texts = said.compactMap { $0["text"]?.stringValue }
        #expect(said.allSatisfy { $0["language"]?.stringValue == example.language })
        #expect(example.unitWords.isEmpty || texts.contains { text in example.unitWords.contains { text.contains($0) } }, "no distance in \(example.unitWords): \(texts)")
        #expect(!texts.contains { text in example.foreignUnitWords.contains { text.lowercased().contains($0.lowercased()) } }, "mixed units: \(texts)")
        #expect(!texts.contains { text in example.englishPhrases.contains { text.contains($0) } }, "English in \(example.language): \(texts)")

        // Speech where prompts are due: one WAV per utterance said, each with a voice in it; nothing else rendered.
        let files = try FileManager.default.contentsOfDirectory(atPath: wavs).filter { $0.hasSuffix(".wav") }.map { "\(wavs)/\($0)" }
        #expect(Set(files) == Set(said.compactMap { $0["wav"]?.stringValue }))
        for file in files {
            let (length, rms) = try Self.measure(file)
            #expect(length > 0.4 && length < 20, "\(file): \(length) s")
            #expect(rms > 0.01, "\(file): RMS \(rms), silence")
        }
    }

    /// The steering-wheel buttons: `repeat` speaks, `muted` silences, and the mode outlives a restart. The trip is
    /// in its own language (`navigate` `options.language`: Finnish, where navd is configured for German): the engine
    /// answers in it, navd says its texts in it, the voice speaks it.
    @Test func repeatSpeaksMutedSilencesAndTheModeIsKeptAcrossARestart() throws {
        try Self.requireSpeechTools()
        let navd = try Self.navd(language: "de", units: "auto")
        try navd.start()
        let wavs = navd.directory.appendingPathComponent("wav").path
        try FileManager.default.createDirectory(atPath: wavs, withIntermediateDirectories: true)
        let speak = try ExternalProcess(try Self.navctl, ["speak", "--socket", navd.socketPath, "--wav-dir", wavs, "--json", "--timeout", "120"])
        // The repeat's announcement goes to the clients connected then: navctl speak must be one before it is sent.
        try #require(Self.speakerConnected(speak), "navctl speak did not connect:\n\(speak.output.suffix(3000))")
        let client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        let navigate = #"{"type":"navigate","id":"go","waypoints":[{"lat":60.1770,"lon":24.9480}],"options":{"language":"fi"}}"#
        #expect(client.command(navigate, id: "go")?.type == "reply")
        let voice = try #require(client.waitFor(timeout: 20) { $0.type == "voice" }, "no voice event for the trip's language")
        #expect(voice["language"]?.stringValue == "fi" && voice["units"]?.stringValue == "metric")
        let prompt = try #require(client.waitFor(timeout: 20) { $0.type == "instruction" && $0["kind"]?.stringValue == "spoken" })
        let promptText = prompt["instruction"]?["text"]?.stringValue ?? ""
        #expect(["Aja", "Käänny", "Jatka"].contains { promptText.contains($0) }, "Valhalla's prompt is not Finnish: \(promptText)")

        // repeat: the next maneuver again, in Finnish, spoken.
        let repeated = try #require(client.command(#"{"type":"repeat","id":"r"}"#, id: "r"))
        let text = try #require(repeated["result"]?["text"]?.stringValue, "\(repeated)")
        // Measured once navctl reports it finished: while espeak-ng still writes it, the file is not whole.
        let deadline = Date().addingTimeInterval(30)
        var requested: JSONValue?
        var finished = false
        while !finished, Date() < deadline {
            let log = Self.speakLog(speak.output)
            requested = log.first { $0["action"]?.stringValue == "speak" && $0["kind"]?.stringValue == "requested" }
            let id = requested?["id"]?.stringValue
            finished = id != nil && log.contains { $0["action"]?.stringValue == "finished" && $0["id"]?.stringValue == id }
            if !finished { usleep(100_000) }
        }
        let spokenRepeat = try #require(requested, "repeat was not spoken:\n\(speak.output)")
        #expect(spokenRepeat["text"]?.stringValue == text && spokenRepeat["language"]?.stringValue == "fi")
        try #require(finished, "the repeat was not said to its end:\n\(speak.output)")
        let repeatWAV = try #require(spokenRepeat["wav"]?.stringValue)
        #expect(try Self.measure(repeatWAV).rms > 0.01)

        // muted: what is being said stops, nothing more is rendered.
        let muted = try #require(client.command(#"{"type":"voice","id":"m","mode":"muted"}"#, id: "m"))
        #expect(muted["result"]?["mode"]?.stringValue == "muted")
        #expect(client.waitFor(timeout: 5) { $0.type == "voice" && $0["mode"]?.stringValue == "muted" } != nil)
        usleep(1_000_000)
        let filesWhenMuted = try FileManager.default.contentsOfDirectory(atPath: wavs).count
        _ = client.command(#"{"type":"repeat","id":"r2"}"#, id: "r2")
        client.drain(for: 8)
        #expect(try FileManager.default.contentsOfDirectory(atPath: wavs).count == filesWhenMuted, "speech while muted:\n\(speak.output.suffix(2000))")
        let afterMute = Self.speakLog(speak.output).drop { !($0["action"]?.stringValue == "mode" && $0["mode"]?.stringValue == "muted") }
        #expect(!afterMute.isEmpty && !afterMute.contains { $0["action"]?.stringValue == "speak" })

        // A restart: the mode is still muted (hello's state.voice), kept in voice-mode next to the journal.
        navd.process?.stop()
        #expect(try String(contentsOfFile: navd.directory.appendingPathComponent("voice-mode").path, encoding: .utf8) == "muted\n")
        try navd.start()
        let again = try navd.connect()
        let hello = try #require(again.next(timeout: 5))
        #expect(hello.type == "hello" && hello["state"]?["voice"]?["mode"]?.stringValue == "muted", "\(hello)")
        speak.stop()
    }
}
