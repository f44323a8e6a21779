import Foundation

/// gpsd 3.22 reading a pty the benchmark feeds, and one watcher of its JSON on 127.0.0.1: the peer whose relay
/// (an epoch written to the pty to its TPV at the watcher) navd's fix to socket is held against.
struct GpsdRelay {
    let process: BenchProcess
    let watcher: LineTap
    /// gpsd's TCP port on 127.0.0.1.
    let port: Int

    /// Starts gpsd on `pty` (its log `name`.log in `directory`) and watches it; the benchmark fails if gpsd does
    /// not listen within 5 s.
    init(pty: PtyPair, directory: String, name: String = "gpsd") {
        port = freeLoopbackPort()
        // -b: gpsd never writes to the receiver (no probes into the pty); -n: read it without a client.
        process = BenchProcess("/usr/sbin/gpsd", ["-N", "-n", "-b", "-S", String(port), pty.device], logPath: "\(directory)/\(name).log")
        var watcher: LineTap?
        for _ in 0..<100 where watcher == nil {
            usleep(50_000)
            if Self.canConnect(port: port) { watcher = LineTap(tcpPort: port) }
        }
        guard let watcher else {
            process.stop()
            fail("gpsd did not listen on 127.0.0.1:\(port):\n\(process.log)")
        }
        watcher.send(#"?WATCH={"enable":true,"json":true};"# + "\n")
        self.watcher = watcher
    }

    static func isTPV(_ line: String) -> Bool { line.contains(#""class":"TPV""#) }

    /// Stops gpsd; keeps what the watcher received in `keep` when given.
    func close(keep path: String? = nil) {
        watcher.close()
        if let path { watcher.save(to: path) }
        process.stop()
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Foundation.close(fd) }
        return connectLoopback(fd, port: port)
    }
}
