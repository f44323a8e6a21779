import ArgumentParser
import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol

/// `navctl record start|stop|status`: the flight recorder of a running navd.
struct RecordSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Start or stop navd's flight recorder, or ask whether it runs (docs/recording.md).")

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case start, stop, status
    }

    @Argument(help: "start, stop or status.")
    var action: Action

    @OptionGroup var connection: SocketOptions

    @Flag(help: "Print navd's reply as JSON.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let reply = try await connection.send(RecordCommand(action: RecordCommand.Action(rawValue: action.rawValue)!))
            if json { return try writeJSON(reply) }
            switch action {
            case .start:
                writeLine("recording to \(reply.path ?? "?")")
            case .stop:
                let files = reply.files ?? []
                if files.isEmpty {
                    writeLine("navd was not recording")
                } else {
                    let megabytes = Double(reply.bytes ?? 0) / 1_048_576
                    writeLine("recorded \(String(cFormat: "%.1f", reply.seconds ?? 0)) s, \(String(cFormat: "%.2f", megabytes)) MB: \(files.joined(separator: " "))")
                }
            case .status:
                if reply.recording {
                    writeLine("recording to \(reply.path ?? "?") for \(CheckedNumber.clampedWhole(reply.seconds ?? 0, rounding: .towardZero)) s")
                } else {
                    writeLine("not recording")
                }
            }
        }
    }
}
