import Foundation
import Testing
import TestSupport

/// Two linked pseudo-terminals from socat: navd opens `devicePath` as its receiver; the test writes NMEA into
/// the other end.
final class PtyPair: @unchecked Sendable {
    let devicePath: String
    let feedPath: String
    private let socat: ExternalProcess
    private var feed: FileHandle?

    init() throws {
        let base = "/tmp/navd-pty-\(UUID().uuidString.prefix(8))"
        devicePath = base + "-gps"
        feedPath = base + "-feed"
        socat = try ExternalProcess("socat", ["-d", "-d", "pty,raw,echo=0,link=\(devicePath)", "pty,raw,echo=0,link=\(feedPath)"])
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !(FileManager.default.fileExists(atPath: devicePath) && FileManager.default.fileExists(atPath: feedPath)) {
            usleep(20_000)
        }
        guard let handle = FileHandle(forWritingAtPath: feedPath) else {
            Issue.record("socat did not create its ptys:\n\(socat.output)")
            throw CancellationError()
        }
        feed = handle
    }

    func write(_ text: String) {
        feed?.write(Data(text.utf8))
    }

    deinit {
        try? feed?.close()
        socat.stop()
    }
}
