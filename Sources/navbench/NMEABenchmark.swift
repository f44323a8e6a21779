import Foundation
import LocationSources
import NavigationCore
import NMEA

/// NMEA parsing throughput over the 30 real receiver captures, and the latency from a sentence written into a
/// pty to the fix the serial source emits.
struct NMEABenchmark {
    /// Parses every corpus log `repeats` times; prints MB/s and sentences/s (median of 5 runs).
    static func throughput(corpus: String, repeats: Int = 20) -> [Figure] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).filter { $0.hasSuffix(".log") }.sorted()
        guard !files.isEmpty else {
            FileHandle.standardError.write(Data("navbench: no .log files in \(corpus)\n".utf8))
            exit(1)
        }
        var data = Data()
        for file in files { data += (try? Data(contentsOf: URL(fileURLWithPath: corpus).appendingPathComponent(file))) ?? Data() }
        var input = Data()
        for _ in 0..<repeats { input += data }
        let clock = ContinuousClock()
        var seconds: [Double] = []
        var sentences = 0
        for _ in 0..<5 {
            var assembler = NMEAEpochAssembler()
            var readings = 0
            let elapsed = clock.measure {
                // As the serial reader feeds it: bytes in memory, through the entry point made for them.
                readings = input.withUnsafeBytes { assembler.append(bytes: $0) }.count
            }
            precondition(readings > 0)
            sentences = assembler.statistics.sentences
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        seconds.sort()
        let median = seconds[2]
        let megabytes = Double(input.count) / 1e6
        progress("nmea: \(files.count) logs × \(repeats) = \(String(format: "%.2f", megabytes)) MB, \(sentences) sentences, median of 5")
        return [
            Figure("NMEA parse and epoch assembly", megabytes / median, "MB/s"),
            Figure("NMEA sentences", Double(sentences) / median / 1000, "thousand/s"),
        ]
    }

    /// The `index`th fix of a 10 Hz drive north through Helsinki at 10 m/s, for the receiver's sentences.
    static func epochFix(_ index: Int) -> UserLocation {
        UserLocation(
            coordinate: GeographicCoordinate(latitude: 60.17 + Double(index) * 1e-5, longitude: 24.94), horizontalAccuracy: 3,
            course: CourseOverGround(degrees: 10), speed: Speed(metersPerSecond: 10),
            timestamp: Date(timeIntervalSince1970: 1_795_241_290 + Double(index) * 0.1))
    }

    /// One epoch at a time, as a receiver sends them: `epochs` epochs 100 ms apart, each epoch's bytes fed at once
    /// and timed alone (the assembler's reading out of them), for RMC+GGA and for the five sentences of a
    /// receiver that reports GST. At 10 Hz the code and data an epoch touches are mostly out of the caches when
    /// it comes (the throughput figure above runs them hot); this is what a fix's assembly costs inside navd.
    static func paced(epochs: Int = 200) -> [Figure] {
        var figures: [Figure] = []
        for (profile, label) in [(NMEAReceiverProfile.rmcThenGGA, "RMC+GGA"), (.withGST, "GGA, GSA, GST, RMC, VTG")] {
            var assembler = NMEAEpochAssembler(rollover: .none)
            var micros: [Double] = []
            for i in 0..<epochs + 5 {
                let bytes = Array(NMEAWriter.sentences(for: epochFix(i), profile: profile).map { $0 + "\r\n" }.joined().utf8)
                usleep(100_000)
                let before = monotonicSeconds()
                let readings = bytes.withUnsafeBytes { assembler.append(bytes: $0) }
                let after = monotonicSeconds()
                // From the second epoch on, the learned cycle end emits each epoch's reading within its own bytes.
                if i >= 5 {
                    precondition(readings.count == 1 && readings[0].fix != nil, "epoch \(i) gave \(readings)")
                    micros.append((after - before) * 1e6)
                }
            }
            let sample = Percentiles(micros)
            progress("nmea paced (\(label)): \(epochs) epochs 100 ms apart")
            figures.append(Figure("NMEA epoch at 10 Hz, \(label), p50", sample.median, "µs"))
        }
        return figures
    }

    /// Writes RMC+GGA pairs into a socat pty at 10 Hz and measures write → fix emitted by the serial source.
    static func ptyLatency(samples: Int = 300) async -> [Figure] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navbench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = directory.appendingPathComponent("gps").path, feeder = directory.appendingPathComponent("feeder").path
        let socat = Process()
        socat.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        socat.arguments = ["pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feeder)"]
        do { try socat.run() } catch {
            FileHandle.standardError.write(Data("navbench: cannot start socat (apt-get install socat): \(error)\n".utf8))
            exit(1)
        }
        defer { socat.terminate() }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: feeder) { try? await Task.sleep(for: .milliseconds(20)) }
        let source = SerialNMEASource(path: device, baud: 115200, rollover: .none)
        source.start()
        defer { source.stop() }
        var statuses = source.feed.statuses.makeAsyncIterator()
        while let status = await statuses.next() { if case .connected = status { break } }
        let fd = open(feeder, O_WRONLY | O_NOCTTY)
        guard fd >= 0 else { exit(1) }
        defer { close(fd) }
        var readings = source.feed.readings.makeAsyncIterator()
        var latencies: [Double] = []
        for i in 0..<samples + 5 {
            let fix = epochFix(i)
            let text = NMEAWriter.sentences(for: fix).map { $0 + "\r\n" }.joined()
            let bytes = Array(text.utf8)
            let written = monotonicSeconds()
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            // The first emission of this epoch (at its RMC) is the fix a navigation loop would use.
            while let reading = await readings.next() {
                // NMEA carries centiseconds: compare within 5 ms.
                if let time = reading.fix?.location.timestamp, abs(time.timeIntervalSince(fix.timestamp)) < 0.005 {
                    if i >= 5 { latencies.append(monotonicSeconds() - written) }
                    break
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        let sample = Percentiles(latencies.map { $0 * 1000 })
        return [
            Figure("pty to fix from the serial source (in process), p50", sample.median, "ms"),
            Figure("pty to fix from the serial source (in process), p99", sample.p99, "ms"),
        ]
    }
}
