import Foundation
import Testing

/// A serial GNSS receiver inside the container: socat makes a pty (`/run/gnss0`, a link to /dev/pts/N) and
/// copies into it what the test writes to a FIFO in the scratch directory, so the test paces the epochs.
/// socat runs as a transient systemd service inside (`gnss-feed.service`).
final class PtyReceiver: @unchecked Sendable {
    static let device = "/run/gnss0"
    private let fifo: Int32
    private(set) var epochsSent = 0

    init(in system: BootedSystem) throws {
        let path = system.scratch.appendingPathComponent("gnss-feed").path
        guard mkfifo(path, 0o600) == 0 else {
            Issue.record("mkfifo \(path): \(String(cString: strerror(errno)))")
            throw CancellationError()
        }
        // Read-write, so opening does not wait for socat and socat never sees end-of-file between epochs.
        fifo = open(path, O_RDWR)
        guard fifo >= 0 else {
            Issue.record("open \(path): \(String(cString: strerror(errno)))")
            throw CancellationError()
        }
        try system.must(
            "systemd-run --unit=gnss-feed --property=Type=simple socat -u OPEN:/navd-test/gnss-feed,rdonly "
                + "PTY,link=\(Self.device),raw,echo=0,mode=0666")
        let ready = try waitForDevice(system)
        guard ready else {
            let log = (try? system.run("journalctl -u gnss-feed --no-pager").text) ?? ""
            Issue.record("socat never made \(Self.device): \(log)")
            throw CancellationError()
        }
    }

    private func waitForDevice(_ system: BootedSystem) throws -> Bool {
        for _ in 0..<100 {
            if try system.run("test -e \(Self.device)").succeeded { return true }
            usleep(100_000)
        }
        return false
    }

    /// Writes one epoch's sentences.
    func send(_ epoch: String) {
        let bytes = Array(epoch.utf8)
        _ = bytes.withUnsafeBytes { write(fifo, $0.baseAddress, $0.count) }
        epochsSent += 1
    }

    /// Sends `epochs` one every `interval` seconds.
    func send(_ epochs: ArraySlice<String>, interval: Double) async throws {
        for epoch in epochs {
            send(epoch)
            try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
    }

    deinit { close(fifo) }
}
