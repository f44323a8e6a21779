import Foundation

/// Runs a program to its end and collects what it printed (for short-lived tools such as navctl).
public enum ToolRun {
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, stdin: Data? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let errReader = Thread.detachedRead(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = errReader.wait()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension Thread {
    /// Reads `handle` to its end on another thread.
    final class PendingRead: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()
        func finish(_ data: Data) {
            self.data = data
            done.signal()
        }
        func wait() -> Data {
            done.wait()
            return data
        }
    }

    static func detachedRead(_ handle: FileHandle) -> PendingRead {
        let pending = PendingRead()
        Thread.detachNewThread { pending.finish(handle.readDataToEndOfFile()) }
        return pending
    }
}
