import Dispatch
import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import Synchronization
import SystemSupport

/// What can go wrong talking to navd, each a sentence a person can act on.
public enum NavdClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens at the socket path (navd is not running there).
    case notRunning(path: String)
    /// The socket's mode or group keeps this user out.
    case accessDenied(path: String)
    /// Another connection error.
    case cannotConnect(path: String, reason: String)
    /// navd answered the command with an error.
    case refused(ProtocolError)
    /// The connection closed (navd stopped, or dropped this client); `reason` from its `bye` when it said one.
    case closed(reason: String?)
    /// No answer in time.
    case timedOut(seconds: Double)
    /// A line navd sent does not decode (a different protocol version, a bug).
    case malformed(String)

    public var description: String {
        switch self {
        case .notRunning(let path): "navd is not running at \(path) (start it, or give --socket or NAVD_SOCKET)"
        case .accessDenied(let path): "cannot connect to navd at \(path): Permission denied (this user is not in the socket's group: socket.group, usually navd)"
        case .cannotConnect(let path, let reason): "cannot connect to navd at \(path): \(reason)"
        case .refused(let error): "navd refused: \(error.message) (\(error.code.rawValue))"
        case .closed(let reason): "navd closed the connection" + (reason.map { ": \($0)" } ?? "")
        case .timedOut(let seconds): "navd did not answer within \(CheckedNumber.clampedWhole(seconds, rounding: .towardZero)) s"
        case .malformed(let detail): "navd sent a line this client does not understand: \(detail)"
        }
    }
}

/// One connection to navd's socket (docs/protocol.md): its `hello`, typed commands with typed replies, and the
/// events it publishes as an `AsyncSequence`. A reader thread decodes every line; replies go to the command that
/// asked (matched by `id`), events to ``events`` in navd's order.
public final class NavdConnection: Sendable {
    /// The first line navd sent: protocol version, control rights, the last event's `seq` and the snapshot.
    public let hello: Hello
    /// Events in navd's order; the sequence ends when the connection closes.
    public let events: AsyncStream<EventMessage>
    public let path: String

    private let socket: LineSocket
    private let eventContinuation: AsyncStream<EventMessage>.Continuation
    private struct Pending {
        var waiting: [String: CheckedContinuation<Result<ServerLine, NavdClientError>, Never>] = [:]
        var nextId = 1
        var closed: NavdClientError?
    }
    private let pending = Mutex(Pending())
    private let bye = Mutex<String?>(nil)

    /// What navd's `bye` said, once the connection closed with one (navd stopping).
    public var byeReason: String? { bye.withLock { $0 } }

    /// Connects and waits (up to `timeout` seconds) for `hello`.
    public static func connect(path: String, timeout: Double = 5) async throws(NavdClientError) -> NavdConnection {
        let socket = try LineSocket(path: path)
        guard let first = socket.readLine(timeout: timeout) else {
            socket.close()
            throw .timedOut(seconds: timeout)
        }
        let line: ServerLine
        do {
            line = try ServerLine(line: first)
        } catch {
            socket.close()
            throw .malformed(error.description)
        }
        switch line {
        case .hello(let hello):
            return NavdConnection(path: path, socket: socket, hello: hello)
        case .error(let error):
            socket.close()
            throw .refused(error.error)
        default:
            socket.close()
            throw .malformed("the first line is not hello")
        }
    }

    private init(path: String, socket: LineSocket, hello: Hello) {
        self.path = path
        self.socket = socket
        self.hello = hello
        (events, eventContinuation) = AsyncStream.makeStream(of: EventMessage.self, bufferingPolicy: .unbounded)
        DetachedThread.start(name: "navd client") { [self] in readUntilClosed() }
    }

    deinit { socket.close() }

    /// Sends `command` and waits (up to `timeout` seconds) for its reply; navd's error is ``NavdClientError/refused(_:)``.
    public func send<Command: NavigationCommand>(_ command: Command, timeout: Double = 10) async throws(NavdClientError) -> Command.Result {
        let answer = await request(timeout: timeout) { id in command.line(id: .string(id)) }
        switch answer {
        case .failure(let error):
            throw error
        case .success(.error(let line)):
            throw .refused(line.error)
        case .success(.reply(let reply)):
            do {
                return try JSONValueDecoder().decode(Command.Result.self, from: reply.result)
            } catch {
                throw .malformed("\(Command.type) reply: \(error)")
            }
        case .success:
            throw .malformed("\(Command.type): neither a reply nor an error")
        }
    }

    /// Closes the connection; ``events`` ends and waiting commands fail with ``NavdClientError/closed(reason:)``.
    public func close() {
        socket.close()
    }

    /// Sends the line `line(id)` makes for a fresh id and waits for the answer carrying that id.
    private func request(timeout: Double, line: @Sendable (String) -> [UInt8]) async -> Result<ServerLine, NavdClientError> {
        await withCheckedContinuation { continuation in
            let id: String? = pending.withLock { state in
                if let closed = state.closed {
                    continuation.resume(returning: .failure(closed))
                    return nil
                }
                defer { state.nextId += 1 }
                let id = "c\(state.nextId)"
                state.waiting[id] = continuation
                return id
            }
            guard let id else { return }
            if !socket.write(line(id)) { finish(id, with: .failure(.closed(reason: nil))) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                finish(id, with: .failure(.timedOut(seconds: timeout)))
            }
        }
    }

    private func finish(_ id: String, with result: Result<ServerLine, NavdClientError>) {
        pending.withLock { $0.waiting.removeValue(forKey: id) }?.resume(returning: result)
    }

    private func readUntilClosed() {
        var byeReason: String?
        while let text = socket.readLine(timeout: nil) {
            let line: ServerLine
            do {
                line = try ServerLine(line: text)
            } catch {
                continue  // A line from a newer navd this client does not know: skipped, as the protocol asks.
            }
            switch line {
            case .event(let event):
                eventContinuation.yield(event)
            case .reply(let reply):
                if let id = reply.id?.stringValue { finish(id, with: .success(line)) }
            case .error(let error):
                if let id = error.id?.stringValue { finish(id, with: .success(line)) }
            case .bye(let reason):
                byeReason = reason
                bye.withLock { $0 = reason }
            case .hello:
                break
            }
        }
        let closed = NavdClientError.closed(reason: byeReason)
        let waiting = pending.withLock { state in
            state.closed = closed
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(returning: .failure(closed)) }
        eventContinuation.finish()
        socket.close()
    }
}
