import FoundationEssentials
import Glibc
import NavigationCore

/// The trip journal on disk. Saves are atomic: the record is written to a temporary file in the same
/// directory, fsynced, renamed over the journal, and the directory fsynced, so a crash or power cut leaves
/// either the old journal or the new one, never a torn file.
public struct TripJournal: Sendable {
    public enum Loaded: Sendable {
        case none
        /// Recent enough by a clock navd can trust now (the same boot's uptime, or the wall clock).
        case resumable(TripJournalRecord)
        /// Written in an earlier boot, with a GNSS time: how old it is is decided by the first fix's GNSS time
        /// (`TripCoordinator`), because the board's clock may be wrong until NTP or GNSS sets it.
        case resumableIfFirstFixConfirms(TripJournalRecord)
        /// Older than the configured maximum age: not resumed (and deleted).
        case tooOld(age: Double)
        /// Unreadable: moved aside to `movedTo` so it can be inspected, and navd starts without a trip.
        case corrupt(reason: String, movedTo: String?)
    }

    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func save(_ record: TripJournalRecord) throws {
        var text = JournalText()
        try save(record, text: &text)
    }

    /// Saves `record`, its route written again only when `text` has not written it before.
    public func save(_ record: TripJournalRecord, text: inout JournalText) throws {
        try writeAtomically(Data(try text.bytes(of: record)))
    }

    /// A journal's bytes (pure: the inverse of ``record(from:)``).
    public static func data(of record: TripJournalRecord) throws -> Data {
        var text = JournalText()
        return Data(try text.bytes(of: record))
    }

    /// Removes the journal and fsyncs its directory: after a power cut a trip that ended (arrival, cancel) must
    /// not come back from a directory entry that was still only in the page cache.
    public func delete() {
        guard unlink(path) == 0 else { return }
        syncDirectory()
    }

    func syncDirectory() { DurableFile(path: path).syncDirectory() }

    /// The clocks a journal's age can be measured with at start-up.
    public struct Clocks: Sendable {
        /// The wall clock: wrong on a board without a real-time clock until NTP or GNSS sets it.
        public var wall: Date
        /// This boot's id and seconds since boot: exact within one boot, whatever the wall clock does.
        public var bootId: String?
        public var uptime: Double?

        public init(wall: Date, bootId: String? = nil, uptime: Double? = nil) {
            self.wall = wall
            self.bootId = bootId
            self.uptime = uptime
        }
    }

    /// Reads the journal and decides whether it is recent enough (`maxAge`, seconds) to resume:
    /// - saved in this boot: by uptime (a restart by systemd, a crash), exact even if the wall clock jumped;
    /// - saved in an earlier boot with a fix time: by GNSS time on the first fix (`.resumableIfFirstFixConfirms`),
    ///   since a board without a real-time clock boots with an old clock and sets it later;
    /// - otherwise (older journals): by the wall clock, and a journal "from the future" is kept for the first fix
    ///   rather than deleted, since it means the clock went back, not that the journal is stale.
    public func load(clocks: Clocks, maxAge: Double) -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else { return .none }
        let record: TripJournalRecord
        do {
            record = try Self.record(from: data)
        } catch {
            return moveAside(reason: error.reason)
        }
        if let bootId = clocks.bootId, let uptime = clocks.uptime, record.bootId == bootId, let savedUptime = record.uptime {
            let age = uptime - savedUptime
            if age > maxAge {
                delete()
                return .tooOld(age: age)
            }
            return .resumable(record)
        }
        if record.lastFixTime != nil {
            return .resumableIfFirstFixConfirms(record)
        }
        let age = clocks.wall.timeIntervalSince(record.savedAt)
        if age > maxAge {
            delete()
            return .tooOld(age: age)
        }
        return .resumable(record)
    }

    /// Why a journal's bytes are not a record navd can resume.
    public struct UnreadableJournal: Error, Sendable {
        public var reason: String
    }

    /// Decodes a journal's bytes (pure: `load` adds the file and the age decision).
    public static func record(from data: Data) throws(UnreadableJournal) -> TripJournalRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 time")
            }
            return date
        }
        let record: TripJournalRecord
        do {
            record = try decoder.decode(TripJournalRecord.self, from: data)
        } catch let error as DecodingError {
            throw UnreadableJournal(reason: describeDecodingError(error))
        } catch {
            throw UnreadableJournal(reason: "\(error)")
        }
        guard record.version == TripJournalRecord.currentVersion else {
            throw UnreadableJournal(reason: "journal version \(record.version) is not \(TripJournalRecord.currentVersion)")
        }
        // JSON numbers from disk: each one inside its range, or the journal is not resumed.
        let distances = [("distanceAlong", record.distanceAlong), ("distanceTravelled", record.distanceTravelled ?? 0)]
        for (key, value) in distances where CheckedNumber.measure(value, in: PhysicalRange.routeDistance) == nil {
            throw UnreadableJournal(reason: "\(key) \(value) is outside \(PhysicalRange.routeDistance) m")
        }
        let counts = [("stepIndex", record.stepIndex), ("reroutes", record.reroutes ?? 0), ("passedWaypoints", record.passedWaypoints ?? 0)]
        for (key, value) in counts where !PhysicalRange.identifier.contains(value) {
            throw UnreadableJournal(reason: "\(key) \(value) is outside \(PhysicalRange.identifier)")
        }
        if let passed = record.passedWaypoints, passed > (record.waypoints?.count ?? 0) {
            throw UnreadableJournal(reason: "passedWaypoints \(passed) is more than the \(record.waypoints?.count ?? 0) waypoints it counts")
        }
        return record
    }

    private func moveAside(reason: String) -> Loaded {
        let stamp = ISO8601Timestamp.format(Date()).replacing(":", with: "")
        let target = "\(path).corrupt-\(stamp)"
        return rename(path, target) == 0 ? .corrupt(reason: reason, movedTo: target) : .corrupt(reason: reason, movedTo: nil)
    }

    private func writeAtomically(_ data: Data) throws { try DurableFile(path: path).write(data) }
}

public struct JournalError: Error, CustomStringConvertible {
    public var operation: String
    public var errno: Int32
    public var description: String { "cannot \(operation): \(String(cString: strerror(errno)))" }
}
