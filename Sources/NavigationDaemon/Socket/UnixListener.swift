import CNavdSystem
import Glibc
import Logging
import Synchronization
import SystemSupport

/// The Unix socket's listening end. navd accepts its clients itself, on a thread of its own (`navd-accept`,
/// asleep in `accept` between connections), rather than through NIO's server channel: so each client's descriptor
/// is navd's to know, and its writer can `send` lines to it without NIO's pipeline (``ChannelWriter``). NIO takes
/// each accepted socket over for everything else (`ClientBootstrap.withConnectedSocket`).
final class UnixListener: Sendable {
    /// A connection accepted: its socket (non-blocking, closed on exec) and who is at the other end.
    struct Accepted: Sendable {
        var descriptor: CInt
        var peer: PeerCredentials
    }

    /// After the system refused a connection for want of descriptors or memory, how long to wait before trying
    /// again (the connection waits in the backlog meanwhile), in microseconds.
    static let pauseAfterShortage: useconds_t = 100_000

    let path: String
    private let descriptor: CInt
    /// Set (under the lock) when the accepting thread closed the listening socket: ``stop()`` must not shut
    /// down a descriptor number the process may since have reused.
    private let closed = Mutex(false)
    private let logger: Logger

    /// Binds a stream socket to `path` (replacing a file left there: the caller has checked that no navd serves
    /// it) and listens with room for `backlog` connections not yet accepted.
    init(path: String, backlog: Int32, logger: Logger) throws(SocketServerError) {
        guard path.utf8.count < Self.longestPath else {
            throw SocketServerError("socket path \(path) is \(path.utf8.count) bytes; a Unix socket path has at most \(Self.longestPath - 1)")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketServerError("cannot create a Unix socket: \(Self.lastError())") }
        var status = stat()
        if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
        let bound = Self.withAddress(path) { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let reason = Self.lastError()
            close(descriptor)
            throw SocketServerError("cannot bind \(path): \(reason)")
        }
        guard listen(descriptor, backlog) == 0 else {
            let reason = Self.lastError()
            close(descriptor)
            unlink(path)
            throw SocketServerError("cannot listen on \(path): \(reason)")
        }
        self.path = path
        self.descriptor = descriptor
        self.logger = logger
    }

    /// Starts accepting: every connection from now on, until ``stop()`` or until the stream is dropped. The
    /// listening socket is closed when the accepting thread ends.
    func connections() -> AsyncStream<Accepted> {
        let (stream, continuation) = AsyncStream.makeStream(of: Accepted.self)
        continuation.onTermination = { [self] _ in stop() }
        DetachedThread.start(name: "navd-accept") { [self] in
            acceptUntilStopped(into: continuation)
            continuation.finish()
        }
        return stream
    }

    /// Stops accepting: the thread's `accept` returns (a listening socket shut down fails it with EINVAL) and
    /// the stream ends. Connections not yet accepted are refused by the kernel once the socket closes.
    func stop() {
        closed.withLock { closed in
            if !closed { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptUntilStopped(into continuation: AsyncStream<Accepted>.Continuation) {
        defer {
            closed.withLock { closed in
                close(descriptor)
                closed = true
            }
        }
        while true {
            let client = navd_accept_nonblocking(descriptor)
            if client < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors (more clients than LimitNOFILE allows) or memory: the connection stays in
                    // the backlog until a client leaves; try again shortly rather than spin.
                    let reason = Self.lastError()
                    logger.warning("cannot accept a client", metadata: ["socket": "\(path)", "error": "\(reason)"])
                    usleep(Self.pauseAfterShortage)
                    continue
                default:
                    // Shut down by stop() (EINVAL), or the socket is unusable: no more connections.
                    return
                }
            }
            guard let peer = Self.credentials(of: client) else {
                let reason = Self.lastError()
                logger.warning("a client's credentials could not be read; closing it", metadata: ["error": "\(reason)"])
                close(client)
                continue
            }
            if case .terminated = continuation.yield(Accepted(descriptor: client, peer: peer)) {
                close(client)
                return
            }
        }
    }

    /// Bytes in a Unix socket address's path, its closing zero included (108 on Linux).
    static let longestPath = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Calls `body` with the address of the Unix socket at `path` (bind, connect); nil when the path is too long
    /// for one.
    static func withAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        let bytes = Array(path.utf8)
        guard bytes.count < longestPath else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// The peer's process, user and group (`SO_PEERCRED`), which decide its rights.
    private static func credentials(of descriptor: CInt) -> PeerCredentials? {
        var credentials = navd_ucred()
        var length = socklen_t(MemoryLayout<navd_ucred>.size)
        guard getsockopt(descriptor, SOL_SOCKET, navd_so_peercred, &credentials, &length) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
