import Foundation
import Testing

/// Route responses recorded from real engines (see Fixtures/README.md).
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
            "fixture \(name).json is missing from Tests/RouteAdaptersTests/Fixtures")
        return try Data(contentsOf: url)
    }

    static func json(_ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data(name)) as? [String: Any])
    }

    /// Re-serializes a modified fixture.
    static func encode(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }
}
