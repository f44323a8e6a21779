import Foundation
import Testing
import TestSupport

/// Two linked pseudo-terminals from socat: navd opens `devicePath` as its receiver; the test writes NMEA into
/// the other end.
final class PtyPair: @unchecked Sendable {
    let devicePath: String
    let feedPath: String
    private var socat: ExternalProcess
    private var feed: FileHandle?

    init() throws {
        let base = "/tmp/navd-pty-\(UUID().uuidString.prefix(8))"
        devicePath = base + "-gps"
        feedPath = base + "-feed"
        socat = try Self.link(devicePath, feedPath)
        feed = try Self.open(feedPath, socat)
    }

    private static func link(_ devicePath: String, _ feedPath: String) throws -> ExternalProcess {
        try ExternalProcess("socat", ["-d", "-d", "pty,raw,echo=0,link=\(devicePath)", "pty,raw,echo=0,link=\(feedPath)"])
    }

    private static func open(_ feedPath: String, _ socat: ExternalProcess) throws -> FileHandle {
        let devicePath = feedPath.replacingOccurrences(of: "-feed", with: "-gps")
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !(FileManager.default.fileExists(atPath: devicePath) && FileManager.default.fileExists(atPath: feedPath)) {
            usleep(20_000)
        }
        guard let handle = FileHandle(forWritingAtPath: feedPath) else {
            Issue.record("socat did not create its ptys:\n\(socat.output)")
            throw CancellationError()
        }
        return handle
    }

    /// The receiver is unplugged: socat ends and its device link disappears.
    func unplug() {
        try? feed?.close()
        feed = nil
        socat.stop()
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, FileManager.default.fileExists(atPath: devicePath) { usleep(20_000) }
    }

    /// The receiver is plugged in again: a new pty appears under the same device path.
    func plugIn() throws {
        socat = try Self.link(devicePath, feedPath)
        feed = try Self.open(feedPath, socat)
    }

    func write(_ text: String) {
        feed?.write(Data(text.utf8))
    }

    deinit {
        try? feed?.close()
        // SIGKILL: on SIGTERM socat closes the device pty, and a close waits for output nobody reads any more
        // (navd is gone) until stop() gives up after 3 s.
        socat.stop(signal: SIGKILL)
    }
}
