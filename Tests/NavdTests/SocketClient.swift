import Foundation
import NavigationCore
import Testing
import TestSupport

/// A protocol client over a real Unix socket, with bounded waits.
final class SocketClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closedByServer = false
    /// Every message read so far, in order.
    private(set) var received: [JSONValue] = []
    /// The lines as received, without their newlines.
    private(set) var receivedLines: [String] = []

    /// Connects a stream socket to `path`; -1 on failure (errno set).
    private static func connected(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = withUnixSocketAddress(path) { Glibc.connect(fd, $0, $1) }
        if result != 0 {
            let saved = errno
            close(fd)
            errno = saved
            return -1
        }
        return fd
    }

    static func canConnect(_ path: String) -> Bool {
        let fd = connected(path)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    init(path: String) throws {
        fd = Self.connected(path)
        guard fd >= 0 else {
            Issue.record("cannot connect to \(path): \(String(cString: strerror(errno)))")
            throw CancellationError()
        }
    }

    private init(connected fd: Int32) {
        self.fd = fd
    }

    /// A connection, or nil when none can be made now (for clients expected to be refused at times).
    static func attempt(_ path: String) -> SocketClient? {
        let fd = connected(path)
        return fd >= 0 ? SocketClient(connected: fd) : nil
    }

    deinit { close(fd) }

    func send(_ line: String) {
        sendBytes(Array((line + "\n").utf8))
    }

    func sendBytes(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// The next message, or nil after `timeout` seconds or when the server closed the connection.
    func next(timeout: Double) -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let value = try? JSONParser.parse(line) else {
                    Issue.record("server sent a line that is not JSON: \(String(decoding: line, as: UTF8.self))")
                    continue
                }
                received.append(value)
                receivedLines.append(String(decoding: line, as: UTF8.self))
                return value
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 || closedByServer { return nil }
            var pollfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pollfd, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 {
                closedByServer = true
            } else {
                buffer += chunk[..<count]
            }
        }
    }

    /// Reads until a message satisfies `condition` (returned) or `timeout` seconds pass (nil).
    func waitFor(timeout: Double, _ condition: (JSONValue) -> Bool) -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let message = next(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if condition(message) { return message }
        }
        return nil
    }

    /// The first message received so far that satisfies `condition`, or else the first to arrive within `timeout`
    /// seconds (nil when none does).
    func receivedOrWaitFor(timeout: Double, _ condition: (JSONValue) -> Bool) -> JSONValue? {
        received.first(where: condition) ?? waitFor(timeout: timeout, condition)
    }

    /// Reads whatever arrives during `seconds`.
    func drain(for seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0, next(timeout: deadline.timeIntervalSinceNow) != nil {}
    }

    /// Sends a command and waits for its reply or error (by id).
    func command(_ line: String, id: String, timeout: Double = 10) -> JSONValue? {
        send(line)
        return waitFor(timeout: timeout) { $0["id"]?.stringValue == id && ($0.type == "reply" || $0.type == "error") }
    }
}

extension JSONValue {
    var type: String? { self["type"]?.stringValue }
}
