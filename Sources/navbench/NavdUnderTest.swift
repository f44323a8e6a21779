import Foundation

/// A navd process the benchmark starts with its own config, socket and journal, told to notify readiness the
/// way systemd asks (`$NOTIFY_SOCKET`), so the time from exec to `READY=1` is measured as systemd sees it.
final class NavdUnderTest {
    let directory: String
    let process: BenchProcess
    /// Seconds from starting the process until its `READY=1` datagram arrived.
    let startToReady: Double
    var socketPath: String { "\(directory)/navd.sock" }

    /// `gnss`: the [gnss] table's keys; `extra`: more TOML.
    init(binary: String, directory: String, gnss: String, valhalla: String, extra: String = "", maxClients: Int = 100) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = """
            [gnss]
            \(gnss)
            watchdog_timeout = 30

            [routing]
            engine = "valhalla"
            url = "\(valhalla)"

            [reroute]
            cooldown = 2.0
            minimum_movement = 0.0
            loop_count = 1000

            [socket]
            path = "\(directory)/navd.sock"
            mode = "0600"
            max_clients = \(maxClients)

            [journal]
            path = "\(directory)/trip.json"

            [logging]
            level = "notice"

            \(extra)
            """
        let configPath = "\(directory)/navd.toml"
        FileManager.default.createFile(atPath: configPath, contents: Data(config.utf8))

        let notifyPath = "\(directory)/notify.sock"
        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in Array(notifyPath.utf8).prefix(buffer.count - 1).enumerated() { buffer[i] = byte }
        }
        unlink(notifyPath)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if bound != 0 { fail("cannot bind \(notifyPath): \(String(cString: strerror(errno)))") }
        defer { close(notify) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(notify, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let started = monotonicSeconds()
        process = BenchProcess(binary, ["--config", configPath], environment: ["NOTIFY_SOCKET": notifyPath], logPath: "\(directory)/navd.log")
        var ready: Double?
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ready == nil && monotonicSeconds() - started < 20 {
            let count = buffer.withUnsafeMutableBytes { recv(notify, $0.baseAddress, $0.count, 0) }
            if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).contains("READY=1") { ready = monotonicSeconds() - started }
            if !process.isRunning { fail("navd exited at start:\n\(process.log)") }
        }
        guard let ready else { fail("navd sent no READY=1 within 20 s:\n\(process.log)") }
        startToReady = ready
    }

    /// A client on navd's socket; waits for its hello.
    func connect() -> LineTap {
        let tap = LineTap(unixPath: socketPath)
        guard tap.wait(timeout: 5, { $0.contains(#""type":"hello""#) }) != nil else { fail("navd sent no hello within 5 s") }
        return tap
    }

    func stop() { process.stop() }
}
