import NavigationCore

/// `hello`: the first line on every connection.
public struct Hello: Codable, Hashable, Sendable {
    /// ``navigationProtocolVersion`` of the server.
    public var `protocol`: Int
    /// navd's version.
    public var navd: String
    /// Whether this peer may send control commands.
    public var control: Bool
    /// The last event's sequence number: the first event this client gets is higher.
    public var seq: UInt64
    /// The same snapshot `status` returns.
    public var state: Snapshot
}

/// `error`: a command (or a line) navd refused.
public struct ErrorLine: Codable, Hashable, Sendable {
    public var id: JSONValue?
    public var code: ProtocolError.Code
    public var message: String

    public var error: ProtocolError { ProtocolError(code, message) }
}

/// `reply`: a command's result; decode `result` with the command's result type (``ClientCommand``).
public struct ReplyLine: Hashable, Sendable {
    public var id: JSONValue?
    public var command: String
    public var result: JSONValue
}

/// Any line navd sends, decoded: what a client reads.
public enum ServerLine: Hashable, Sendable {
    case hello(Hello)
    case reply(ReplyLine)
    case error(ErrorLine)
    /// The last line before navd closes the connection on shutdown.
    case bye(reason: String)
    case event(EventMessage)

    public struct DecodeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Decodes one line (without or with its newline).
    public init(line: some Collection<UInt8>) throws(DecodeError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw DecodeError(description: "not JSON: \(error)")
        }
        guard let object = value.objectValue, let type = object["type"]?.stringValue else {
            throw DecodeError(description: "not a message: no type")
        }
        let decoder = JSONValueDecoder()
        do {
            switch type {
            case "hello":
                self = .hello(try decoder.decode(Hello.self, from: value))
            case "reply":
                self = .reply(ReplyLine(id: object["id"].flatMap { $0 == .null ? nil : $0 }, command: object["command"]?.stringValue ?? "", result: object["result"] ?? .object([:])))
            case "error":
                self = .error(try decoder.decode(ErrorLine.self, from: value))
            case "bye":
                self = .bye(reason: object["reason"]?.stringValue ?? "")
            default:
                guard let eventType = EventType(rawValue: type) else { throw DecodeError(description: "unknown message type '\(type)'") }
                guard let seq = CheckedNumber.whole(object["seq"], in: PhysicalRange.identifier) else {
                    throw DecodeError(description: "\(type) without a whole-number seq from 0 to 2^53")
                }
                var fields = object
                for key in ["type", "seq", "routeId"] { fields[key] = nil }
                self = .event(EventMessage(seq: UInt64(seq), routeId: object["routeId"]?.stringValue, event: try NavigationEvent(type: eventType, fields: fields)))
            }
        } catch let error as DecodeError {
            throw error
        } catch {
            throw DecodeError(description: "\(type): \(error)")
        }
    }
}
