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
        if let problem = tableHeaderProblem(text) {
            throw ConfigErrors(errors: [ConfigError(file: file, key: nil, message: "TOML syntax error at \(problem)")])
        }
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

    /// toml++ 3 asserts (aborts the process) on a table header whose first key starts with anything but a bare
    /// key character or a quote (`[ {`, `[\u{CD}gnss]`; found by fuzzing). Such a header is a syntax error: say
    /// so before toml++ sees it. Only lines that begin a statement count (not inside a multi-line array, inline
    /// table or string).
    static func tableHeaderProblem(_ text: String) -> String? {
        var depth = 0  // open [ and { of values spanning lines
        var inMultilineString: String?  // the closing delimiter
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let scalars = Array(line.unicodeScalars)
            var index = 0
            if depth == 0, inMultilineString == nil {
                while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
                if index < scalars.count, scalars[index] == "[" {
                    var key = index + 1
                    if key < scalars.count, scalars[key] == "[" { key += 1 }
                    while key < scalars.count, scalars[key] == " " || scalars[key] == "\t" { key += 1 }
                    guard key < scalars.count else { return "line \(number + 1): a table header without a name" }
                    let first = scalars[key]
                    let bare = first.isASCII && (first.properties.isAlphabetic || ("0"..."9").contains(first) || first == "_" || first == "-")
                    if !bare && first != "\"" && first != "'" {
                        return "line \(number + 1): a table name must start with a letter, digit, '_', '-' or a quote, not '\(first.escaped(asASCII: true))'"
                    }
                    continue  // a header line holds nothing else that spans lines
                }
            }
            // Track what spans lines: brackets of values and multi-line strings; skip strings and comments.
            while index < scalars.count {
                if let closing = inMultilineString {
                    if String(String.UnicodeScalarView(scalars[index...].prefix(3))) == closing {
                        inMultilineString = nil
                        index += 3
                    } else {
                        index += 1
                    }
                    continue
                }
                let character = scalars[index]
                let triple = String(String.UnicodeScalarView(scalars[index...].prefix(3)))
                if triple == "\"\"\"" || triple == "'''" {
                    inMultilineString = triple
                    index += 3
                } else if character == "\"" || character == "'" {
                    index += 1  // a one-line string: to its closing quote
                    while index < scalars.count, scalars[index] != character {
                        index += character == "\"" && scalars[index] == "\\" ? 2 : 1
                    }
                    index += 1
                } else if character == "#" {
                    break
                } else {
                    if character == "[" || character == "{" { depth += 1 }
                    if character == "]" || character == "}" { depth = max(0, depth - 1) }
                    index += 1
                }
            }
        }
        return nil
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
