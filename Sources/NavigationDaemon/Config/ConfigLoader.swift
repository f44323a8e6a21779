import FoundationEssentials
import Glibc
import NavigationCore

/// Reads navd's TOML configuration (``TOMLParser``) into ``NavdConfig``. Unknown keys, wrong
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
        let root: JSONValue
        do {
            root = try TOMLParser.parse(text)
        } catch {
            throw ConfigErrors(errors: [ConfigError(file: file, key: nil, message: "TOML syntax error at \(error)")])
        }
        var reader = ConfigReader(file: file, root: root)
        let config = reader.readConfig()
        if !reader.errors.isEmpty { throw ConfigErrors(errors: reader.errors) }
        return config
    }
}
