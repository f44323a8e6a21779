import Foundation
import NavigationCore
import NMEA
import Testing
import LocationSources
import TestSupport

enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func corpusLog(_ name: String) -> URL {
        root.appendingPathComponent("Tests/NMEATests/Fixtures/nmea-corpus/\(name).log")
    }

    /// An NMEA drive (RMC + GGA at 1 Hz) along the recorded Helsinki OSRM route, written to a temporary file.
    static func helsinkiDrive() throws -> URL {
        let data = try Data(contentsOf: root.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_plain.json"))
        let routeObject = try #require(try JSONParser.parse(data)["routes"]?.arrayValue?.first)
        var points: [GeographicCoordinate] = []
        for leg in routeObject["legs"]?.arrayValue ?? [] {
            for step in leg["steps"]?.arrayValue ?? [] {
                points += try Polyline.decode(step["geometry"]?.stringValue ?? "", precision: 6)
            }
        }
        let fixes = LocationSimulator(speed: 12, sampleRate: 1, startTime: Date(timeIntervalSince1970: 1_795_241_290)).simulate(along: points)
        let text = fixes.flatMap(NMEAWriter.sentences(for:)).map { $0 + "\r\n" }.joined()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navd-helsinki-\(UUID().uuidString).nmea")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// What the NMEA parser makes of a file: fixes by ISO time.
    static func parsedFixes(_ url: URL) throws -> [String: GNSSFix] {
        var assembler = NMEAEpochAssembler(rollover: .gpsdDefault)
        let readings = assembler.append(try Data(contentsOf: url)) + assembler.append([0x0a]) + assembler.finish()
        var result: [String: GNSSFix] = [:]
        for fix in readings.compactMap(\.fix) { result[ISO8601Timestamp.format(fix.location.timestamp)] = fix }
        return result
    }
}

/// Collects a feed's readings and statuses in the background, with bounded waits.
final class FeedRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _fixes: [GNSSFix] = []
    private var _statuses: [GNSSSourceStatusRecord] = []
    private var tasks: [Task<Void, Never>] = []

    struct GNSSSourceStatusRecord: Sendable { var text: String; var at: Double }

    init(readings: AsyncStream<GNSSReading>, statuses: AsyncStream<GNSSSourceStatus>) {
        tasks.append(Task { [weak self] in
            for await reading in readings {
                guard let fix = reading.fix else { continue }
                self?.lock.withLock { self?._fixes.append(fix) }
            }
        })
        tasks.append(Task { [weak self] in
            for await status in statuses {
                self?.lock.withLock { self?._statuses.append(GNSSSourceStatusRecord(text: "\(status)", at: Date().timeIntervalSince1970)) }
            }
        })
    }

    var fixes: [GNSSFix] { lock.withLock { _fixes } }
    var statuses: [String] { lock.withLock { _statuses.map(\.text) } }

    /// Waits (polling every 50 ms, at most `seconds`) until `condition` holds; returns whether it did.
    func wait(seconds: Double, until condition: (FeedRecorder) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(self)
    }

    deinit { tasks.forEach { $0.cancel() } }
}
