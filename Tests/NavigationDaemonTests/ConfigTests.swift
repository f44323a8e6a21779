import Foundation
import NavigationCore
import NavigationDaemon
import RoadAhead
import RouteAdapters
import Testing

@Suite struct ConfigTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theShippedExampleIsValidAndMeansTheDocumentedValues() throws {
        let config = try ConfigLoader.load(path: Self.repoRoot.appendingPathComponent("systemd/navd.toml").path)
        #expect(config.gnss.source == .gpsd)
        #expect(config.routing.engine == .valhalla)
        #expect(config.routing.effectiveProfile == "auto")
        #expect(config.socket.path == "/run/navd/navd.sock")
        #expect(config.socket.mode == 0o660)
        #expect(config.socket.controlGroups == ["navd-control"])
        #expect(config.journal.path == "/var/lib/navd/trip.json")
        #expect(config.reroute.policy == .automatic)
        #expect(config.speedAlert == SpeedAlertRules(), "the shipped [speed_alert] says the defaults")
        #expect(config.roadAhead == NavdConfig.RoadAhead(), "the shipped [road_ahead] says the defaults")
        #expect(config.performance == NavdConfig.Performance(), "the shipped [performance] says the defaults")
    }

    @Test func speedAlertRulesAreRead() throws {
        let config = try ConfigLoader.parse(
            "[speed_alert]\nenabled = false\nband_limit = 90\nminor_over = 5\nmajor_over_percent = 30\nhold = 1.5\nahead_minimum = 150",
            file: "navd.toml")
        var expected = SpeedAlertRules()
        expected.enabled = false
        expected.bandLimit = 90
        expected.minorOver = 5
        expected.majorOverPercent = 30
        expected.hold = 1.5
        expected.aheadMinimum = 150
        #expect(config.speedAlert == expected)
    }

    @Test func anEmptyFileGivesTheDefaults() throws {
        let config = try ConfigLoader.parse("", file: "empty.toml")
        #expect(config.gnss == NavdConfig.GNSS())
        #expect(config.reroute == NavdConfig.Reroute())
        #expect(config.performance.holdCPUsAwake)
    }

    @Test(arguments: [true, false])
    func holdingIdleCPUsAwakeIsRead(_ hold: Bool) throws {
        let config = try ConfigLoader.parse("[performance]\nhold_cpus_awake = \(hold)", file: "navd.toml")
        #expect(config.performance.holdCPUsAwake == hold)
    }

    @Test func theIssueMinimumInterfaceParses() throws {
        let config = try ConfigLoader.parse(
            """
            [gnss]
            source = "serial"
            serial = "/dev/navd-gps"
            baud = 9600
            [routing]
            engine = "osrm"
            url = "http://127.0.0.1:5000"
            profile = "driving"
            [routing.options]
            exclude = "ferry"
            [controller]
            arrival = { distanceToEndOfStep = { distance = 15, minimumHorizontalAccuracy = 30 } }
            [socket]
            path = "/tmp/x.sock"
            control_users = ["root", 1000]
            """, file: "navd.toml")
        #expect(config.gnss.source == .serial && config.gnss.baud == 9600)
        #expect(config.routing.engine == .osrm && config.routing.options["exclude"] == "ferry")
        #expect(config.socket.controlUsers == ["root", "1000"])
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var text: String
        var key: String?
        var says: String
        var testDescription: String { "\(key ?? "file"): \(says)" }
    }

    static let bad: [Bad] = [
        Bad(text: "[gnss]\nsource = \"usb\"", key: "gnss.source", says: "must be one of"),
        Bad(text: "[gnss]\nsorce = \"gpsd\"", key: "gnss.sorce", says: "unknown key"),
        Bad(text: "[routing]\nengine = 3", key: "routing.engine", says: "must be one of"),
        Bad(text: "[routing]\nurl = \"127.0.0.1:8002\"", key: "routing.url", says: "not an http(s) URL"),
        Bad(text: "[routing]\ntimeout = -1", key: "routing.timeout", says: "outside"),
        Bad(text: "[routing]\nrefresh_interval = 5", key: "routing.refresh_interval", says: "0 (off) or at least 10 seconds"),
        Bad(text: "[routing]\nrefresh_interval = 1e300", key: "routing.refresh_interval", says: "outside"),
        Bad(text: "[routing]\nfaster_route = \"always\"", key: "routing.faster_route", says: "must be one of"),
        Bad(text: "[routing]\nfaster_route_min_fraction = 1.5", key: "routing.faster_route_min_fraction", says: "outside"),
        Bad(text: "[routing]\nchoose_timeout = 0", key: "routing.choose_timeout", says: "outside"),
        Bad(text: "[guidance]\nlanguage = \"german\"", key: "guidance.language", says: "not a BCP 47 language tag"),
        Bad(text: "[guidance]\nunits = \"furlongs\"", key: "guidance.units", says: "must be one of"),
        Bad(text: "[guidance]\nvoice = \"anna\"", key: "guidance.voice", says: "unknown key"),
        Bad(text: "[socket]\nmode = \"rw\"", key: "socket.mode", says: "octal"),
        Bad(text: "[socket]\nmax_line_length = 1.5", key: "socket.max_line_length", says: "whole number"),
        Bad(text: "[reroute]\npolicy = \"sometimes\"", key: "reroute.policy", says: "automatic"),
        Bad(text: "[logging]\nlevel = \"loud\"", key: "logging.level", says: "not one of"),
        Bad(text: "[gnss]\nsource = \"replay\"", key: "gnss.replay", says: "required"),
        Bad(text: "[controller]\nstepAdvance = { teleport = {} }", key: "controller", says: "stepAdvance"),
        Bad(text: "[controller]\npromptTiming = { speedAdaptive = { referenceSpeed = \"fast\" } }", key: "controller", says: "referenceSpeed"),
        Bad(text: "gnss = 5", key: "gnss", says: "must be a table"),
        Bad(text: "[[routing.fallback]]\nurl = \"http://127.0.0.1:5000\"", key: "routing.fallback[0].engine", says: "required"),
        Bad(text: "[[routing.fallback]]\nengine = \"osrm\"", key: "routing.fallback[0].url", says: "required"),
        Bad(text: "[[routing.fallback]]\nengine = \"osrm\"\nurl = \"x\"\nretries = 2", key: "routing.fallback[0].retries", says: "unknown key"),
        Bad(text: "[[routing.fallback]]\nengine = \"bing\"\nurl = \"http://h\"", key: "routing.fallback[0].engine", says: "must be one of"),
        Bad(text: "[routing]\nfallback = \"osrm\"", key: "routing.fallback", says: "array of tables"),
        Bad(text: "[gnss\nsource = \"gpsd\"", key: nil, says: "line 1"),
        Bad(text: "[speed_alert]\nminor_over = 15\nmajor_over = 10", key: "speed_alert.major_over", says: "less than speed_alert.minor_over"),
        Bad(text: "[speed_alert]\nhold = 1e300", key: "speed_alert.hold", says: "outside"),
        Bad(text: "[speed_alert]\nenabled = 1", key: "speed_alert.enabled", says: "true or false"),
        Bad(text: "[speed_alert]\ntolerance = 5", key: "speed_alert.tolerance", says: "unknown key"),
        Bad(text: "[performance]\nhold_cpus_awake = \"yes\"", key: "performance.hold_cpus_awake", says: "true or false"),
        Bad(text: "[performance]\npoll_idle = true", key: "performance.poll_idle", says: "unknown key"),
        Bad(text: "[road_ahead]\nhorizon = -1", key: "road_ahead.horizon", says: "outside"),
        Bad(text: "[road_ahead]\nmax_objects = 1e300", key: "road_ahead.max_objects", says: "outside"),
        // Numbers past what their key can mean (CheckedNumber): a control id of 2^63 trapped, on SIGHUP too.
        Bad(text: "[socket]\ncontrol_users = [9.3e18]", key: "socket.control_users", says: "numeric ids from 0 to 4294967294"),
        Bad(text: "[socket]\ncontrol_groups = [1e300]", key: "socket.control_groups", says: "numeric ids from 0 to 4294967294"),
        Bad(text: "[socket]\ncontrol_users = [-1]", key: "socket.control_users", says: "numeric ids"),
        Bad(text: "[socket]\nmax_clients = 1e300", key: "socket.max_clients", says: "outside 1…10000"),
        Bad(text: "[routing]\ntimeout = nan", key: "routing.timeout", says: "outside"),
        Bad(text: "[routing]\ntimeout = inf", key: "routing.timeout", says: "outside"),
        Bad(text: "[routing]\nca_file = \"fleet-ca.pem\"", key: "routing.ca_file", says: "absolute path"),
        Bad(text: "[routing]\nca_file = 1", key: "routing.ca_file", says: "must be a string"),
        // Found by fuzzing when navd used toml++, which aborted the process on these (Fuzz/Regressions/FuzzConfig).
        Bad(text: "[gnss]\n[ {\n", key: nil, says: "line 2, column 3: expected a key, found '{'"),
        Bad(text: "[\u{CD}gnss]", key: nil, says: "line 1, column 2: expected a key, found 'Í'"),
        Bad(text: "[[ {", key: nil, says: "line 1, column 4"),
    ]

    @Test(arguments: bad)
    func aBadFileNamesTheFileTheKeyAndTheProblem(_ bad: Bad) {
        do {
            _ = try ConfigLoader.parse(bad.text, file: "/etc/navd/navd.toml")
            Issue.record("accepted: \(bad.text)")
        } catch {
            let match = error.errors.first { $0.key == bad.key }
            #expect(match != nil, "errors: \(error)")
            #expect(match?.file == "/etc/navd/navd.toml")
            #expect(match?.message.contains(bad.says) == true, "message: \(String(describing: match?.message))")
        }
    }

    @Test func fallbackEnginesAreReadInOrderWithTheirOwnSettings() throws {
        let config = try ConfigLoader.parse(
            """
            [routing]
            engine = "valhalla"
            url = "https://valhalla.example.com"
            max_attempts = 2
            [[routing.fallback]]
            engine = "osrm"
            url = "http://127.0.0.1:5000"
            [[routing.fallback]]
            engine = "graphhopper"
            url = "https://graphhopper.com/api/1"
            profile = "small_truck"
            max_attempts = 1
            options = { key = "SECRET-KEY" }
            """, file: "navd.toml")
        #expect(config.routing.fallbacks.map(\.engine) == [.osrm, .graphhopper])
        #expect(config.routing.fallbacks.map(\.maxAttempts) == [2, 1], "a fallback's attempts default to the primary's")
        #expect(config.routing.fallbacks.map(\.effectiveProfile) == ["driving", "small_truck"])
        #expect(config.routing.fallbacks[1].options["key"] == "SECRET-KEY")
        let summary = ConfigSummary.describe(config)
        #expect(summary.contains("fallback: osrm at http://127.0.0.1:5000"))
        #expect(summary.contains("fallback: graphhopper at https://graphhopper.com/api/1"))
    }

    struct TLSCase: Sendable, CustomTestStringConvertible {
        let routing: String
        let usesTLS: Bool
        var testDescription: String { routing.replacingOccurrences(of: "\n", with: " | ") }
    }

    static let tlsCases = [
        TLSCase(routing: "", usesTLS: false),
        TLSCase(routing: "url = \"http://127.0.0.1:8002\"", usesTLS: false),
        TLSCase(routing: "url = \"https://valhalla.example.com\"", usesTLS: true),
        TLSCase(routing: "ca_file = \"/etc/navd/fleet-ca.pem\"", usesTLS: true),
        TLSCase(routing: "[[routing.fallback]]\nengine = \"osrm\"\nurl = \"http://127.0.0.1:5000\"", usesTLS: false),
        TLSCase(routing: "[[routing.fallback]]\nengine = \"osrm\"\nurl = \"https://osrm.example.com\"", usesTLS: true),
    ]

    /// The system's trust store is loaded at start only when an engine may be reached over TLS.
    @Test(arguments: tlsCases)
    func tlsIsPreparedOnlyForHTTPSEnginesOrACAFile(_ tlsCase: TLSCase) throws {
        let config = try ConfigLoader.parse("[routing]\n" + tlsCase.routing, file: "navd.toml")
        #expect(config.routing.usesTLS == tlsCase.usesTLS)
    }

    @Test func aURLsCredentialsAndQueryValuesNeverReachTheSummaryOrAnError() throws {
        let config = try ConfigLoader.parse(
            "[routing]\nurl = \"https://user:PASSWORD1@valhalla.example.com/route?api_key=SECRET1\"", file: "navd.toml")
        let summary = ConfigSummary.describe(config)
        #expect(!summary.contains("PASSWORD1") && !summary.contains("SECRET1"), "\(summary)")
        #expect(summary.contains("https://valhalla.example.com/route?api_key=***"))
        do {
            _ = try ConfigLoader.parse("[routing]\nurl = \"ftp://user:PASSWORD2@example.com/?key=SECRET2\"", file: "navd.toml")
            Issue.record("accepted an ftp URL")
        } catch {
            #expect(!"\(error)".contains("PASSWORD2") && !"\(error)".contains("SECRET2"), "\(error)")
        }
    }

    @Test func bracketsInsideValuesAreNotTakenForTableHeaders() throws {
        let config = try ConfigLoader.parse(
            """
            [routing.options]
            matrix = [
              [ 1, 2 ],
              [ { a = 1 } ],
            ]
            note = \"\"\"
            [ { not a header
            \"\"\"
            """, file: "navd.toml")
        #expect(config.routing.options["matrix"]?.arrayValue?.count == 2)
    }

    @Test func everyFuzzerFindingIsASyntaxErrorNotACrash() throws {
        let directory = Self.repoRoot.appendingPathComponent("Fuzz/Regressions/FuzzConfig")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!inputs.isEmpty)
        for input in inputs {
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(input)), as: UTF8.self)
            #expect(throws: ConfigErrors.self, "\(input)") { try ConfigLoader.parse(text, file: input) }
        }
    }

    @Test func everyProblemIsReportedNotOnlyTheFirst() {
        do {
            _ = try ConfigLoader.parse("[gnss]\nsource = 1\n[routing]\nengine = \"x\"\nretries = 3", file: "f.toml")
            Issue.record("accepted")
        } catch {
            #expect(Set(error.errors.compactMap(\.key)) == ["gnss.source", "routing.engine", "routing.retries"])
        }
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: ConfigErrors.self) { try ConfigLoader.load(path: "/nonexistent/navd.toml") }
        do {
            _ = try ConfigLoader.load(path: "/nonexistent/navd.toml")
        } catch {
            #expect(error.description.contains("does not exist"))
        }
    }

    /// `[guidance]`: the language as one spelling, and miles where the tag's region drives in miles unless said.
    @Test(arguments: [
        ("de_at", "auto", "de-AT", false), ("en-US", "auto", "en-US", true), ("en-GB", "auto", "en-GB", true),
        ("en-US", "metric", "en-US", false), ("fi", "imperial", "fi", true), ("fr-FR", "auto", "fr-FR", false),
    ])
    func theGuidanceLanguageAndUnitsGiveTheEnginesLocale(language: String, units: String, tag: String, imperial: Bool) throws {
        let config = try ConfigLoader.parse("[guidance]\nlanguage = \"\(language)\"\nunits = \"\(units)\"", file: "navd.toml")
        #expect(config.guidance.instructionLocale == InstructionLocale(language: tag, imperial: imperial))
    }
}
