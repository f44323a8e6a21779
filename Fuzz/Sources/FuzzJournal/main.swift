import FuzzDriver
import Foundation
import NavigationDaemon

/// A trip journal's bytes through the reader navd runs at start. An unreadable journal must be a reason (it is
/// moved aside and logged), never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    do throws(TripJournal.UnreadableJournal) {
        let record = try TripJournal.record(from: Data(inputBytes(data, count)))
        precondition(record.version == TripJournalRecord.currentVersion)
    } catch {
        precondition(!error.reason.isEmpty, "an unreadable journal without a reason")
    }
    return 0
}


// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzJournal($0, $1) }
