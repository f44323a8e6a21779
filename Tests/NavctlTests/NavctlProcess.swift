import Foundation
import Testing

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
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        process.currentDirectoryURL = repoRoot
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
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
