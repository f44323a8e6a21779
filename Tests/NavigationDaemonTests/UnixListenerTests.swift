import Glibc
import Logging
import TestSupport
import Testing

@testable import NavigationDaemon

/// navd's own accept on the Unix socket: real sockets in a temporary directory.
@Suite("Unix socket listener")
struct UnixListenerTests {
    static func directory() -> String {
        var template = Array("/tmp/navd-listener-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        return path
    }

    static func connect(to path: String) -> CInt {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = withUnixSocketAddress(path) { Glibc.connect(descriptor, $0, $1) }
        #expect(result == 0)
        return descriptor
    }

    /// A connection comes out with its peer's credentials (this process) as a non-blocking descriptor, and
    /// stop() wakes the accepting thread: the stream ends.
    @Test func acceptsWithCredentialsAndStops() async throws {
        let directory = Self.directory()
        let path = "\(directory)/navd.sock"
        defer { unlink(path); rmdir(directory) }
        let listener = try UnixListener(path: path, backlog: 4, logger: Logger(label: "test"))
        let connections = listener.connections()
        let client = Self.connect(to: path)
        defer { close(client) }
        var iterator = connections.makeAsyncIterator()
        let accepted = try #require(await iterator.next())
        defer { close(accepted.descriptor) }
        #expect(accepted.peer == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
        #expect(fcntl(accepted.descriptor, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(accepted.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        listener.stop()
        #expect(await iterator.next() == nil)
    }

    /// A socket file left by a killed navd is replaced; a file of another kind is not touched.
    @Test func replacesAStaleSocketButNoOtherFile() throws {
        let directory = Self.directory()
        let path = "\(directory)/navd.sock"
        defer { unlink(path); rmdir(directory) }
        let stale = try UnixListener(path: path, backlog: 4, logger: Logger(label: "test"))
        _ = stale.connections()
        stale.stop()
        let replacing = try UnixListener(path: path, backlog: 4, logger: Logger(label: "test"))
        _ = replacing.connections()
        replacing.stop()
        unlink(path)
        let file = open(path, O_CREAT | O_WRONLY, 0o600)
        close(file)
        #expect(throws: SocketServerError.self) { try UnixListener(path: path, backlog: 4, logger: Logger(label: "test")) }
        var status = stat()
        #expect(stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG)
    }

    @Test func refusesAPathTooLongForAUnixSocket() {
        let path = "/tmp/" + String(repeating: "n", count: 120)
        #expect(throws: SocketServerError.self) { try UnixListener(path: path, backlog: 4, logger: Logger(label: "test")) }
    }
}
