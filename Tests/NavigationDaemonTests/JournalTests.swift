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
        guard case .resumable(let loaded) = journal.load(now: CoordinatorHarness.start.addingTimeInterval(60), maxAge: 3600) else {
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
        guard case .tooOld(let age) = journal.load(now: CoordinatorHarness.start.addingTimeInterval(7200), maxAge: 3600) else {
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
        guard case .corrupt(let reason, let movedTo) = TripJournal(path: path).load(now: Date(), maxAge: 3600) else {
            Issue.record("corrupt journal accepted")
            return
        }
        #expect(!reason.isEmpty)
        let aside = try #require(movedTo)
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try String(contentsOfFile: aside, encoding: .utf8) == content)
    }
}
