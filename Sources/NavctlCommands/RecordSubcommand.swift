import ArgumentParser
import Foundation
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
            let reply = try connection.request(["type": "record", "action": .string(action.rawValue)])
            if json {
                writeLine(String(decoding: JSONLine.serialize(reply), as: UTF8.self))
                return
            }
            let result = reply["result"] ?? .null
            switch action {
            case .start:
                writeLine("recording to \(result["path"]?.stringValue ?? "?")")
            case .stop:
                let files = result["files"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if files.isEmpty {
                    writeLine("navd was not recording")
                } else {
                    let megabytes = (result["bytes"]?.doubleValue ?? 0) / 1_048_576
                    writeLine("recorded \(String(format: "%.1f", result["seconds"]?.doubleValue ?? 0)) s, \(String(format: "%.2f", megabytes)) MB: \(files.joined(separator: " "))")
                }
            case .status:
                if result["recording"]?.boolValue == true {
                    writeLine("recording to \(result["path"]?.stringValue ?? "?") for \(Int(result["seconds"]?.doubleValue ?? 0)) s")
                } else {
                    writeLine("not recording")
                }
            }
        }
    }
}
