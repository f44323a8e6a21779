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

    @Test func aJournalThatCannotBeSavedIsReportedOnceAndItsRecoveryOnce() throws {
        let directory = JournalTests.temporaryPath()
        let journal = TripJournal(path: directory + "/trip.json")
        let log = CapturedLog()
        let writer = JournalWriter(journal: journal, logger: Logger(label: "test") { _ in log })
        // No directory yet: every save fails.
        for _ in 0..<20 {
            writer.submit(.save(try JournalTests.record(savedAt: CoordinatorHarness.start)))
            writer.waitUntilIdle()
        }
        #expect(log.messages.filter { $0.contains("cannot save the trip journal") }.count == 1, "\(log.messages)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for _ in 0..<3 {
            writer.submit(.save(try JournalTests.record(savedAt: CoordinatorHarness.start)))
            writer.waitUntilIdle()
        }
        writer.finish()
        #expect(log.messages.filter { $0.contains("saved again") }.count == 1, "\(log.messages)")
        #expect(log.metadataOfEntries.last?["failedSaves"] == "20")
        #expect(Self.loaded(journal) != nil)
    }

    @Test func anUnwritableJournalDoesNotStopTheWriter() throws {
        let journal = TripJournal(path: "/nonexistent-navd-directory/trip.json")
        let writer = JournalWriter(journal: journal, logger: Logger(label: "test"))
        writer.submit(.save(try JournalTests.record(savedAt: CoordinatorHarness.start)))
        writer.finish()  // returns: the error is logged, not thrown at the loop
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }
}

/// A log handler that keeps what it is given.
final class CapturedLog: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(message: String, metadata: Logger.Metadata)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] { lock.withLock { entries.map(\.message) } }
    var metadataOfEntries: [Logger.Metadata] { lock.withLock { entries.map(\.metadata) } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { entries.append((event.message.description, event.metadata ?? [:])) }
    }
}
