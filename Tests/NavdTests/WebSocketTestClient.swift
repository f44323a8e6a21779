import Foundation
import Glibc
import NavigationCore

/// A minimal WebSocket client over a TCP socket to 127.0.0.1, for tests: the handshake with chosen headers, masked
/// frames out, frames in. Written here so that the tests see every byte navd sends.
final class WebSocketTestClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// The handshake's status line and headers.
    private(set) var responseHead = ""

    /// Connects and sends the handshake for `target` with `headers`; throws when the connection fails.
    init(port: Int, target: String = "/ws", headers: [String: String] = [:]) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        sendRaw(Array((request + "\r\n").utf8))
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let end = findHeaderEnd() {
                responseHead = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return
            }
            guard read(timeout: deadline.timeIntervalSinceNow) else { break }
        }
    }

    deinit { close(fd) }

    var status: Int { Int(responseHead.split(separator: " ").dropFirst().first ?? "") ?? 0 }

    private func findHeaderEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func sendRaw(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// One masked frame (opcode 1 text, 2 binary).
    func send(_ payload: [UInt8], opcode: UInt8 = 1) {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        sendRaw(frame)
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    @discardableResult
    private func read(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(max(0, timeout) * 1000)) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }

    /// The next frame's opcode and payload, or nil after `timeout` seconds or when the connection closed.
    func nextFrame(timeout: Double) -> (opcode: UInt8, payload: [UInt8])? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if buffer.count >= 2 {
                var length = Int(buffer[1] & 0x7F)
                var offset = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    offset = 4
                } else if length == 127, buffer.count >= 10 {
                    length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
                    offset = 10
                }
                if length < 126 || offset > 2, buffer.count >= offset + length {
                    let frame = (buffer[0] & 0x0F, Array(buffer[offset..<(offset + length)]))
                    buffer.removeFirst(offset + length)
                    return frame
                }
            }
            guard deadline.timeIntervalSinceNow > 0, read(timeout: deadline.timeIntervalSinceNow) else { return nil }
        }
    }

    /// The next text message as JSON that satisfies `condition`.
    func waitFor(timeout: Double, _ condition: (JSONValue) -> Bool) -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        while let frame = nextFrame(timeout: deadline.timeIntervalSinceNow) {
            guard frame.opcode == 1, let value = try? JSONParser.parse(frame.payload) else { continue }
            if condition(value) { return value }
        }
        return nil
    }
}

/// Reads a ``WebSocketTestClient`` on its own thread and keeps every text frame, so that a client that the
/// test does not look at for a while is still a fast reader to navd.
final class WebSocketRecorder: @unchecked Sendable {
    private let client: WebSocketTestClient
    private let lock = NSLock()
    private var texts: [String] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(_ client: WebSocketTestClient) {
        self.client = client
        Thread { [self] in
            while !lock.withLock({ stopped }) {
                guard let frame = client.nextFrame(timeout: 0.2) else { continue }
                if frame.opcode == 1 { lock.withLock { texts.append(String(decoding: frame.payload, as: UTF8.self)) } }
            }
            done.signal()
        }.start()
    }

    /// Stops reading; the text frames received until then.
    func stop() -> [String] {
        lock.withLock { stopped = true }
        done.wait()
        return lock.withLock { texts }
    }
}
