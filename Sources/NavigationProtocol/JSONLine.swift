import Foundation
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
        var out: [UInt8] = []
        out.reserveCapacity(256)
        writeObject(object, into: &out, leading: leading)
        out.append(UInt8(ascii: "\n"))
        return out
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

    private static func writeObject(_ object: [String: JSONValue], into out: inout [UInt8], leading: [String]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        let rest = object.keys.filter { !leading.contains($0) }.sorted()
        for key in leading.filter({ object[$0] != nil }) + rest {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            write(object[key]!, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let n):
            if !n.isFinite {
                out += Array("null".utf8)
            } else if n == n.rounded(), abs(n) < 1e15 {
                out += Array(String(Int64(n)).utf8)
            } else {
                out += Array(String(n).utf8)
            }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object): writeObject(object, into: &out, leading: [])
        }
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
