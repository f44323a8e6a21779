import Foundation
import Synchronization

/// A client of a line-based socket (navd's Unix socket, gpsd's TCP port) that reads on its own thread with
/// blocking reads and stamps every line with the monotonic time its read returned: the arrival time a client
/// sees, with no scheduler between the kernel and the stamp.
final class LineTap: @unchecked Sendable {
    struct Line: Sendable {
        /// Monotonic arrival time, in seconds.
        var time: Double
        var text: String
    }

    private let fd: Int32
    private let received = Mutex<[Line]>([])
    private var thread: Thread?

    /// Connects to a Unix socket.
    convenience init(unixPath: String) {
        self.init(descriptor: connectUnixSocket(unixPath))
    }

    /// Connects to 127.0.0.1:`port`.
    convenience init(tcpPort port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        if !connectLoopback(fd, port: port) { fail("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        self.init(descriptor: fd)
    }

    /// Reads a socket that is already connected (or one end of a socket pair); closes it in ``close()``.
    init(descriptor: Int32) {
        fd = descriptor
        let thread = Thread { [self] in readLoop() }
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var pending: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            let now = monotonicSeconds()
            pending.append(contentsOf: buffer[0..<count])
            var lines: [Line] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(Line(time: now, text: String(decoding: pending[..<newline], as: UTF8.self)))
                pending.removeSubrange(...newline)
            }
            if !lines.isEmpty { received.withLock { $0.append(contentsOf: lines) } }
        }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Every line so far.
    var lines: [Line] { received.withLock { $0 } }

    var count: Int { received.withLock { $0.count } }

    /// The first line at index `from` or later that satisfies `predicate`, waiting up to `timeout` seconds.
    func wait(from: Int = 0, timeout: Double, _ predicate: (String) -> Bool) -> (index: Int, line: Line)? {
        let deadline = monotonicSeconds() + timeout
        var next = from
        while true {
            let snapshot = received.withLock { Array($0[min(next, $0.count)...]) }
            for (offset, line) in snapshot.enumerated() where predicate(line.text) { return (next + offset, line) }
            next += snapshot.count
            if monotonicSeconds() > deadline { return nil }
            usleep(1_000)
        }
    }

    /// Writes every line received, each prefixed with its arrival time in ms (for a look after the run).
    func save(to path: String) {
        let text = lines.map { String(format: "%.3f ", $0.time * 1000) + $0.text }.joined(separator: "\n")
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Foundation.close(fd)
    }
}
