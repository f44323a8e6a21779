#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output, error and input as bytes, written whole (a short write is continued, an interrupted one
/// retried). What Foundation's `FileHandle.standardOutput` and friends did, without linking Foundation.
public enum StandardStream {
    case output, error

    private var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Writes `text` (a closed pipe or terminal loses it: there is nobody left to tell).
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: $0) }
    }

    public func write(bytes: UnsafeBufferPointer<UInt8>) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            left -= written
            next += written
        }
    }

    /// Everything on standard input until its end.
    public static func readInput() -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count > 0 {
                result.append(contentsOf: buffer[0..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return result
            }
        }
    }
}
