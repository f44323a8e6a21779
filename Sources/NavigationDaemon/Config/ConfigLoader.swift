import Foundation
import NavigationCore
import TOMLKit

/// Reads navd's TOML configuration (TOMLKit, which wraps toml++) into ``NavdConfig``. Unknown keys, wrong
/// types and impossible values are all reported, each with its file and key.
public enum ConfigLoader {
    public static func load(path: String) throws(ConfigErrors) -> NavdConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions?)" : "does not exist"
            throw ConfigErrors(errors: [ConfigError(file: path, key: nil, message: "the configuration file \(reason)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigErrors(errors: [ConfigError(file: path, key: nil, message: "not UTF-8 text")])
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws(ConfigErrors) -> NavdConfig {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigErrors(errors: [
                ConfigError(
                    file: file, key: nil,
                    message: "TOML syntax error at line \(error.source.begin.line), column \(error.source.begin.column): \(error.description)")
            ])
        } catch {
            throw ConfigErrors(errors: [ConfigError(file: file, key: nil, message: "TOML syntax error: \(error)")])
        }
        var reader = ConfigReader(file: file, root: json(table))
        let config = reader.readConfig()
        if !reader.errors.isEmpty { throw ConfigErrors(errors: reader.errors) }
        return config
    }

    /// TOML as JSON values: tables become objects, dates become their TOML text.
    static func json(_ value: any TOMLValueConvertible) -> JSONValue {
        switch value.type {
        case .table:
            guard let table = value.table else { return .null }
            var object: [String: JSONValue] = [:]
            for key in table.keys { if let item = table[key] { object[key] = json(item) } }
            return .object(object)
        case .array:
            guard let array = value.array else { return .null }
            return .array(array.map { json($0) })
        case .bool: return value.bool.map(JSONValue.bool) ?? .null
        case .int: return value.int.map { .number(Double($0)) } ?? .null
        case .double: return value.double.map(JSONValue.number) ?? .null
        case .string: return value.string.map(JSONValue.string) ?? .null
        default: return .string(value.tomlValue.debugDescription)
        }
    }
}
