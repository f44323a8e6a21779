import Foundation
import NavigationCore
import NMEA
import Testing

/// Captures from 30 real receivers (gpsd's regression suite) against the fixes gpsd 3.22 reports for them
/// (Fixtures/nmea-corpus, see its README).
@Suite("Real receivers from gpsd's regression suite")
struct CorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/nmea-corpus")

    static let logs: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".log") }.map { String($0.dropLast(4)) }.sorted()
    }()

    struct Expected: Decodable {
        struct Record: Decodable {
            var mode: Int
            var lat: Double?
            var lon: Double?
            var speed: Double?
            var track: Double?
            var time: String?
            var time_nmea: String?
            var final: Bool?
            var src: String?
        }
        var fixes: [Record]
    }

    /// Runs a whole log through the assembler; returns the last fix emitted for each epoch time.
    static func parse(_ name: String, rollover: GPSWeekRollover) throws -> (fixes: [String: GNSSFix], noFix: Set<String>, statistics: NMEAStatistics) {
        let data = try Data(contentsOf: directory.appendingPathComponent("\(name).log"))
        var assembler = NMEAEpochAssembler(rollover: rollover)
        var readings = assembler.append(data)
        readings += assembler.append([0x0a])
        readings += assembler.finish()
        var fixes: [String: GNSSFix] = [:]
        var noFix: Set<String> = []
        for reading in readings {
            switch reading {
            case .fix(let fix): fixes[ISO8601Timestamp.format(fix.location.timestamp)] = fix
            case .noFix(_, let time?): noFix.insert(ISO8601Timestamp.format(time))
            case .noFix: break
            }
        }
        return (fixes, noFix, assembler.statistics)
    }

    static func expected(_ name: String) throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: directory.appendingPathComponent("\(name).expected.json")))
    }

    /// Where navd deliberately differs from gpsd (docs/gnss.md): the receiver's GSA says 2D while GGA carries an
    /// altitude; gpsd infers 3D from the altitude, navd trusts the receiver's stated fix type. Keyed by log and the
    /// receiver's time; the test checks that exactly these records differ, and only in the mode (navd 2, gpsd 3).
    static let deliberateDifferences: [String: Set<String>] = [
        "mtk-3301": ["08:14:39"],
        "haicom-305N": ["09:53:07.801"],
        "tomtom-mkII": ["17:57:38", "17:57:39"],
    ]

    static func isDeliberateDifference(_ name: String, _ time: String) -> Bool {
        (deliberateDifferences[name] ?? []).contains { time.contains("T\($0)") }
    }

    /// Compares one log; returns (matched, total) final records with a position, and the mismatches.
    static func compare(_ name: String, rollover: GPSWeekRollover, timeKey: KeyPath<Expected.Record, String?>) throws
        -> (matched: Int, total: Int, problems: [String])
    {
        let (fixes, _, _) = try parse(name, rollover: rollover)
        var matched = 0, total = 0
        var problems: [String] = []
        for record in try expected(name).fixes where record.final == true && record.lat != nil {
            total += 1
            guard let time = record[keyPath: timeKey], let fix = fixes[time] else {
                problems.append("\(record[keyPath: timeKey] ?? "?"): no fix")
                continue
            }
            var issues: [String] = []
            if Self.isDeliberateDifference(name, time) {
                // The documented difference, and nothing else.
                if !(fix.quality.mode == .twoDimensional && record.mode == 3) { issues.append("expected the documented 2D-vs-3D difference") }
            } else if fix.quality.mode.rawValue != record.mode {
                issues.append("mode \(fix.quality.mode.rawValue) vs \(record.mode)")
            }
            if abs(fix.location.coordinate.latitude - record.lat!) > 1e-6 { issues.append("lat \(fix.location.coordinate.latitude) vs \(record.lat!)") }
            if abs(fix.location.coordinate.longitude - record.lon!) > 1e-6 { issues.append("lon \(fix.location.coordinate.longitude) vs \(record.lon!)") }
            if let speed = record.speed, let ours = fix.location.speed?.metersPerSecond, abs(ours - speed) > 0.01 {
                issues.append("speed \(ours) vs \(speed)")
            }
            if let track = record.track, let ours = fix.location.course?.degrees, Geodesy.angleBetween(ours, track) > 0.01 {
                issues.append("track \(ours) vs \(track)")
            }
            if issues.isEmpty { matched += 1 } else { problems.append("\(time): " + issues.joined(separator: ", ")) }
        }
        return (matched, total, problems)
    }

    @Test func everyLogIsPresent() {
        #expect(Self.logs.count == 30)
    }

    /// The receiver's own time (gpsd's `time_nmea`), without rollover correction.
    @Test(arguments: logs)
    func fixesMatchGpsd(name: String) throws {
        let result = try Self.compare(name, rollover: .none, timeKey: \.time_nmea)
        let differences = (Self.deliberateDifferences[name] ?? []).count
        print(
            "nmea-corpus \(name): \(result.matched)/\(result.total) final fixes match gpsd"
                + (differences > 0 ? " (\(differences) of them differ in mode only, deliberately: docs/gnss.md)" : ""))
        #expect(result.problems.isEmpty, "\(name): \(result.problems.prefix(5).joined(separator: "; "))")
    }

    /// With navd's default rollover correction (gpsd's rule), times equal gpsd's corrected `time`.
    @Test(arguments: logs)
    func rolloverCorrectionMatchesGpsdTime(name: String) throws {
        let result = try Self.compare(name, rollover: .gpsdDefault, timeKey: \.time)
        #expect(result.problems.isEmpty, "\(name): \(result.problems.prefix(5).joined(separator: "; "))")
    }
}

/// One reading per epoch on real receivers, and how many leave at their epoch's last sentence.
@Suite("Real receivers' cycles")
struct CorpusCycleTests {
    /// Sentence types that carry a time of day, and the field holding it.
    static let timeField: [String: Int] = ["RMC": 0, "GGA": 0, "GNS": 0, "GLL": 4, "GST": 0, "ZDA": 0, "PSRFEPE": 0]

    @Test(arguments: CorpusTests.logs)
    func oneReadingPerEpochOnTime(name: String) throws {
        let data = try Data(contentsOf: CorpusTests.directory.appendingPathComponent("\(name).log"))
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The epochs as the log has them: a new time of day on a timed sentence begins one.
        var epochOfLine: [Int?] = []
        var lastLineOfEpoch: [Int] = []
        // The address of each epoch's last sentence and how many of that address the epoch had.
        var lastAddressOfEpoch: [String] = []
        var counts: [String: Int] = [:]
        var currentTime: Substring?
        for (i, line) in lines.enumerated() {
            guard let s = try? NMEASentence.parse(line) else {
                epochOfLine.append(nil)
                continue
            }
            if let field = Self.timeField[s.type], !s[field].isEmpty, s[field] != currentTime {
                currentTime = s[field]
                lastLineOfEpoch.append(i)
                lastAddressOfEpoch.append("")
                counts = [:]
            }
            if !lastLineOfEpoch.isEmpty {
                lastLineOfEpoch[lastLineOfEpoch.count - 1] = i
                counts[s.talker + s.type, default: 0] += 1
                lastAddressOfEpoch[lastAddressOfEpoch.count - 1] = s.talker + s.type + "#\(s.type == "GSV" ? 0 : counts[s.talker + s.type]!)"
            }
            epochOfLine.append(lastLineOfEpoch.isEmpty ? nil : lastLineOfEpoch.count - 1)
        }
        var assembler = NMEAEpochAssembler(rollover: .none)
        var emittedAt: [(line: Int, reading: GNSSReading)] = []
        for (i, line) in lines.enumerated() {
            for reading in assembler.append(Array(line) + [0x0a]) { emittedAt.append((i, reading)) }
        }
        for reading in assembler.finish() { emittedAt.append((lines.count, reading)) }
        let times = emittedAt.compactMap { entry -> Date? in
            switch entry.reading {
            case .fix(let fix): fix.location.timestamp
            case .noFix(_, let time): time
            }
        }
        #expect(Set(times).count == times.count, "\(name): an epoch was emitted twice")
        let onTime = emittedAt.filter { entry in
            entry.line < lines.count && lastLineOfEpoch.contains(entry.line)
        }.count
        let total = max(1, emittedAt.count)
        // A receiver whose every epoch ends on the same sentence: every epoch after the first leaves at its end.
        let regular = Set(lastAddressOfEpoch.dropLast()).count == 1 && lastAddressOfEpoch.count > 2
        if regular {
            #expect(onTime >= emittedAt.count - 2, "\(name): \(onTime) of \(emittedAt.count) on time with a regular cycle")
        }
        print("nmea-corpus \(name)\(regular ? " (regular cycle)" : ""): \(emittedAt.count) readings for \(lastLineOfEpoch.count) epochs, \(onTime) at their epoch's last sentence (\(100 * onTime / total)%), cycle end \(assembler.cycleEnd.map(String.init(describing:)) ?? "not learned")")
    }
}
