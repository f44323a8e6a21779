import ArgumentParser
import FoundationEssentials
import Glibc
import NavigationDaemon
import SystemSupport

extension ReplayCommand {
    /// `navctl replay RECORDING [--diff]`: the daemon's loop over a recording.
    func replayRecording() throws {
        let texts = try recording.map { path -> String in
            let data = try readInput(path)
            guard let text = String(data: data, encoding: .utf8) else { throw CommandFailure("\(path) is not UTF-8 text") }
            return text
        }
        let started = ContinuousClock.now
        let result: DaemonReplay.Result
        do {
            result = try DaemonReplay.run(texts)
        } catch {
            throw CommandFailure("\(recording[0]): \(error)")
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if rewrite {
            guard recording.count == 1 else { throw CommandFailure("--rewrite takes one file (a recording without parts)") }
            try Data(result.rewritten.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: recording[0]))
            let changed = result.firstDifference.map { "changed from output line \($0 + 1)" } ?? "unchanged"
            writeLine("rewrote \(recording[0]): \(result.replayed.count) output lines, \(changed)")
            return
        }
        guard diff else {
            StandardStream.output.write(result.replayed.map { $0 + "\n" }.joined())
            return
        }
        let driven = Self.recordedSeconds(texts)
        let speed = seconds > 0 && driven > 0 ? String(cFormat: ", %.0f× real time", driven / seconds) : ""
        guard let index = result.firstDifference else {
            writeLine("identical: \(result.replayed.count) lines from \(result.inputs) inputs (\(String(cFormat: "%.1f", driven)) s recorded, replayed in \(String(cFormat: "%.2f", seconds)) s\(speed))")
            return
        }
        writeLine("differs at output line \(index + 1) of \(result.recorded.count) recorded, \(result.replayed.count) replayed:")
        writeLine("- recorded: \(index < result.recorded.count ? result.recorded[index] : "(nothing: the recording ends here)")")
        writeLine("+ replayed: \(index < result.replayed.count ? result.replayed[index] : "(nothing: the replay ends here)")")
        throw ExitCode(1)
    }

    /// Seconds the recording covers (its last `t`).
    static func recordedSeconds(_ texts: [String]) -> Double {
        guard let last = texts.last else { return 0 }
        for line in last.split(separator: "\n").reversed() where line.hasPrefix("{\"rec\":") {
            if let range = line.firstRange(of: "\"t\":") {
                let digits = line[range.upperBound...].prefix { "0123456789.eE-+".contains($0) }
                if let value = Double(digits) { return value }
            }
        }
        return 0
    }
}
