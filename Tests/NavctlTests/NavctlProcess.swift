import Foundation
import Testing
import TestSupport

/// Runs the navctl binary built next to this test bundle.
struct NavctlProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func binary() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["NAVCTL"] { return URL(fileURLWithPath: override) }
        // The test bundle and the executables are built into the same products directory.
        let products = Bundle.main.bundleURL.pathExtension == "xctest"
            ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
        for candidate in [products.appendingPathComponent("navctl"), repoRoot.appendingPathComponent(".build/debug/navctl")]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        Issue.record("navctl binary not found next to \(products.path); build it with `swift build`")
        throw CancellationError()
    }

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> Output {
        let output = try ToolRun.run(try binary(), arguments, directory: repoRoot, stdin: stdin)
        return Output(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }

    static func fixture(_ name: String) -> String {
        repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/\(name).json").path
    }

    static func engineURL(_ name: String) throws -> String {
        let variable = "NAVD_\(name.uppercased())_URL"
        return try #require(
            ProcessInfo.processInfo.environment[variable],
            "\(variable) is not set: start the engines with `eval \"$(scripts/engines start)\"` or run scripts/test")
    }
}
