import ArgumentParser
import DriveReport
import NavigationCore
import FoundationEssentials
import Glibc
import SystemSupport

/// `navctl report RECORDING -o report.html`: one self-contained HTML page for a recorded drive.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a drive report (one self-contained HTML file) from a navd recording.",
        discussion: """
            The page has a map drawn from the recording (every route, the raw and snapped tracks, deviations, \
            reroutes, step advances, stops), GNSS accuracy and speed over time, a timeline of instructions, \
            deviations and calculations, and a summary. It loads nothing from the network (docs/field-testing.md).
            """)

    @Argument(help: "The recording: its first file, then any parts.")
    var recording: [String]

    @Option(name: .shortAndLong, help: "Where to write the HTML (- for standard output).")
    var output: String = "-"

    @Option(help: "The page's title.")
    var title: String?

    func run() async throws {
        try await reportingErrors {
            let texts = try recording.map { path -> String in
                guard let text = String(data: try readInput(path), encoding: .utf8) else { throw CommandFailure("\(path) is not UTF-8 text") }
                return text
            }
            let log: DriveLog
            do {
                log = try DriveLog(recording: texts)
            } catch {
                throw CommandFailure("\(recording[0]): \(error)")
            }
            let name = PathText.lastComponent(of: recording[0])
            let html = DriveReportPage.html(log, title: title ?? "Drive report: \(name)")
            if output == "-" {
                StandardStream.output.write(html)
            } else {
                do {
                    try Data(html.utf8).write(to: URL(fileURLWithPath: output))
                } catch {
                    throw CommandFailure("cannot write \(output): \(describeFileError(error))")
                }
                let summary = DriveSummary(log)
                StandardStream.error.write(
                    "wrote \(output): \(summary.routes) route(s), \(summary.reroutes) reroute(s), \(summary.fixes) fixes, \(html.utf8.count / 1024) KB\n")
            }
        }
    }
}
