import Foundation
import LocationSources
import NavigationCore
import NMEA
import Testing
import TestSupport
import TrackFormats

@Suite("Replay sources")
struct ReplaySourceTests {
    /// Records the delays a replay asks for instead of sleeping.
    final class SleepRecorder: @unchecked Sendable {
        private let lock = NSLock()
        private var _delays: [Double] = []
        var delays: [Double] { lock.withLock { _delays } }
        func sleep(_ seconds: Double) { lock.withLock { _delays.append(seconds) } }
    }

    static func play(_ readings: [GNSSReading], pacing: ReplayPacing) async -> (delivered: [GNSSReading], delays: [Double], statuses: [String]) {
        let recorder = SleepRecorder()
        let source = ReplaySource(readings: readings, pacing: pacing) { recorder.sleep($0) }
        async let delivered: [GNSSReading] = {
            var all: [GNSSReading] = []
            for await reading in source.feed.readings { all.append(reading) }
            return all
        }()
        async let statuses: [String] = {
            var all: [String] = []
            for await status in source.feed.statuses { all.append("\(status)") }
            return all
        }()
        await source.run()
        return (await delivered, recorder.delays, await statuses)
    }

    static func nmeaReadings() throws -> [GNSSReading] {
        try ReplaySource.readings(from: Data(contentsOf: Fixtures.corpusLog("ublox-8")), rollover: .none)
    }

    @Test(arguments: [(ReplayPacing.realTime, 1.0), (.accelerated(4), 0.25), (.asFastAsPossible, 0)])
    func pacingFollowsTheRecordedTimes(pacing: ReplayPacing, scale: Double) async throws {
        let readings = try Self.nmeaReadings()
        let (delivered, delays, statuses) = await Self.play(readings, pacing: pacing)
        #expect(delivered.count == readings.count)
        #expect(delivered == readings)
        // u-blox 8 at 1 Hz: one second between epochs, several emissions within each epoch.
        let total = delays.reduce(0, +)
        let span = try #require(readings.last?.fix?.location.timestamp).timeIntervalSince(try #require(readings.first?.fix?.location.timestamp))
        #expect(abs(total - span * scale) < 1e-6)
        if scale > 0 { #expect(delays.allSatisfy { abs($0 - scale) < 1e-6 }) } else { #expect(delays.isEmpty) }
        #expect(statuses.last == "end of input")
    }

    @Test func cancellationStopsAReplay() async throws {
        let readings = try Self.nmeaReadings()
        // The replay blocks in its first real wait (an hour); cancelling must end it there.
        let source = ReplaySource(readings: readings, pacing: .realTime) { _ in try await Task.sleep(for: .seconds(3600)) }
        let task = Task { await source.run() }
        var iterator = source.feed.readings.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        await task.value
        var delivered = 1
        while await iterator.next() != nil { delivered += 1 }
        // Only the readings of the first epoch (same timestamp, no wait between them) got out.
        let firstTime = readings.first?.fix?.location.timestamp
        let firstEpoch = readings.prefix { $0.fix?.location.timestamp == firstTime }.count
        #expect(delivered == firstEpoch)
        #expect(delivered < readings.count)
    }

    @Test func gpsdJSONLogsFromARealGpsd() async throws {
        // Capture what gpsd itself reports for a corpus log, then read the capture.
        let log = Fixtures.corpusLog("navika-100-fix")
        let port = freePort()
        let fake = try GpsFake.start(log, port: port, once: false, cycle: "0.05")
        defer { fake.stop() }
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("navd-gpspipe-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: capture) }
        // gpspipe buffers its output: let it stop by itself after 20 lines (about 6 s of reports).
        let pipe = try ExternalProcess("sh", ["-c", "gpspipe -w -n 20 127.0.0.1:\(port) > \(capture.path)"])
        for _ in 0..<500 where pipe.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        pipe.stop()
        let readings = try GpsdJSONLogReader.read(Data(contentsOf: capture))
        let fixes = readings.compactMap(\.fix)
        #expect(fixes.count >= 5, "gpspipe captured: \((try? String(contentsOf: capture, encoding: .utf8))?.prefix(300) ?? "")")
        let expected = try Fixtures.parsedFixes(log)
        for fix in fixes {
            let ours = try #require(expected[ISO8601Timestamp.format(fix.location.timestamp)])
            #expect(abs(fix.location.coordinate.latitude - ours.location.coordinate.latitude) < 1e-7)
            #expect(abs(fix.location.coordinate.longitude - ours.location.coordinate.longitude) < 1e-7)
        }
        // Once gpsd has sent a SKY report, fixes carry its satellite count.
        #expect(fixes.contains { $0.quality.satellitesUsed != nil }, "SKY reports fill in the satellite count")
        // The same capture through the replay source's content detection.
        #expect(try ReplaySource.readings(from: Data(contentsOf: capture)) == readings)
    }

    @Test func gpxAndJSONLinesReplays() throws {
        let gpx = #"<gpx><trk><trkseg><trkpt lat="60.1" lon="24.9"><time>2026-11-21T06:08:10Z</time></trkpt><trkpt lat="60.1001" lon="24.9"><time>2026-11-21T06:08:11Z</time></trkpt></trkseg></trk></gpx>"#
        let fromGPX = try ReplaySource.readings(from: Data(gpx.utf8))
        #expect(fromGPX.compactMap(\.fix).count == 2)
        let jsonl = #"{"lat":60.1,"lon":24.9,"accuracy":3,"time":"2026-11-21T06:08:10Z"}"# + "\n" + #"{"lat":60.1001,"lon":24.9,"accuracy":3,"time":"2026-11-21T06:08:11Z"}"#
        let fromJSONL = try ReplaySource.readings(from: Data(jsonl.utf8))
        #expect(fromJSONL.compactMap(\.fix).map(\.location.horizontalAccuracy) == [3, 3])
        #expect(throws: (any Error).self) { try ReplaySource.readings(from: Data("{\"class\":\"TPV\",\"lat\":".utf8)) }
    }

    @Test func gpsdJSONReaderSkipsOtherClassesAndRejectsJunk() throws {
        let log = """
            {"class":"VERSION","release":"3.22"}
            {"class":"SKY","hdop":0.9,"nSat":12,"uSat":8}
            {"class":"TPV","mode":3,"time":"2026-11-21T06:08:10.000Z","lat":60.17,"lon":24.94,"speed":13.4,"track":87.0,"eph":9.8,"altMSL":20.1}
            {"class":"TPV","mode":1,"time":"2026-11-21T06:08:11.000Z"}
            """
        let readings = try GpsdJSONLogReader.read(Data(log.utf8))
        #expect(readings.count == 2)
        let fix = try #require(readings.first?.fix)
        #expect(fix.quality.mode == .threeDimensional)
        #expect(fix.quality.satellitesUsed == 8)
        #expect(fix.quality.hdop == 0.9)
        #expect(abs(fix.location.horizontalAccuracy - 9.8 * 0.6167) < 1e-9)
        #expect(fix.location.speed?.metersPerSecond == 13.4)
        guard case .noFix(_, let time) = readings[1] else {
            Issue.record("mode 1 is no fix")
            return
        }
        #expect(time != nil)
        #expect { try GpsdJSONLogReader.read(Data("{\"class\":\"TPV\"\nnot json\n".utf8)) } throws: { "\($0)".contains("line 1") }
    }
}
