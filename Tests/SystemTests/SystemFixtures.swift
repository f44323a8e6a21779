import Foundation
import Testing

/// What the system tests need from scripts/test: the Debian roots (`scripts/roots`), navd's Debian packages
/// (`scripts/package`), and the fixtures next to this file. A missing one fails the test loudly.
enum SystemFixtures {
    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    private static func required(_ name: String, _ hint: String) throws -> String {
        guard let value = environment[name], !value.isEmpty else {
            Issue.record("\(name) is not set: run the suite with scripts/test (\(hint))")
            throw CancellationError()
        }
        return value
    }

    /// The cached Debian root `name` (bookworm, trixie).
    static func root(_ name: String) throws -> String {
        let directory = try required("NAVD_ROOTS", "it builds the Debian roots with scripts/roots") + "/\(name)"
        guard FileManager.default.fileExists(atPath: "\(directory)/.built") else {
            Issue.record("the Debian \(name) root is not built in \(directory): run scripts/roots \(name)")
            throw CancellationError()
        }
        return directory
    }

    /// The directory holding the packages, bound read-only at /dist inside containers.
    static var distDirectory: String { environment["NAVD_DIST"] ?? "/nonexistent-navd-dist" }

    /// The package built from this tree (Debian revision 1), as a path inside the container.
    static func package() throws -> String {
        try insideDist(required("NAVD_DEB", "it builds the package with scripts/package"))
    }

    /// The same navd rebuilt with the next Debian revision: the upgrade.
    static func upgradePackage() throws -> String {
        try insideDist(required("NAVD_DEB_UPGRADE", "it builds the rebuilt package with NAVD_DEB_REVISION=2 scripts/package"))
    }

    private static func insideDist(_ hostPath: String) throws -> String {
        guard FileManager.default.fileExists(atPath: hostPath) else {
            Issue.record("\(hostPath) does not exist: run scripts/package")
            throw CancellationError()
        }
        return "/dist/" + (hostPath as NSString).lastPathComponent
    }

    /// The version of `package()` (the file name's middle part).
    static func packageVersion() throws -> String {
        let name = ((try required("NAVD_DEB", "scripts/package")) as NSString).lastPathComponent
        return String(name.split(separator: "_")[1])
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// The repository's Sources directory (the C shim is compiled from there in another root).
    static let sources = fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    // Containers are recorded in the run directory so that scripts/test can stop any a crashed test left.
    private static var containerDirectory: String? { environment["NAVD_RUN_DIR"].map { "\($0)/containers" } }

    static func recordContainer(pid: pid_t) {
        guard let directory = containerDirectory else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: "\(directory)/\(pid)", contents: nil)
    }

    static func forgetContainer(pid: pid_t) {
        guard let directory = containerDirectory else { return }
        try? FileManager.default.removeItem(atPath: "\(directory)/\(pid)")
    }
}
