import Foundation
import NavigationCore
import NavigationDaemon
import Testing

@Suite struct JournalTests {
    static func temporaryPath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navd-journal-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("trip.json").path
    }

    static func record(savedAt: Date) throws -> TripJournalRecord {
        TripJournalRecord(
            routeId: "r-1", route: try CoordinatorHarness.route(), options: ["avoid": ["tolls"]], distanceAlong: 123.5, stepIndex: 2,
            startedAt: CoordinatorHarness.start, savedAt: savedAt)
    }

    @Test func aSavedTripLoadsBackIdentically() throws {
        let journal = TripJournal(path: Self.temporaryPath())
        let record = try Self.record(savedAt: CoordinatorHarness.start)
        try journal.save(record)
        guard case .resumable(let loaded) = journal.load(clocks: .init(wall: CoordinatorHarness.start.addingTimeInterval(60)), maxAge: 3600) else {
            Issue.record("not resumable")
            return
        }
        #expect(loaded.routeId == record.routeId)
        #expect(loaded.distanceAlong == record.distanceAlong)
        #expect(loaded.route.steps.count == record.route.steps.count)
        #expect(loaded.options == record.options)
        // No temporary files are left next to it.
        let directory = (journal.path as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["trip.json"])
    }

    @Test func anOldJournalIsNotResumedAndIsDeleted() throws {
        let journal = TripJournal(path: Self.temporaryPath())
        try journal.save(try Self.record(savedAt: CoordinatorHarness.start))
        guard case .tooOld(let age) = journal.load(clocks: .init(wall: CoordinatorHarness.start.addingTimeInterval(7200)), maxAge: 3600) else {
            Issue.record("an old journal was accepted")
            return
        }
        #expect(age == 7200)
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }

    @Test(arguments: ["", "{", "not json at all", #"{"version":1}"#, #"{"version":99,"routeId":"x"}"#])
    func aCorruptJournalIsMovedAsideNeverFatal(_ content: String) throws {
        let path = Self.temporaryPath()
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        guard case .corrupt(let reason, let movedTo) = TripJournal(path: path).load(clocks: .init(wall: Date()), maxAge: 3600) else {
            Issue.record("corrupt journal accepted")
            return
        }
        #expect(!reason.isEmpty)
        let aside = try #require(movedTo)
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try String(contentsOfFile: aside, encoding: .utf8) == content)
    }

    // Boards without a real-time clock: the wall clock at start-up may be far behind (or ahead of) the clock
    // that wrote the journal. Within one boot the uptime decides; across boots the first fix's GNSS time does.

    static func record(savedAt: Date, bootId: String?, uptime: Double?, lastFixTime: Date?) throws -> TripJournalRecord {
        var record = try Self.record(savedAt: savedAt)
        record.bootId = bootId
        record.uptime = uptime
        record.lastFixTime = lastFixTime
        return record
    }

    /// (wall clock offset from the save, seconds since the save by uptime, resumable?)
    @Test(arguments: [
        (-365.0 * 86_400, 30.0, true),  // the clock went back a year at a restart: 30 s by uptime, resumed
        (365.0 * 86_400, 30.0, true),  // NTP moved the clock a year ahead meanwhile: still 30 s
        (0.0, 7200.0, false),  // two hours by uptime: too old whatever the wall clock says
    ])
    func withinOneBootTheUptimeDecides(wallOffset: Double, uptimeElapsed: Double, resumable: Bool) throws {
        let journal = TripJournal(path: Self.temporaryPath())
        try journal.save(try Self.record(savedAt: CoordinatorHarness.start, bootId: "boot-a", uptime: 100, lastFixTime: CoordinatorHarness.start))
        let loaded = journal.load(
            clocks: .init(wall: CoordinatorHarness.start.addingTimeInterval(wallOffset), bootId: "boot-a", uptime: 100 + uptimeElapsed),
            maxAge: 3600)
        switch loaded {
        case .resumable: #expect(resumable)
        case .tooOld(let age):
            #expect(!resumable)
            #expect(age == uptimeElapsed)
            #expect(!FileManager.default.fileExists(atPath: journal.path))
        default: Issue.record("unexpected \(loaded)")
        }
    }

    @Test(arguments: [-10.0 * 365 * 86_400, 0, 10.0 * 365 * 86_400])
    func fromAnEarlierBootTheFirstFixDecidesWhateverTheWallClockSays(wallOffset: Double) throws {
        let journal = TripJournal(path: Self.temporaryPath())
        try journal.save(try Self.record(savedAt: CoordinatorHarness.start, bootId: "boot-a", uptime: 100, lastFixTime: CoordinatorHarness.start))
        let loaded = journal.load(
            clocks: .init(wall: CoordinatorHarness.start.addingTimeInterval(wallOffset), bootId: "boot-b", uptime: 12), maxAge: 3600)
        guard case .resumableIfFirstFixConfirms(let record) = loaded else {
            Issue.record("expected a decision on the first fix, got \(loaded)")
            return
        }
        #expect(record.lastFixTime == CoordinatorHarness.start)
        #expect(FileManager.default.fileExists(atPath: journal.path), "kept until the fix decides")
    }

    @Test func aJournalWithoutFixTimeFromTheFutureIsKeptNotDeleted() throws {
        let journal = TripJournal(path: Self.temporaryPath())
        try journal.save(try Self.record(savedAt: CoordinatorHarness.start, bootId: nil, uptime: nil, lastFixTime: nil))
        // The board booted with a clock a year behind the one that wrote the journal.
        let loaded = journal.load(clocks: .init(wall: CoordinatorHarness.start.addingTimeInterval(-365 * 86_400)), maxAge: 3600)
        guard case .resumable = loaded else {
            Issue.record("a journal from the future was discarded: \(loaded)")
            return
        }
    }

    @Test func savedFieldsRoundTrip() throws {
        let journal = TripJournal(path: Self.temporaryPath())
        let record = try Self.record(savedAt: CoordinatorHarness.start, bootId: "boot-a", uptime: 42.5, lastFixTime: CoordinatorHarness.start)
        try journal.save(record)
        guard case .resumable(let loaded) = journal.load(clocks: .init(wall: CoordinatorHarness.start, bootId: "boot-a", uptime: 50), maxAge: 3600)
        else {
            Issue.record("not resumable")
            return
        }
        #expect(loaded == record)
    }

    /// The trip's waypoints as changed on the way come back with their kinds and properties.
    @Test func theTripsWaypointsRoundTrip() throws {
        let journal = TripJournal(path: Self.temporaryPath())
        var record = try Self.record(savedAt: CoordinatorHarness.start)
        record.waypoints = [
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.17, longitude: 24.94), kind: .via),
            Waypoint(coordinate: GeographicCoordinate(latitude: 60.18, longitude: 24.95), properties: ["radius": .number(20)]),
        ]
        record.passedWaypoints = 1
        try journal.save(record)
        guard case .resumable(let loaded) = journal.load(clocks: .init(wall: CoordinatorHarness.start), maxAge: 3600) else {
            Issue.record("not resumable")
            return
        }
        #expect(loaded.waypoints == record.waypoints && loaded.passedWaypoints == 1)
    }

    /// A count of passed waypoints that cannot be: the journal is unreadable, moved aside, not half-resumed.
    @Test(arguments: [-1, 3, 1 << 40])
    func anImpossibleCountOfPassedWaypointsIsUnreadable(passed: Int) throws {
        let journal = TripJournal(path: Self.temporaryPath())
        var record = try Self.record(savedAt: CoordinatorHarness.start)
        record.waypoints = [Waypoint(coordinate: GeographicCoordinate(latitude: 60.17, longitude: 24.94))]
        record.passedWaypoints = passed
        try journal.save(record)
        guard case .corrupt(let reason, _) = journal.load(clocks: .init(wall: CoordinatorHarness.start), maxAge: 3600) else {
            Issue.record("a journal with passedWaypoints \(passed) was accepted")
            return
        }
        #expect(reason.contains("passedWaypoints"), "\(reason)")
    }
}

@Suite struct BootClockTests {
    /// The unit passes systemd's %b (no dashes); the kernel's file has dashes: both name one boot.
    @Test func theUnitsBootIdAndTheKernelsAgree() throws {
        let kernel = try #require(BootClock.bootId(environment: [:]), "/proc/sys/kernel/random/boot_id is readable here")
        #expect(!kernel.contains("-") && kernel.count == 32)
        let dashed = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(BootClock.bootId(environment: ["NAVD_BOOT_ID": dashed.replacingOccurrences(of: "-", with: "")]) == kernel)
        #expect(BootClock.bootId(environment: ["NAVD_BOOT_ID": "  "]) == kernel, "a blank variable falls back to the kernel's")
    }

    @Test func uptimeCountsUp() throws {
        let first = try #require(BootClock.uptime())
        let second = try #require(BootClock.uptime())
        #expect(first > 0 && second >= first)
    }

    /// The journal's text keeps the route's part while the route stays the same: saves with the same route, a
    /// changed route and a route changed in place each give the bytes a fresh writer gives, and load back.
    @Test func theRoutesTextIsWrittenAgainOnlyWhenTheRouteChanges() throws {
        var text = JournalText()
        var record = try JournalTests.record(savedAt: CoordinatorHarness.start)
        func check(_ record: TripJournalRecord) throws {
            let kept = try text.bytes(of: record)
            var fresh = JournalText()
            #expect(kept == (try fresh.bytes(of: record)))
            #expect(try TripJournal.record(from: Data(kept)) == record)
        }
        try check(record)
        record.distanceAlong = 456.25
        record.stepIndex = 3
        try check(record)
        // The same route id, a route changed in place (a refresh's new durations).
        record.route.duration += 60
        try check(record)
        record.route.steps[0].duration += 1
        try check(record)
        // Another route.
        record.routeId = "r-2"
        record.route = try CoordinatorHarness.route()
        record.route.geometry.removeLast()
        try check(record)
    }
}
