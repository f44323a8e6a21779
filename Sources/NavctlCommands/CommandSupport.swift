import ArgumentParser
import Foundation
import NavigationCore
import NavigationProtocol

/// An error navctl reports as one line on stderr.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command body; any error becomes one line on stderr and exit status 1 (no stack trace).
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        FileHandle.standardError.write(Data("navctl: error: \(error)\n".utf8))
        throw ExitCode.failure
    }
}

/// Reads a file, or standard input for "-".
func readInput(_ path: String) throws -> Data {
    if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
    guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("cannot read \(path): no such file") }
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CommandFailure("cannot read \(path): \(error.localizedDescription)")
    }
}

func writeLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// JSON as navctl writes it: sorted keys (same input, same bytes), slashes unescaped.
func makeJSONEncoder(pretty: Bool) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}

extension GeographicCoordinate: ExpressibleByArgument {
    /// Parses `LAT,LON` in decimal degrees.
    public init?(argument: String) {
        let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        self.init(latitude: lat, longitude: lon)
        guard isValid else { return nil }
    }
}

/// `KEY=VALUE` engine options; VALUE is read as JSON when it parses (numbers, booleans, objects), else as text.
struct EngineOption: ExpressibleByArgument {
    var key: String
    var value: JSONValue

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else { return nil }
        key = String(argument[..<equals])
        let raw = String(argument[argument.index(after: equals)...])
        value = (try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8))) ?? .string(raw)
    }
}

/// `--socket` (default: `NAVD_SOCKET`, else /run/navd/navd.sock) and a command's request and reply.
struct SocketOptions: ParsableArguments {
    @Option(help: "navd's socket (default: $NAVD_SOCKET, else /run/navd/navd.sock).")
    var socket: String = ProcessInfo.processInfo.environment["NAVD_SOCKET"] ?? "/run/navd/navd.sock"

    /// Sends one command (an `id` is added) and returns navd's reply; navd's error is a CommandFailure.
    func request(_ command: [String: JSONValue], timeout: Double = 10) throws -> [String: JSONValue] {
        try request(command, on: try LineConnection(path: socket), timeout: timeout)
    }

    /// The same on an open connection (whose later events the caller may go on reading).
    func request(_ command: [String: JSONValue], on connection: LineConnection, timeout: Double = 10) throws -> [String: JSONValue] {
        var command = command
        command["id"] = "navctl"
        try connection.send(String(decoding: JSONLine.serialize(command).dropLast(), as: UTF8.self))
        let deadline = Date().addingTimeInterval(timeout)
        while let line = try connection.readLine(deadline: deadline) {
            guard let message = (try? JSONParser.parse(Array(line.utf8)))?.objectValue, message["id"]?.stringValue == "navctl" else { continue }
            if message["type"]?.stringValue == "error" {
                throw CommandFailure("navd refused: \(message["message"]?.stringValue ?? "") (\(message["code"]?.stringValue ?? "error"))")
            }
            return message
        }
        throw CommandFailure("navd did not answer within \(Int(timeout)) s")
    }
}
