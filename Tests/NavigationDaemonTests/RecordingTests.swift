import Foundation
import LocationSources
import Logging
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import RouteClient
import Testing

/// The flight recorder's records, its files, and the replay of golden recordings of real drives through navd.
@Suite struct RecordingTests {
    static let recordings = CoordinatorHarness.repoRoot.appendingPathComponent("Tests/NavigationDaemonTests/Fixtures/Recordings")
    static let now = Date(timeIntervalSinceReferenceDate: 817_187_814.921_483_9)
    static func settings(_ text: String) throws -> TripCoordinator.Settings {
        TripCoordinator.Settings(config: try ConfigLoader.parse(text, file: "test"))
    }

    // MARK: - Records

    static let server = "http://127.0.0.1:8002"
    static let inputs: [LoopInput] = {
        let fix = GNSSFix(
            location: UserLocation(
                coordinate: GeographicCoordinate(latitude: 60.169_901_234_567_8, longitude: 24.938_396_987_654_3), horizontalAccuracy: 3.3,
                course: CourseOverGround(degrees: 123.4, accuracy: 2), speed: Speed(metersPerSecond: 11.07, accuracy: 0.3),
                timestamp: Date(timeIntervalSinceReferenceDate: 817_187_800.123_456_7)),
            quality: GNSSQuality(mode: .threeDimensional, satellitesUsed: 9, satellitesInView: 14, hdop: 0.9, averageSignalStrength: 38.5,
                                 horizontalAccuracy: 3.3, altitude: 12.5))
        let engine = RouteEndpoint.Identity(name: "valhalla", server: server)
        return [
            .reading(.fix(fix)),
            .reading(.fix(GNSSFix(location: fix.location, quality: GNSSQuality(mode: .twoDimensional, estimated: true)))),
            .reading(.noFix(GNSSQuality(mode: .noFix, satellitesInView: 3), time: Date(timeIntervalSinceReferenceDate: 817_187_801.5))),
            .reading(.noFix(GNSSQuality(mode: .noFix), time: nil)),
            .sourceStatus(.disconnected(reason: "serial device /dev/ttyUSB0 disappeared", retryIn: 0.5)),
            .sourceStatus(.receiverLost(silentFor: 5.2)),
            .sourceStatus(.finished),
            .connected(client: 3, control: true),
            .command(line: ["type": "navigate", "id": "a", "waypoints": [["lat": 60.17, "lon": 24.95]]], client: 3, control: true),
            .refused(ProtocolError(.notAuthorized, "read only"), id: .string("x"), client: 4),
            .attemptFailed(
                session: 2,
                RouteCalculationRunner.FailedAttempt(
                    attempt: 1, engine: engine, error: RouteFetchError(server: server, kind: .httpStatus(503), detail: "busy"), retryIn: 0.4,
                    next: RouteEndpoint.Identity(name: "osrm", server: "http://127.0.0.1:5000"))),
            .finished(
                session: 2,
                RouteCalculationRunner.Outcome(
                    result: .failure(RouteFetchError(server: server, kind: .responseTooLarge(limit: 1024), detail: "body too large")),
                    attempts: 3, failedEngines: [.init(engine: engine, error: RouteFetchError(server: server, kind: .timedOut, detail: "1 s"))])),
            .tick,
        ]
    }()

    @Test(arguments: inputs.indices)
    func everyLoopInputRoundTripsExactly(_ index: Int) throws {
        let input = Self.inputs[index]
        let encoded = RecordingCodec.encode(input, now: Self.now)
        // Through the bytes a recording holds.
        let line = JSONLine.serialize(encoded, leading: ["rec", "t", "now"])
        let parsed = try #require(try JSONParser.parse(line).objectValue)
        let (decoded, now) = try #require(try RecordingCodec.decode(parsed, settings: Self.settings))
        #expect(now == Self.now)
        #expect(RecordingCodec.encode(decoded, now: now) == encoded)
        if case .reading(let reading) = input, case .reading(let back) = decoded { #expect(back == reading) }
    }

    @Test func aFinishedCalculationKeepsItsRoutesExactly() throws {
        let route = try CoordinatorHarness.route()
        let input = LoopInput.finished(
            session: 1, RouteCalculationRunner.Outcome(result: .success([route]), attempts: 1, answeredBy: .init(name: "osrm", server: Self.server)))
        let line = JSONLine.serialize(RecordingCodec.encode(input, now: Self.now))
        let object = try #require(try JSONParser.parse(line).objectValue)
        let (decoded, _) = try #require(try RecordingCodec.decode(object, settings: Self.settings))
        guard case .finished(_, let outcome) = decoded, case .success(let routes) = outcome.result else {
            Issue.record("decoded as \(decoded)")
            return
        }
        #expect(routes == [route])
        #expect(outcome.answeredBy == .init(name: "osrm", server: Self.server))
    }

    /// A recording's line (routes written straight from the typed routes, on the recorder's thread) is the very
    /// line the record's tree serializes to: for every kind of input, and for real answers of both engines with
    /// all their fields (lanes, road classes, annotations, spoken and banner instructions).
    @Test(arguments: inputs.indices.map { Optional($0) } + [nil])
    func aRecordsLineIsItsTreeSerialized(_ index: Int?) throws {
        var inputs: [LoopInput] = []
        if let index {
            inputs = [Self.inputs[index]]
        } else {
            for fixture in ["helsinki_osrm_plain", "helsinki_osrm_two_legs", "helsinki_valhalla_tunnels", "valhalla_extended_osrm_response", "valhalla_osrm_with_roundabouts"] {
                let data = try Data(contentsOf: CoordinatorHarness.repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/\(fixture).json"))
                let routes = try OSRMResponseParser().parseRoutes(from: data)
                #expect(!routes.isEmpty)
                inputs.append(.finished(session: 7, RouteCalculationRunner.Outcome(result: .success(routes), attempts: 2, answeredBy: .init(name: "osrm", server: Self.server))))
            }
        }
        for input in inputs {
            var tree = RecordingCodec.encode(input, now: Self.now)
            tree["t"] = .number(12.345678)
            let expected = JSONLine.serialize(tree, leading: ["rec", "t", "now"])
            let line = RecordingCodec.line(input, now: Self.now, t: 12.345678)
            #expect(line == expected, "\(String(decoding: line.prefix(300), as: UTF8.self))")
        }
    }

    /// Records keep their order on disk whichever way they come: a record, a loop input (written later, on the
    /// writer thread), a line as sent.
    @Test func recordsKeepTheirOrderWhenALoopInputIsWrittenLater() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = try FlightRecorder(
            limits: .init(directory: directory, maxFileBytes: 1 << 20, maxTotalBytes: 4 << 20), header: [:], createdAt: Self.now,
            logger: Logger(label: "test"))
        let route = try CoordinatorHarness.route()
        for index in 0..<3 {
            recorder.record(["rec": "note", "index": .number(Double(index))])
            recorder.record(.finished(session: index, RouteCalculationRunner.Outcome(result: .success([route]), attempts: 1)), now: Self.now)
            recorder.recordLine(Array(#"{"type":"route","seq":\#(index)}"#.utf8) + [10])
        }
        recorder.stop(reason: "done")
        let kinds = try String(contentsOfFile: recorder.path, encoding: .utf8).split(separator: "\n").map { line -> String in
            let object = try JSONParser.parse(Array(line.utf8))
            return object["rec"]?.stringValue ?? object["type"]?.stringValue ?? "?"
        }
        #expect(kinds == ["header"] + Array(repeating: ["note", "finished", "route"], count: 3).flatMap { $0 } + ["end"])
        let times = try String(contentsOfFile: recorder.path, encoding: .utf8).split(separator: "\n").compactMap { try JSONParser.parse(Array($0.utf8))["t"]?.doubleValue }
        #expect(times == times.sorted(), "t goes forward: \(times)")
    }

    @Test(arguments: [
        (#"{"rec":"fix","now":1}"#, "no fix"),
        (#"{"rec":"fix","now":1,"fix":{"lat":95,"lon":0,"accuracy":1,"time":0},"quality":{"mode":3}}"#, "off the globe"),
        (#"{"rec":"command","now":1,"client":1}"#, "no line"),
        (#"{"rec":"finished","now":1,"session":1,"attempts":1,"error":{"code":"http_x","server":"s"}}"#, "unknown routing error code"),
        (#"{"rec":"tick"}"#, "no number 'now'"),
    ])
    func aBrokenRecordSaysWhatIsWrong(_ line: String, _ expected: String) throws {
        let object = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
        #expect {
            _ = try RecordingCodec.decode(object, settings: Self.settings)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    // MARK: - Secrets

    @Test func theRecordedConfigurationCarriesNoSecret() {
        let text = """
            [routing]
            url = "https://user:hunter2@route.example.com/v1/?api_key=K3Y&profile=car"
            [[routing.fallback]]
            engine = "osrm"
            url = "http://127.0.0.1:5000/?access_token=T0K"
            [routing.options]
            api_key = "OPT-KEY"
            costing = "auto"
            """
        let redacted = ConfigRedaction.redact(text)
        for secret in ["hunter2", "K3Y", "T0K", "OPT-KEY"] { #expect(!redacted.contains(secret), "\(secret) in \(redacted)") }
        #expect(redacted.contains("profile=car"))
        #expect(redacted.contains(#"costing = "auto""#))
        #expect(redacted.contains("route.example.com"))
    }

    /// Inline tables (the form the docs show for engine options) and every value form TOML has.
    @Test(arguments: [
        (#"options = { api_key = "INLINE-1", costing = "auto" }"#, "INLINE-1", #"costing = "auto""#),
        (#"options = {costing="auto",accessToken='INLINE-2'}"#, "INLINE-2", #"costing="auto""#),
        (#"headers = { "X-Api-Key" = "INLINE-3" } # the fleet's key"#, "INLINE-3", "# the fleet's key"),
        (#"options = { nested = { secret = "INLINE-4" }, units = "km" }"#, "INLINE-4", #"units = "km""#),
        (#"auth_token = 12345678"#, "12345678", "auth_token"),
        (#"options = { note = "api_key = not-a-secret-key", password = "P"W" }"#, #"P"W"#, "api_key = not-a-secret-key"),
    ])
    func inlineTablesKeepNoSecret(line: String, secret: String, kept: String) {
        let redacted = ConfigRedaction.redact(line)
        #expect(!redacted.contains(secret), "\(redacted)")
        #expect(redacted.contains(kept), "\(redacted)")
        #expect(redacted.contains("***"))
    }

    /// Valhalla takes `api_key` in its POST body: the recorder's exchange keeps it out (HTTPRequestSpec.secrets).
    @Test func aKeyInAPOSTBodyIsNotRecorded() {
        let body = Data(#"{"locations":[{"lat":60.1,"lon":24.9}],"costing":"auto","api_key":"BODY-KEY","x":{"authToken":"NESTED"}}"#.utf8)
        let spec = HTTPRequestSpec(method: .post, url: "https://valhalla.example/route", body: body)
        #expect(Set(spec.secrets) == ["BODY-KEY", "NESTED"])
        let scrubbed = spec.scrubbed(String(decoding: body, as: UTF8.self))
        #expect(!scrubbed.contains("BODY-KEY") && !scrubbed.contains("NESTED"))
        #expect(scrubbed.contains(#""costing":"auto""#))
    }

    // MARK: - Files

    func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("navd-rec-\(UUID().uuidString.prefix(8))").path
        return path
    }

    @Test func aRecordingIsOnDiskBeforeItStopsAndEndsWithItsReason() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = try FlightRecorder(
            limits: .init(directory: directory, maxFileBytes: 1 << 20, maxTotalBytes: 4 << 20), header: ["reason": "test"], createdAt: Self.now,
            logger: Logger(label: "test"))
        recorder.record(["rec": "tick", "now": 1])
        // What a crash would leave: the writer flushes every 0.25 s; wait up to 5 s for it.
        var onDisk = ""
        for _ in 0..<100 where !onDisk.contains(#""rec":"tick""#) {
            usleep(50_000)
            onDisk = (try? String(contentsOfFile: recorder.path, encoding: .utf8)) ?? ""
        }
        #expect(onDisk.hasPrefix(#"{"rec":"header","created":"#))
        #expect(onDisk.contains(#"{"rec":"tick","t":"#))
        let summary = recorder.stop(reason: "done")
        let lines = try String(contentsOfFile: recorder.path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last?.hasPrefix(#"{"rec":"end""#) == true && lines.last?.contains(#""reason":"done""#) == true)
        #expect(summary.files == [recorder.path])
        #expect(summary.bytes == (try FileManager.default.attributesOfItem(atPath: recorder.path)[.size] as? Int))
    }

    /// The writer thread encodes route answers (milliseconds of CPU) at nice 10, so that on a busy two-core computer
    /// a reroute's parsing and publishing go first; the thread's own nice value, not the process's.
    @Test func theWriterThreadRunsAtNiceTen() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = try FlightRecorder(
            limits: .init(directory: directory, maxFileBytes: 1 << 20, maxTotalBytes: 4 << 20), header: [:], createdAt: Self.now,
            logger: Logger(label: "test"))
        defer { recorder.stop(reason: "done") }
        /// The nice value of each of this process's threads with that name (/proc/self/task/TID/stat, field 19).
        func niceValues(of name: String) -> [Int] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap { tid in
                guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                    comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                    let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                    let afterName = stat.range(of: ") ")
                else { return nil }
                // Fields after the name start at field 3 (state); nice is field 19.
                let fields = stat[afterName.upperBound...].split(separator: " ")
                return fields.count > 16 ? Int(fields[16]) : nil
            }
        }
        let recorders = niceValues(of: "navd recorder")
        #expect(!recorders.isEmpty, "no thread named navd recorder")
        #expect(recorders.allSatisfy { $0 == 10 }, "\(recorders)")
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 0, "the calling thread keeps its nice value")
    }

    /// A recording of 50 notes of about 950 bytes each (`index` 0 to 49) under these limits, stopped.
    static func recordFiftyNotes(in directory: String, maxFileBytes: Int, maxTotalBytes: Int) throws -> FlightRecorder.Summary {
        let recorder = try FlightRecorder(
            limits: .init(directory: directory, maxFileBytes: maxFileBytes, maxTotalBytes: maxTotalBytes), header: [:], createdAt: now,
            logger: Logger(label: "test"))
        let padding = String(repeating: "p", count: 900)
        for index in 0..<50 { recorder.record(["rec": "note", "index": .number(Double(index)), "padding": .string(padding)]) }
        return recorder.stop(reason: "done")
    }

    /// The running recording counts against max_total_mb: alone past it, it ends with an `end` record that says
    /// why (it used to grow until the disk was full and the trip journal failed with ENOSPC).
    @Test func theRunningRecordingStaysWithinTheTotalLimit() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let summary = try Self.recordFiftyNotes(in: directory, maxFileBytes: 10_000, maxTotalBytes: 30_000)
        let sizes = try summary.files.map { try #require(try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) }
        #expect(sizes.reduce(0, +) <= 30_000, "\(sizes)")
        let lines = try summary.files.flatMap { try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n") }
        #expect(lines.last?.hasPrefix(#"{"rec":"end""#) == true && lines.last?.contains(#""reason":"max_total_mb""#) == true, "\(lines.last ?? "")")
        #expect(lines.filter { $0.hasPrefix(#"{"rec":"end""#) }.count == 1)
        // What was kept is the drive's beginning without a gap: a replayable recording.
        let indices = lines.compactMap { try? JSONParser.parse(Array($0.utf8))["index"]?.doubleValue }.map { Int($0) }
        #expect(!indices.isEmpty && indices == Array(0..<indices.count))
    }

    @Test func aLongRecordingContinuesInPartsAndOldRecordingsMakeRoom() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // An older recording of 60 KB, older than anything this one writes.
        let old = "\(directory)/drive-20200101T000000Z.jsonl"
        try Data(repeating: UInt8(ascii: "x"), count: 60_000).write(to: URL(fileURLWithPath: old))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_577_836_800)], ofItemAtPath: old)
        let summary = try Self.recordFiftyNotes(in: directory, maxFileBytes: 20_000, maxTotalBytes: 70_000)
        #expect(summary.files.count >= 3, "\(summary.files)")
        #expect(!FileManager.default.fileExists(atPath: old), "the old recording was not deleted to make room")
        var indices: [Int] = []
        for (number, file) in summary.files.enumerated() {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= 20_000 + 1_000, "\(file) is \(size) bytes")
            if number > 0 { #expect(lines.first?.hasPrefix(#"{"rec":"continued""#) == true) }
            indices += lines.compactMap { try? JSONParser.parse(Array($0.utf8))["index"]?.doubleValue }.map { Int($0) }
        }
        #expect(indices == Array(0..<50), "records were lost or reordered across parts")
    }

    @Test func aDirectoryThatCannotBeMadeIsAClearError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("navd-rec-file-\(UUID().uuidString.prefix(8))").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect {
            _ = try FlightRecorder(
                limits: .init(directory: "\(file)/recordings", maxFileBytes: 1 << 20, maxTotalBytes: 1 << 22), header: [:], createdAt: Self.now,
                logger: Logger(label: "test"))
        } throws: { error in
            "\(error)".contains("cannot create the recording directory \(file)/recordings")
        }
    }

    // MARK: - Golden recordings

    static let golden = ["valhalla-missed-turn", "osrm-via-noise-2hz", "record-command-mid-run"]

    static func text(_ name: String) throws -> String {
        try String(contentsOf: recordings.appendingPathComponent("\(name).jsonl"), encoding: .utf8)
    }

    /// Each golden recording is a real drive through navd; its replay must give navd's lines byte for byte. When a
    /// change of behaviour is intended: `navctl replay --rewrite FILE`, then review the recording's diff.
    @Test(arguments: golden)
    func aGoldenDriveReplaysByteForByte(_ name: String) throws {
        let result = try DaemonReplay.run([try Self.text(name)])
        #expect(result.inputs > 50)
        #expect(result.recorded.count > 50)
        if let index = result.firstDifference {
            Issue.record(
                """
                \(name): the replay differs at output line \(index + 1):
                - recorded: \(index < result.recorded.count ? result.recorded[index] : "(end)")
                + replayed: \(index < result.replayed.count ? result.replayed[index] : "(end)")
                If the change is intended: .build/debug/navctl replay --rewrite Tests/NavigationDaemonTests/Fixtures/Recordings/\(name).jsonl
                """)
        }
        #expect(result.replayed.contains { $0.hasPrefix(#"{"type":"arrived""#) })
    }

    @Test func theGoldenDrivesCoverDeviationRerouteViaAndTheRecordCommand() throws {
        let missed = try DaemonReplay.run([try Self.text("valhalla-missed-turn")]).replayed
        #expect(missed.contains { $0.hasPrefix(#"{"type":"deviation""#) && $0.contains(#""offRoute":true"#) })
        #expect(missed.contains { $0.hasPrefix(#"{"type":"route""#) && $0.contains(#""reason":"reroute""#) })
        #expect(missed.contains { $0.hasPrefix(#"{"type":"instruction_retracted""#) })
        let via = try DaemonReplay.run([try Self.text("osrm-via-noise-2hz")]).replayed
        #expect(via.contains { $0.hasPrefix(#"{"type":"waypoint_reached""#) })
        let midRun = try DaemonReplay.run([try Self.text("record-command-mid-run")])
        #expect(midRun.header["reason"] == "command")
        #expect(try #require(midRun.header["seed"]?["seq"]?.doubleValue) > 0, "started mid-run, after events were published")
    }

    /// A change in what navd decides shows up as a difference: the same recording with one fix moved 200 m.
    @Test func aChangedInputShowsUpAsADifference() throws {
        var lines = try Self.text("valhalla-missed-turn").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.indices.filter { lines[$0].hasPrefix(#"{"rec":"fix""#) }.dropFirst(40).first)
        var object = try #require(try JSONParser.parse(Array(lines[index].utf8)).objectValue)
        var fix = try #require(object["fix"]?.objectValue)
        let lat = try #require(fix["lat"]?.doubleValue)
        fix["lat"] = .number(lat + 0.0018)
        object["fix"] = .object(fix)
        lines[index] = String(decoding: JSONLine.serialize(object, leading: ["rec", "t", "now"]).dropLast(), as: UTF8.self)
        let result = try DaemonReplay.run([lines.joined(separator: "\n")])
        #expect(result.firstDifference != nil)
    }

    @Test(arguments: [
        ("", "not a navd recording"),
        (#"{"rec":"continued","part":2,"from":"a.jsonl"}"#, "continues an earlier part"),
        (#"{"rec":"header","format":99}"#, "newer than this navctl reads"),
        (#"{"rec":"header","format":1e300}"#, "format is not a whole number"),
        (#"{"rec":"header","format":1}"#, "no configuration or seed"),
    ])
    func aFileThatIsNotAReplayableRecordingSaysWhy(_ text: String, _ expected: String) {
        #expect {
            _ = try DaemonReplay.run([text])
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    /// Numbers of a crafted recording pass CheckedNumber: a decode error naming the field, never a trap in
    /// `navctl replay` (each of these trapped converting to Int, or became a fix with an impossible number).
    @Test(arguments: [
        ("header", ["seed", "seq"], 1e300, "seq"),
        ("header", ["seed", "nextSession"], -1, "nextSession"),
        ("fix", ["quality", "mode"], 1e300, "mode of 1, 2 or 3"),
        ("fix", ["fix", "accuracy"], 1e300, "accuracy"),
        ("fix", ["fix", "speed"], -1e300, "speed"),
        ("fix", ["quality", "satellitesUsed"], 9.3e18, "satellitesUsed"),
        ("fix", ["now"], 1e300, "now"),
    ])
    func aCraftedNumberInARecordingIsAnErrorNotATrap(record: String, path: [String], value: Double, expected: String) throws {
        var lines = try Self.text("valhalla-missed-turn").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.indices.first { lines[$0].hasPrefix(#"{"rec":"\#(record)""#) })
        func replaced(_ value: JSONValue, _ path: ArraySlice<String>, _ number: Double) -> JSONValue {
            guard let key = path.first, var object = value.objectValue else { return .number(number) }
            object[key] = replaced(object[key] ?? .null, path.dropFirst(), number)
            return .object(object)
        }
        let object = replaced(try JSONParser.parse(Array(lines[index].utf8)), path[...], value)
        lines[index] = String(decoding: JSONLine.serialize(object.objectValue ?? [:], leading: ["rec", "t", "now"]).dropLast(), as: UTF8.self)
        #expect {
            _ = try DaemonReplay.run([lines.joined(separator: "\n")])
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    /// A line from a server (or a recording's output) with a seq of 1e300 is a decode error for a client.
    @Test(arguments: [#"{"type":"gnss","seq":1e300,"status":"ok","detail":""}"#, #"{"type":"gnss","seq":-1,"status":"ok","detail":""}"#])
    func aClientRefusesAnImpossibleSeq(line: String) {
        #expect(throws: ServerLine.DecodeError.self) { _ = try ServerLine(line: Array(line.utf8)) }
    }
}
