import FoundationEssentials
import Glibc
import LocationSources
import NavigationCore
import NavigationProtocol

/// One input of the navigation loop as a value: what reaches the ``TripCoordinator``, in the loop's order. navd
/// runs each through ``TripCoordinator/step(_:now:command:client:)``; the flight recorder writes them, and
/// `navctl replay` feeds them back through the same function.
public enum LoopInput: Sendable {
    case reading(GNSSReading)
    case sourceStatus(GNSSSourceStatus)
    /// A client connected; it is owed its hello.
    case connected(client: Int, control: Bool)
    /// A command line (parsed JSON object with its `type` and `id`) from `client`.
    case command(line: [String: JSONValue], client: Int, control: Bool)
    /// A line the socket refused before the loop (unparsable, not authorized); the client is owed the error.
    case refused(ProtocolError, id: JSONValue?, client: Int)
    case attemptFailed(session: Int, RouteCalculationRunner.FailedAttempt)
    case finished(session: Int, RouteCalculationRunner.Outcome)
    /// The loop's once-a-second timer (dead reckoning, first-fix timeouts, periodic journal saves).
    case tick
    /// SIGHUP: new settings, from the configuration text `configText` (kept for the recorder, secrets redacted).
    case reload(TripCoordinator.Settings, configText: String)
}

extension TripCoordinator {
    /// Applies one loop input. Returns the message owed to the client that caused it (its hello, the reply or error
    /// to its command), nil for other inputs. A command arrives decoded (`command`) with the connection it came
    /// from (`client`), which its handler may read (`status`) or change (`subscribe`).
    /// `seq`: the last event's sequence number (a hello carries it).
    public mutating func step(
        _ input: LoopInput, now: Date, seq: UInt64 = 0, command: PreparedCommand? = nil, client: ClientConnection? = nil,
        recording: RecordingControl? = nil, answerLater: (@Sendable (Result<[String: JSONValue], ProtocolError>) -> Void)? = nil
    ) -> ServerMessage? {
        switch input {
        case .reading(let reading):
            handle(reading, now: now)
        case .sourceStatus(let status):
            handle(status)
        case .connected(_, let control):
            return .hello(navdVersion: NavigationService.navdVersion, control: control, seq: seq, state: snapshot(now: now))
        case .command(let line, _, _):
            guard let command, let client else { return nil }
            do throws(ProtocolError) {
                let context = CommandContext(now: now, client: client, recording: recording, answerLater: answerLater)
                // nil: the handler answers later, off the loop (`answerLater`).
                return try command.run(&self, context).map { .reply(id: line["id"], command: command.type, result: $0) }
            } catch {
                return .error(id: line["id"], error)
            }
        case .refused(let error, let id, _):
            return .error(id: id, error)
        case .attemptFailed(let session, let failure):
            calculationAttemptFailed(session: session, failure)
        case .finished(let session, let outcome):
            calculationFinished(session: session, outcome, now: now)
        case .tick:
            tick(now: now)
        case .reload(let settings, _):
            update(settings: settings)
        }
        return nil
    }
}

/// Event lines as navd publishes them: one sequence number for all events, then the line. The ``EventHub`` and
/// `navctl replay` both number and encode through this.
public struct EventSequencer: Sendable {
    public private(set) var seq: UInt64

    public init(seq: UInt64 = 0) { self.seq = seq }

    /// The next event's sequence number.
    public mutating func next() -> UInt64 {
        seq += 1
        return seq
    }

    public mutating func line(_ event: consuming NavigationEvent, routeId: String?) -> [UInt8] {
        EventMessage(seq: next(), routeId: routeId, event: event).line
    }
}

/// What the loop decided about the trip journal, as a recording's output line (a replay produces the same).
public enum JournalDecision: Sendable {
    case save(TripJournalRecord)
    case delete

    public var line: [UInt8] {
        switch self {
        case .save(let record):
            JSONLine.serialize(
                [
                    "rec": "journal", "op": "save", "routeId": .string(record.routeId), "distanceAlong": .number(record.distanceAlong),
                    "stepIndex": .number(Double(record.stepIndex)), "savedAt": .number(record.savedAt.timeIntervalSinceReferenceDate),
                ], leading: ["rec", "op"])
        case .delete:
            JSONLine.serialize(["rec": "journal", "op": "delete"], leading: ["rec", "op"])
        }
    }
}
