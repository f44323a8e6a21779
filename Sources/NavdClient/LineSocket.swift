import FoundationEssentials
import Glibc
import Synchronization

/// A Unix stream socket read and written as lines (blocking; one reader, any number of writers).
final class LineSocket: Sendable {
    private let descriptor: Int32
    private let isClosed = Atomic<Bool>(false)
    private let buffer = Mutex<[UInt8]>([])
    private let writing = Mutex(())

    init(path: String) throws(NavdClientError) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .cannotConnect(path: path, reason: String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(fd)
            throw .cannotConnect(path: path, reason: "the path is longer than a socket path may be")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            switch code {
            case ENOENT, ECONNREFUSED: throw .notRunning(path: path)
            case EACCES, EPERM: throw .accessDenied(path: path)
            default: throw .cannotConnect(path: path, reason: String(cString: strerror(code)))
            }
        }
        descriptor = fd
    }

    /// Writes `bytes` whole; false when the connection is gone.
    func write(_ bytes: [UInt8]) -> Bool {
        writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// The next line without its newline; nil at the end of the connection or after `timeout` seconds.
    func readLine(timeout: Double?) -> [UInt8]? {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var scanned = 0
        while true {
            // Bytes already searched are not searched again: a line trickled byte by byte stays linear.
            let line: [UInt8]? = buffer.withLock { buffer in
                guard let newline = buffer[min(scanned, buffer.count)...].firstIndex(of: UInt8(ascii: "\n")) else {
                    scanned = buffer.count
                    return nil
                }
                scanned = 0
                defer { buffer.removeSubrange(...newline) }
                return Array(buffer[..<newline])
            }
            if let line { return line }
            if isClosed.load(ordering: .acquiring) { return nil }
            var wait: Int32 = 500
            if let deadline {
                let remaining = deadline.timeIntervalSinceNow
                if remaining <= 0 { return nil }
                wait = Int32(min(remaining, 0.5) * 1000)
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, wait) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                close()
                return nil
            }
            buffer.withLock { $0 += chunk[..<count] }
        }
    }

    /// Shuts the connection down (the reader sees its end); the descriptor is released once.
    func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    deinit { Glibc.close(descriptor) }
}
