import FoundationEssentials
import Glibc
import Logging
import SystemSupport

/// Writes the trip journal on its own thread, so that the navigation loop never waits for a disk: an fsync on a
/// vehicle's SD card can take seconds, and the loop handles fixes and pings systemd's watchdog (WatchdogSec=10s).
/// Only the newest pending operation is kept: a save that a newer save or a deletion supersedes before it was
/// written is never written, and operations are applied in the order they were submitted.
public final class JournalWriter: @unchecked Sendable {
    public enum Operation: Sendable, Equatable {
        case save(TripJournalRecord)
        case delete
    }

    private let journal: TripJournal
    private let logger: Logger
    // `condition` guards `pending`, `writing`, `finishing` and `finished`.
    private let condition = ConditionLock()
    private var pending: Operation?
    private var writing = false
    private var finishing = false
    private var finished = false
    // Only the writer thread touches these: saves failing since the first failure, and that failure.
    private var failedSaves = 0
    private var firstFailure: String?
    /// The journal's text, the route's part kept while the route stays the same (only the writer thread).
    private var text = JournalText()

    public init(journal: TripJournal, logger: Logger) {
        self.journal = journal
        self.logger = logger
        DetachedThread.start(name: "navd journal") { [self] in writeUntilFinished() }
    }

    /// Hands `operation` to the writer and returns at once; it replaces any operation not yet started.
    public func submit(_ operation: Operation) {
        condition.lock()
        precondition(!finishing, "journal operation submitted after finish()")
        pending = operation
        condition.signal()
        condition.unlock()
    }

    /// Returns once every operation submitted so far has been performed (tests; the loop never waits).
    public func waitUntilIdle() {
        condition.lock()
        while pending != nil || writing { condition.wait() }
        condition.unlock()
    }

    /// Writes what is pending, stops the thread, and returns when both are done (at shutdown).
    public func finish() {
        condition.lock()
        finishing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func writeUntilFinished() {
        while true {
            condition.lock()
            while pending == nil && !finishing { condition.wait() }
            let operation = pending
            pending = nil
            writing = operation != nil
            let stop = finishing && operation == nil
            condition.unlock()
            if let operation {
                perform(operation)
                condition.lock()
                writing = false
                condition.broadcast()
                condition.unlock()
            }
            if stop { break }
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func perform(_ operation: Operation) {
        switch operation {
        case .save(let record):
            do {
                try journal.save(record, text: &text)
                if failedSaves > 0 {
                    logger.notice(
                        "the trip journal is saved again", metadata: ["path": "\(journal.path)", "failedSaves": "\(failedSaves)"])
                    failedSaves = 0
                    firstFailure = nil
                }
            } catch {
                // Said once when saving starts to fail (a full or read-only disk fails every few seconds), and
                // again when it recovers; navigation goes on either way.
                failedSaves += 1
                if firstFailure == nil {
                    firstFailure = "\(error)"
                    logger.error(
                        "cannot save the trip journal; navigation continues, but this trip will not survive a restart until saving works again",
                        metadata: ["error": "\(error)", "path": "\(journal.path)"])
                }
            }
        case .delete:
            journal.delete()
        }
    }
}
