import Foundation
import Logging
@testable import NavigationDaemon
import Testing

/// journald reads a priority prefix at the start of every line: a log entry must be exactly one line.
@Suite struct JournaldLineTests {
    static let time = Date(timeIntervalSince1970: 1_795_241_290)

    @Test(arguments: [
        "an engine said: 502\nBad Gateway", "line one\r\nline two", "tab\there", "escape \u{1b}[31mred", "nul \u{0} byte",
    ])
    func aLogEntryIsOneLineWhateverItsMessageAndMetadata(text: String) {
        let line = JournaldLogHandler.line(
            level: .warning, message: text, metadata: ["peer": text, "client": "7"], format: .journald, time: Self.time)
        #expect(line.hasPrefix("<4>"))
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().allSatisfy { !$0.isNewline }, "\(line.debugDescription)")
        #expect(!line.unicodeScalars.dropLast().contains { $0.properties.generalCategory == .control })
        #expect(line.contains("client=7"))
    }

    @Test func escapesAreReadable() {
        let line = JournaldLogHandler.line(
            level: .error, message: "refused: a\nb", metadata: ["detail": "x=\"y\" z"], format: .journald, time: Self.time)
        #expect(line == #"<3>refused: a\nb detail="x=\"y\" z""# + "\n")
        let plain = JournaldLogHandler.line(level: .info, message: "ok", metadata: [:], format: .plain, time: Self.time)
        #expect(plain == "2026-11-21T06:08:10.000Z info ok\n")
    }
}
