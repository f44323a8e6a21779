import DriveReport
import FuzzDriver
import Foundation
import NavigationDaemon
import NavigationProtocol

/// A recording's bytes through everything that reads recordings: the daemon replay (header, seed, every loop
/// record through the coordinator), the drive report's reader and page, and each line through the typed
/// decoder of navd's messages. A broken recording must be an error that says why, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    let text = String(decoding: bytes, as: UTF8.self)
    do throws(DaemonReplay.ReplayError) {
        let result = try DaemonReplay.run([text])
        _ = result.firstDifference
    } catch {
        precondition(!error.description.isEmpty, "a replay error without a reason")
    }
    if let log = try? DriveLog(recording: [text]) {
        _ = DriveReportPage.html(log, title: "fuzz")
    }
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
        do throws(ServerLine.DecodeError) {
            if case .event(let message) = try ServerLine(line: line) { _ = message.line }
        } catch {
            precondition(!error.description.isEmpty, "a decode error without a reason")
        }
    }
    return 0
}

// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzRecording($0, $1) }
