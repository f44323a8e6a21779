import ArgumentParser
import FoundationEssentials
import Glibc
import NavdClient
import NavigationCore
import NavigationProtocol
import SystemSupport

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
        StandardStream.error.write("navctl: error: \(error)\n")
        throw ExitCode.failure
    }
}

/// Reads a file, or standard input for "-".
func readInput(_ path: String) throws -> Data {
    if path == "-" { return Data(StandardStream.readInput()) }
    guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("cannot read \(path): no such file") }
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CommandFailure("cannot read \(path): \(describeFileError(error))")
    }
}

func writeLine(_ text: String) {
    StandardStream.output.write((text + "\n"))
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
        let parts = argument.split(separator: ",").map { $0.trimmingWhitespace }
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

/// `--socket` (default: `NAVD_SOCKET`, else /run/navd/navd.sock).
struct SocketOptions: ParsableArguments {
    @Option(help: "navd's socket (default: $NAVD_SOCKET, else /run/navd/navd.sock).")
    var socket: String = ProcessInfo.processInfo.environment["NAVD_SOCKET"] ?? "/run/navd/navd.sock"

    /// A connection to navd; its errors are one line for a person.
    func connect() async throws -> NavdConnection {
        do throws(NavdClientError) {
            return try await NavdConnection.connect(path: socket)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Connects, sends `command` and returns its typed reply.
    func send<Command: NavigationCommand>(_ command: Command, timeout: Double = 10) async throws -> Command.Result {
        let navd = try await connect()
        defer { navd.close() }
        do throws(NavdClientError) {
            return try await navd.send(command, timeout: timeout)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
