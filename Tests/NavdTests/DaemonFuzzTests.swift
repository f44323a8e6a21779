import Foundation
import NavigationCore
import NMEA
import Testing
import TestSupport

/// Whole-daemon fuzzing: the real navd navigating from a serial pty fed, for a bounded time, with real receiver
/// captures and the drive's own sentences mutated the way line noise and broken receivers mutate them (numbers
/// replaced by 1e300, NaN, 2^63 and exponents, with the checksum fixed up half the time so that they pass it;
/// bytes flipped, lines cut, doubled, joined). navd must never exit and must keep publishing; after the noise,
/// clean sentences navigate again. The mutations are seeded: a failure names its seed and replays.
@Suite(.serialized)
struct DaemonFuzzTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NMEATests/Fixtures/nmea-corpus")
    /// What replaces a field: the numbers that stopped navd before.
    static let hostile = ["1e300", "-1e300", "1e20", "1e400", "NaN", "nan", "inf", "-0", "9223372036854775808", "120000.1e20", "99999999", "-1", ""]

    /// One line mutated by `random`, or the line itself.
    static func mutate(_ line: String, _ random: inout SeededRandomNumberGenerator) -> String {
        let body = line.hasPrefix("$") ? String(line.dropFirst().split(separator: "*", maxSplits: 1).first ?? "") : line
        switch random.next() % 8 {
        case 0, 1, 2:
            // A field replaced by a hostile number, with a correct checksum two times in three.
            var fields = body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 1 else { return line }
            fields[1 + Int(random.next() % UInt64(fields.count - 1))] = hostile[Int(random.next() % UInt64(hostile.count))]
            let mutated = fields.joined(separator: ",")
            return random.next() % 3 == 0 ? "$\(mutated)*00" : "$\(mutated)*\(NMEAWriter.checksum(mutated))"
        case 3:
            // A byte flipped (the checksum then usually fails).
            var bytes = Array(line.utf8)
            guard !bytes.isEmpty else { return line }
            bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8))
            return String(decoding: bytes, as: UTF8.self)
        case 4:
            // Cut short.
            return String(line.prefix(Int(random.next() % UInt64(max(1, line.count)))))
        case 5:
            // The checksum lost: a sentence without one, from a receiver that sends them.
            return "$" + body
        default:
            return line
        }
    }

    @Test(arguments: [UInt64(20_261_125), 7])
    func navdSurvivesAMutatedReceiverAndKeepsPublishing(seed: UInt64) async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 10)
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: try Engines.valhallaURL())
        try navd.start()
        let client = try navd.connectAndNavigate(drive, pty: pty)
        #expect(client.waitFor(timeout: 15) { $0.type == "route" } != nil, "no route:\n\(navd.log.suffix(2000))")

        // Real receivers' captures, then the drive's own sentences, mutated line by line.
        var captures: [String] = []
        for name in ["ublox-zed-f9p-nmea", "mtk-3301", "tn200", "firefly-II", "haicom-305N"] {
            let text = try String(contentsOf: Self.corpus.appendingPathComponent("\(name).log"), encoding: .isoLatin1)
            captures += text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).prefix(300).map(String.init)
        }
        var random = SeededRandomNumberGenerator(seed: seed)
        let started = Date()
        var sent = 0, mutated = 0, silentSeconds = 0.0
        var lastHeard = Date()
        var heard = client.received.count
        var index = 1
        var round = 0
        // Bounded: 25 s of noise at about 200 lines a second, whatever happens.
        while Date().timeIntervalSince(started) < 25 {
            var lines = (0..<20).map { _ in captures[Int(random.next() % UInt64(captures.count))] }
            // The drive goes on at a fix every half second, keeping five clean fixes for the end.
            round += 1
            if round % 5 == 0, index < drive.fixes.count - 6 {
                lines += drive.nmea(index).split(separator: "\r\n").map(String.init)
                index += 1
            }
            var out = ""
            for line in lines {
                let changed = Self.mutate(line, &random)
                if changed != line { mutated += 1 }
                out += changed + (random.next() % 16 == 0 ? "" : "\r\n")  // now and then two lines run together
            }
            pty.write(out)
            sent += lines.count
            client.drain(for: 0.1)
            if client.received.count > heard {
                heard = client.received.count
                lastHeard = Date()
            }
            silentSeconds = max(silentSeconds, Date().timeIntervalSince(lastHeard))
            guard navd.process?.isRunning == true else { break }
        }
        #expect(navd.process?.isRunning == true, "seed \(seed): navd exited:\n\(navd.log.suffix(3000))")
        #expect(silentSeconds < 6, "seed \(seed): navd published nothing for \(silentSeconds) s")

        // Clean sentences again: navd still navigates them, and answers.
        for next in index..<min(index + 5, drive.fixes.count) { pty.write(drive.nmea(next)); client.drain(for: 0.3) }
        let status = client.command(#"{"type":"status","id":"after"}"#, id: "after")
        #expect(status?.type == "reply", "seed \(seed): no answer after the noise")
        client.drain(for: 1)
        let states = client.received.suffix(20).filter { $0.type == "trip_state" }
        let state = states.last { $0["state"]?.stringValue == "navigating" }
        #expect(state != nil, "seed \(seed): not navigating after the noise; last messages: \(client.received.suffix(6))")
        print("daemon fuzz seed \(seed): \(sent) lines in \(Int(Date().timeIntervalSince(started))) s, \(mutated) mutated; longest silence \(String(format: "%.1f", silentSeconds)) s; navd running")
    }
}
