import Foundation
import Logging
import NavigationCore
import NavigationDaemon
import Testing

/// The journal writer's thread: what the loop hands over is written in order, and only the newest survives.
@Suite struct JournalWriterTests {
    static func loaded(_ journal: TripJournal) -> TripJournalRecord? {
        guard case .resumable(let record) = journal.load(clocks: .init(wall: CoordinatorHarness.start), maxAge: 3600) else { return nil }
        return record
    }

    @Test(arguments: [1, 2, 50])
    func theNewestSaveIsOnDiskAfterFinish(saves: Int) throws {
        let journal = TripJournal(path: JournalTests.temporaryPath())
        let writer = JournalWriter(journal: journal, logger: Logger(label: "test"))
        var last: TripJournalRecord?
        for index in 0..<saves {
            var record = try JournalTests.record(savedAt: CoordinatorHarness.start)
            record.distanceAlong = Double(index)
            writer.submit(.save(record))
            last = record
        }
        writer.finish()
        #expect(Self.loaded(journal) == last)
    }

    @Test func aDeletionAfterASaveLeavesNoJournal() throws {
        let journal = TripJournal(path: JournalTests.temporaryPath())
        let writer = JournalWriter(journal: journal, logger: Logger(label: "test"))
        writer.submit(.save(try JournalTests.record(savedAt: CoordinatorHarness.start)))
        writer.submit(.delete)
        writer.finish()
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }

    @Test func aSaveAfterADeletionIsWritten() throws {
        let journal = TripJournal(path: JournalTests.temporaryPath())
        try journal.save(try JournalTests.record(savedAt: CoordinatorHarness.start))
        let writer = JournalWriter(journal: journal, logger: Logger(label: "test"))
        writer.submit(.delete)
        var record = try JournalTests.record(savedAt: CoordinatorHarness.start)
        record.routeId = "r-2"
        writer.submit(.save(record))
        writer.finish()
        #expect(Self.loaded(journal)?.routeId == "r-2")
    }

    @Test func anUnwritableJournalDoesNotStopTheWriter() throws {
        let journal = TripJournal(path: "/nonexistent-navd-directory/trip.json")
        let writer = JournalWriter(journal: journal, logger: Logger(label: "test"))
        writer.submit(.save(try JournalTests.record(savedAt: CoordinatorHarness.start)))
        writer.finish()  // returns: the error is logged, not thrown at the loop
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }
}
