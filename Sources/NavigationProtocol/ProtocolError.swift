/// An error the server sends to a client: a stable machine-readable code and a sentence for people.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
        /// The line is not JSON.
        case invalidJSON = "invalid_json"
        /// The line is JSON but not an object with a string `type`.
        case invalidMessage = "invalid_message"
        /// No command of this `type`.
        case unknownCommand = "unknown_command"
        /// A required field is absent.
        case missingField = "missing_field"
        /// A field has the wrong type or an impossible value.
        case invalidField = "invalid_field"
        /// The line exceeds the server's line limit; the connection is closed.
        case lineTooLong = "line_too_long"
        /// The peer may read but not control navigation.
        case notAuthorized = "not_authorized"
        /// The command needs an active trip.
        case noActiveTrip = "no_active_trip"
        /// No calculation session with that id is running.
        case noSuchCalculation = "no_such_calculation"
        /// The client did not read fast enough and its buffer overflowed; the connection is closed.
        case slowClient = "slow_client"
        /// navd already serves `socket.max_clients` clients; the connection is closed.
        case tooManyClients = "too_many_clients"
        /// `choose_route` with no open offer (none was made, or its time ran out).
        case noChoice = "no_choice"
        /// The flight recorder cannot start (its directory cannot be created or written).
        case recordingFailed = "recording_failed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
