import FoundationEssentials
import Glibc
import NavigationCore

/// Writing and reading the protocol's lines: one JSON object per line, `type` first.
public enum JSONLine {
    /// One line (with its trailing newline) for a message object. Keys `type`, `id`, `seq`, `routeId` come first,
    /// the rest sorted, so lines are stable and easy to read; numbers that are whole print without a fraction.
    public static func serialize(_ object: [String: JSONValue]) -> [UInt8] {
        serialize(object, leading: ["type", "id", "seq", "routeId"])
    }

    /// One line with the keys `leading` first (those present), the rest sorted.
    public static func serialize(_ object: [String: JSONValue], leading: [String]) -> [UInt8] {
        var out = JSONOutput(capacity: 256)
        JSONText.appendObject(object, leading: leading, into: &out)
        out.append(UInt8(ascii: "\n"))
        return out.bytes
    }

    /// Any Encodable as a JSON value (through JSONEncoder, so custom encodings are honoured).
    public static func value<T: Encodable>(_ encodable: T) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Timestamp.format(date))
        }
        guard let data = try? encoder.encode(encodable), let value = try? JSONParser.parse(data) else { return .null }
        return value
    }

    /// Parses one received line into its id, type and fields. Throws a ``ProtocolError`` that says what is wrong.
    public static func parseCommand(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> (id: JSONValue?, type: String, fields: CommandFields) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ProtocolError(.invalidJSON, "the line is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ProtocolError(.invalidMessage, "a command must be a JSON object") }
        let id = object["id"]
        if let id, id.stringValue == nil, id.doubleValue == nil {
            throw ProtocolError(.invalidField, "'id' must be a string or a number")
        }
        guard let typeValue = object["type"] else { throw ProtocolError(.missingField, "'type' is required") }
        guard let type = typeValue.stringValue else { throw ProtocolError(.invalidField, "'type' must be a string") }
        return (id, type, CommandFields(object))
    }
}
