import Foundation
import NavigationCore
import NMEA
import PropertyBased
import Testing

/// Builds a sentence with its checksum.
func sentence(_ body: String) -> String {
    "$\(body)*\(NMEAWriter.checksum(body))"
}

func run(_ lines: [String], rollover: GPSWeekRollover = .none) -> (readings: [GNSSReading], statistics: NMEAStatistics) {
    var assembler = NMEAEpochAssembler(rollover: rollover)
    var readings: [GNSSReading] = []
    for line in lines { readings += assembler.append(Array((line + "\r\n").utf8)) }
    readings += assembler.finish()
    return (readings, assembler.statistics)
}

@Suite("NMEA sentences")
struct NMEASentenceTests {
    @Test func parsesTalkerTypeAndFields() throws {
        let s = try NMEASentence.parse(Array(sentence("GNRMC,000941.00,A,4404.13387,N,12118.85628,W,0.029,,100117,,,A").utf8))
        #expect(s.talker == "GN")
        #expect(s.type == "RMC")
        #expect(s[0] == "000941.00")
        #expect(s[7] == "")
        #expect(s[40] == "")
        #expect(s.hadChecksum)
    }

    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "GI", "QZ"])
    func anyTalkerIsAccepted(talker: String) throws {
        let s = try NMEASentence.parse(Array(sentence("\(talker)GGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8))
        #expect(s.talker == talker)
        #expect(s.type == "GGA")
    }

    @Test func badChecksumIsRejected() {
        #expect(throws: NMEASentenceError.badChecksum) {
            try NMEASentence.parse(Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*00".utf8))
        }
    }

    @Test func longSentencesAreAccepted() throws {
        let body = "GPGSV,3,1,12," + Array(repeating: "01,40,083,46", count: 12).joined(separator: ",")
        #expect(body.count > 82)
        #expect(try NMEASentence.parse(Array(sentence(body).utf8)).type == "GSV")
    }

    @Test func proprietarySentencesKeepTheirAddress() throws {
        #expect(try NMEASentence.parse(Array(sentence("PGRME,15.0,M,45.0,M,25.0,M").utf8)).type == "PGRME")
    }

    @Test(arguments: ["", "hello", "$", "$GP", "$G#RMC,1*00", "\u{0}\u{1}garbage", "$GPRMC,1\u{7}2"])
    func garbageIsNotASentence(text: String) {
        #expect(throws: NMEASentenceError.self) { try NMEASentence.parse(Array(text.utf8)) }
    }

    @Test func lineSplitterBoundsMemoryAndSkipsNoise() {
        var splitter = NMEALineSplitter()
        // Binary noise before a sentence on the same line is dropped at the '$'.
        let lines = splitter.append(Array("\u{1}\u{2}xx$GPGGA,1\r\n\r\n$GPRMC,2\n".utf8))
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["$GPGGA,1", "$GPRMC,2"])
        // 100 KB without a line ending: dropped, counted, and the next line still parses.
        _ = splitter.append([UInt8](repeating: 0x41, count: 100_000))
        #expect(splitter.overlongLines == 1)
        #expect(splitter.append(Array("\n$GPVTG,3\n".utf8)).count == 1)
    }

    /// The splitter's rules a byte at a time, as it was written first: the model its runs are held to.
    struct SplitterModel {
        var buffer: [UInt8] = []
        var discarding = false
        var overlongLines = 0

        mutating func append(_ bytes: [UInt8]) -> [[UInt8]] {
            var lines: [[UInt8]] = []
            for byte in bytes {
                if byte == 0x0a || byte == 0x0d {
                    if !discarding, !buffer.isEmpty { lines.append(buffer) }
                    buffer.removeAll()
                    discarding = false
                } else if discarding {
                    continue
                } else if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") {
                    buffer = [byte]
                } else if buffer.count >= NMEASentence.maximumLength {
                    overlongLines += 1
                    buffer.removeAll()
                    discarding = true
                } else {
                    buffer.append(byte)
                }
            }
            return lines
        }
    }

    /// Streams of sentence starts, line ends, text and runs long enough to pass the maximum (at and around it), cut
    /// into chunks anywhere: the same lines and the same count of overlong ones as the model.
    @Test func lineSplitterKeepsTheRulesOfAByteAtATime() async {
        let max = NMEASentence.maximumLength
        let pieces: [[UInt8]] = [
            Array("$".utf8), Array("!".utf8), [0x0d], [0x0a], Array("GPRMC,1.5,A".utf8), Array("*4F".utf8), [0x01, 0xFF],
            [UInt8](repeating: 0x41, count: max - 1), [UInt8](repeating: 0x42, count: max), [UInt8](repeating: 0x43, count: max + 1),
            [UInt8](repeating: 0x44, count: 300),
        ]
        let stream = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...14)
        await propertyCheck(count: 1000, input: stream, Gen.int(in: 1...700).array(of: 1...6)) { picks, cuts in
            let bytes = picks.flatMap { pieces[$0] }
            var model = SplitterModel()
            let expected = model.append(bytes)
            var splitter = NMEALineSplitter()
            var lines: [[UInt8]] = []
            var start = 0
            for cut in cuts + [bytes.count] where start < bytes.count {
                let end = min(bytes.count, start + cut)
                lines += splitter.append(bytes[start..<end])
                start = end
            }
            #expect(lines == expected)
            #expect(splitter.overlongLines == model.overlongLines)
        }
    }
}

@Suite("NMEA epoch assembly")
struct NMEAEpochTests {
    static let rmc = sentence("GPRMC,081836.00,A,3751.65,S,14507.36,E,12.4,360.0,130998,011.3,E,A")
    static let gga = sentence("GPGGA,081836.00,3751.65,S,14507.36,E,1,08,0.9,545.4,M,46.9,M,,")
    static let gsa = sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")

    @Test func oneReadingPerEpochWhateverTheOrder() throws {
        for order in [[Self.rmc, Self.gga, Self.gsa], [Self.gga, Self.rmc, Self.gsa], [Self.gsa, Self.gga, Self.rmc]] {
            let readings = run(order).readings
            #expect(readings.count == 1, "\(order.map { $0.dropFirst(3).prefix(3) })")
            #expect(readings.first?.fix?.quality.mode == .threeDimensional)
        }
    }

    @Test func theEpochsFixHasEverything() throws {
        let (readings, _) = run([Self.rmc, Self.gga, Self.gsa])
        let fix = try #require(readings.last?.fix)
        #expect(fix.quality.mode == .threeDimensional)
        #expect(abs(fix.location.coordinate.latitude - -37.860833) < 1e-6)
        #expect(abs(fix.location.coordinate.longitude - 145.122667) < 1e-6)
        #expect(abs((fix.location.speed?.metersPerSecond ?? 0) - 12.4 * 1852 / 3600) < 1e-9)
        #expect(fix.location.course?.degrees == 0)
        #expect(fix.quality.satellitesUsed == 8)
        #expect(fix.quality.hdop == 1.3)
        #expect(fix.quality.altitude == 545.4)
        #expect(ISO8601Timestamp.format(fix.location.timestamp) == "1998-09-13T08:18:36.000Z")
        // HDOP 1.3 × UERE 4 m as a 68% radius.
        #expect(abs(fix.location.horizontalAccuracy - NMEAAccuracy.accuracy68(hdop: 1.3)) < 1e-9)
        #expect(abs(NMEAAccuracy.accuracy68(hdop: 1) - 4.27) < 0.01)
    }

    @Test func gsvGivesSatellitesInViewAndSignal() throws {
        let lines = [
            Self.rmc,
            sentence("GPGSV,2,1,06,01,40,083,46,02,17,308,41,12,07,344,,14,22,228,45"),
            sentence("GPGSV,2,2,06,16,15,250,38,20,50,100,42"),
            sentence("GLGSV,1,1,02,65,30,120,35,66,60,200,"),
            Self.gga,
        ]
        let fix = try #require(run(lines).readings.last?.fix)
        #expect(fix.quality.satellitesInView == 8)
        // Signals 46, 41, 45, 38, 42 and 35 (two satellites are not tracked).
        #expect(abs((fix.quality.averageSignalStrength ?? 0) - 247.0 / 6) < 1e-9)
    }

    @Test func gstSigmasGiveTheAccuracy() throws {
        let gst = sentence("GPGST,081836.00,1.2,3.0,2.0,45.0,2.0,3.0,4.0")
        let fix = try #require(run([Self.rmc, Self.gga, gst]).readings.last?.fix)
        // 1.5096 × sqrt((2² + 3²) / 2)
        #expect(abs(fix.location.horizontalAccuracy - 1.5096 * (6.5).squareRoot()) < 1e-9)
    }

    @Test(arguments: [
        // Stale positions repeated with "no fix" markers are not fixes.
        ([sentence("GPRMC,081836,V,3751.65,S,14507.36,E,0,0,130998,,,N")], false),
        ([sentence("GPGGA,081836,3751.65,S,14507.36,E,0,00,,,M,,M,,"), sentence("GPZDA,081836,13,09,1998,00,00")], false),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,0,0,130998,,,N")], false),
        // A "no fix" GSA before the epoch's RMC is superseded by it, as in gpsd (RMC raises the mode to at least 2D);
        // one after it still vetoes (GSA sets the mode). The first is what a previous epoch's late GSA looks like.
        ([sentence("GPGSA,A,1,,,,,,,,,,,,,,,"), sentence("GPRMC,081836,A,3751.65,S,14507.36,E,0,0,130998,,,A")], true),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,0,0,130998,,,A"), sentence("GPGSA,A,1,,,,,,,,,,,,,,,")], false),
        // NMEA 4.1: status V but a valid mode indicator is a fix.
        ([sentence("GNRMC,081836,V,3751.65,S,14507.36,E,0,0,130998,,,D,V")], true),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,0,0,130998,,")], true),
        ([sentence("GPGLL,3751.65,S,14507.36,E,081836,A,A"), sentence("GPZDA,081836,13,09,1998,00,00")], true),
        ([sentence("GPGLL,3751.65,S,14507.36,E,081836,V,N"), sentence("GPZDA,081836,13,09,1998,00,00")], false),
        ([sentence("GNGNS,081836,3751.65,S,14507.36,E,AN,08,0.9,545.4,46.9,,"), sentence("GPZDA,081836,13,09,1998,00,00")], true),
        ([sentence("GNGNS,081836,3751.65,S,14507.36,E,NN,08,0.9,545.4,46.9,,"), sentence("GPZDA,081836,13,09,1998,00,00")], false),
    ])
    func validity(lines: [String], isFix: Bool) {
        let readings = run(lines).readings
        #expect(readings.contains { $0.fix != nil } == isFix)
        if !isFix { #expect(readings.contains { if case .noFix = $0 { true } else { false } }) }
    }

    /// A fix the receiver dead-reckoned itself is still a fix, marked estimated; one sentence saying so is enough,
    /// whatever the others say (a receiver sends RMC `A` with mode `E` and GGA quality 6 together, or only one).
    @Test(arguments: [
        ([sentence("GPGGA,081836,3751.65,S,14507.36,E,6,00,,,M,,M,,"), sentence("GPZDA,081836,13,09,1998,00,00")], true),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,12.4,90,130998,,,E")], true),
        ([sentence("GNRMC,081836,V,3751.65,S,14507.36,E,12.4,90,130998,,,E,V")], true),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,12.4,90,130998,,,A"), sentence("GPGGA,081836,3751.65,S,14507.36,E,6,04,,,M,,M,,")], true),
        ([sentence("GPVTG,90,T,,M,24.1,N,44.6,K,E"), sentence("GPRMC,081836,A,3751.65,S,14507.36,E,12.4,90,130998,,,A")], true),
        ([sentence("GPGLL,3751.65,S,14507.36,E,081836,A,E"), sentence("GPZDA,081836,13,09,1998,00,00")], true),
        ([sentence("GNGNS,081836,3751.65,S,14507.36,E,EE,00,,,,,"), sentence("GPZDA,081836,13,09,1998,00,00")], true),
        // One constellation measured is a GNSS fix, not the receiver's estimate.
        ([sentence("GNGNS,081836,3751.65,S,14507.36,E,AE,08,0.9,545.4,46.9,,"), sentence("GPZDA,081836,13,09,1998,00,00")], false),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,12.4,90,130998,,,A"), sentence("GPGGA,081836,3751.65,S,14507.36,E,1,08,0.9,,M,,M,,")], false),
        ([sentence("GPRMC,081836,A,3751.65,S,14507.36,E,12.4,90,130998,,,D")], false),
    ])
    func estimatedFixes(lines: [String], estimated: Bool) throws {
        let fix = try #require(run(lines).readings.compactMap(\.fix).last, "no fix from \(lines)")
        #expect(fix.quality.estimated == estimated)
    }

    @Test func anEstimatedEpochDoesNotMarkTheNext() throws {
        let readings = run([
            sentence("GPRMC,081836,A,3751.65,S,14507.36,E,12.4,90,130998,,,E"),
            sentence("GPRMC,081837,A,3751.64,S,14507.36,E,12.4,90,130998,,,A"),
        ]).readings.compactMap(\.fix)
        #expect(readings.map(\.quality.estimated) == [true, false])
    }

    @Test func speedFromVTGAndCourseAbsentWhenEmpty() throws {
        let vtg = sentence("GPVTG,,T,,M,10.0,N,18.5,K,A")
        let rmc = sentence("GPRMC,081836.00,A,3751.65,S,14507.36,E,,,130998,,,A")
        let fix = try #require(run([rmc, vtg]).readings.last?.fix)
        #expect(fix.location.course == nil)
        #expect(abs((fix.location.speed?.metersPerSecond ?? 0) - 5.144444) < 1e-5)
    }

    @Test func twoDigitYearsAndZDA() throws {
        let old = try #require(run([sentence("GPRMC,000000,A,3751.65,S,14507.36,E,,,010199,,,A")]).readings.last?.fix)
        #expect(ISO8601Timestamp.format(old.location.timestamp) == "1999-01-01T00:00:00.000Z")
        let zda = [sentence("GPZDA,235959.50,31,12,2025,00,00"), sentence("GPGGA,235959.50,3751.65,S,14507.36,E,1,08,0.9,545.4,M,46.9,M,,")]
        let fix = try #require(run(zda).readings.last?.fix)
        #expect(ISO8601Timestamp.format(fix.location.timestamp) == "2025-12-31T23:59:59.500Z")
    }

    @Test func theDateCarriesAcrossMidnight() throws {
        let lines = [
            sentence("GPRMC,235959,A,3751.65,S,14507.36,E,,,311225,,,A"),
            sentence("GPGGA,000000,3751.65,S,14507.36,E,1,08,0.9,545.4,M,46.9,M,,"),
        ]
        let fixes = run(lines).readings.compactMap(\.fix)
        #expect(fixes.map { ISO8601Timestamp.format($0.location.timestamp) } == ["2025-12-31T23:59:59.000Z", "2026-01-01T00:00:00.000Z"])
    }

    @Test func weekRolloverIsCorrectedByPolicy() throws {
        // A receiver that lost a 1024-week cycle reports 2006-07-28 for 2026-03-13.
        let line = sentence("GPRMC,120000,A,3751.65,S,14507.36,E,,,280706,,,A")
        let raw = try #require(run([line], rollover: .none).readings.last?.fix)
        #expect(ISO8601Timestamp.format(raw.location.timestamp) == "2006-07-28T12:00:00.000Z")
        let corrected = try #require(run([line], rollover: .gpsdDefault).readings.last?.fix)
        #expect(ISO8601Timestamp.format(corrected.location.timestamp) == "2026-03-13T12:00:00.000Z")
        // Dates after the threshold are left alone.
        let recent = try #require(run([sentence("GPRMC,120000,A,3751.65,S,14507.36,E,,,120419,,,A")], rollover: .gpsdDefault).readings.last?.fix)
        #expect(ISO8601Timestamp.format(recent.location.timestamp) == "2019-04-12T12:00:00.000Z")
    }

    @Test func badChecksumsAndGarbageAreDroppedAndCounted() {
        let lines = [
            "$GPGGA,081836.00,3751.65,S,14507.36,E,1,08,0.9,545.4,M,46.9,M,,*00", "random noise", "\u{0}\u{ff}",
            Self.rmc, sentence("PGRME,15.0,M,45.0,M,25.0,M"),
        ]
        let (readings, statistics) = run(lines)
        #expect(statistics.badChecksums == 1)
        #expect(statistics.garbageLines == 2)
        #expect(statistics.sentences == 2)
        #expect(statistics.ignoredSentences == 1)
        #expect(readings.compactMap(\.fix).count == 1)
    }

    @Test func arbitraryBytesNeverTrap() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...400)) { bytes in
            var assembler = NMEAEpochAssembler()
            let readings = assembler.append(bytes) + assembler.finish()
            for fix in readings.compactMap(\.fix) {
                #expect(fix.location.coordinate.isValid)
            }
        }
    }

    @Test func mutatedRealSentencesNeverTrap() async {
        let base = Array((Self.rmc + "\r\n" + Self.gga + "\r\n" + Self.gsa + "\r\n").utf8)
        await propertyCheck(count: 300, input: Gen.int(in: 0...(base.count - 1)).array(of: 1...8), Gen.uint8().array(of: 8)) { positions, values in
            var bytes = base
            for (p, v) in zip(positions, values) { bytes[p] = v }
            var assembler = NMEAEpochAssembler()
            let readings = assembler.append(bytes) + assembler.finish()
            #expect(readings.compactMap(\.fix).allSatisfy { $0.location.coordinate.isValid && $0.location.horizontalAccuracy.isFinite })
        }
    }
}

/// One reading per receiver epoch, leaving when the epoch's last sentence is parsed once the cycle is learned.
@Suite("NMEA receiver cycles")
struct NMEACycleTests {
    /// Five epochs of a receiver, 1 Hz or 10 Hz.
    static func epochs(_ profile: NMEAReceiverProfile, rate: Double) -> [[String]] {
        (0..<5).map { i in
            let fix = UserLocation(
                coordinate: GeographicCoordinate(latitude: 60.17 + Double(i) * 1e-4, longitude: 24.94), horizontalAccuracy: 6.4,
                course: CourseOverGround(degrees: 12), speed: Speed(metersPerSecond: 11),
                timestamp: Date(timeIntervalSince1970: 1_780_000_000 + Double(i) / rate))
            return NMEAWriter.sentences(for: fix, profile: profile)
        }
    }

    @Test(arguments: NMEAReceiverProfile.allCases, [1.0, 10.0])
    func oneReadingPerEpochAtItsLastSentence(profile: NMEAReceiverProfile, rate: Double) throws {
        let epochs = Self.epochs(profile, rate: rate)
        var assembler = NMEAEpochAssembler(rollover: .none)
        // For each reading: the epoch and the sentence within it that let it out.
        var emissions: [(epoch: Int, sentence: Int, reading: GNSSReading)] = []
        for (e, lines) in epochs.enumerated() {
            for (s, line) in lines.enumerated() {
                for reading in assembler.append(Array((line + "\r\n").utf8)) { emissions.append((e, s, reading)) }
            }
        }
        for reading in assembler.finish() { emissions.append((epochs.count, 0, reading)) }
        let fixes = emissions.compactMap(\.reading.fix)
        #expect(fixes.count == epochs.count, "one fix per epoch")
        #expect(Set(fixes.map(\.location.timestamp)).count == epochs.count, "no epoch twice")
        // The first epoch leaves when the second begins; from the second on, at the epoch's own last sentence.
        #expect(emissions[0].epoch == 1 && emissions[0].sentence == 0)
        for e in 1..<epochs.count {
            #expect(emissions[e].epoch == e && emissions[e].sentence == epochs[e].count - 1, "epoch \(e) of \(profile)")
        }
        // Everything the epoch said.
        let last = try #require(fixes.last)
        #expect(abs((last.location.speed?.metersPerSecond ?? 0) - 11) < 0.01)
        #expect(last.location.course?.degrees == 12)
        switch profile {
        case .rmcOnly:
            #expect(last.quality.hdop == nil)
            #expect(abs(last.location.horizontalAccuracy - NMEAAccuracy.accuracy68(hdop: NMEAAccuracy.assumedHDOP)) < 1e-9)
        case .withGST:
            #expect(abs(last.location.horizontalAccuracy - 6.4) < 0.05, "GST's sigmas, not HDOP")
        case .rmcThenGGA, .ggaFirst:
            #expect(last.quality.altitude == 10)
            #expect(abs(last.location.horizontalAccuracy - 6.4) < 0.25, "HDOP × UERE")
        }
        #expect(assembler.cycleEnd != nil)
    }

    /// A receiver whose cycle varies (a second GSA in some epochs): a too-early end is noticed, the late sentence
    /// changes nothing already sent, and the cycle is learned again.
    @Test func aCycleLearnedTooEarlyIsLearnedAgain() {
        func epoch(_ t: Int, gsas: Int) -> [String] {
            let time = String(format: "0818%02d.00", t)
            return [
                sentence("GPRMC,\(time),A,3751.65,S,14507.36,E,12.4,360.0,130998,011.3,E,A"),
                sentence("GPGGA,\(time),3751.65,S,14507.36,E,1,08,0.9,545.4,M,46.9,M,,"),
            ] + Array(repeating: sentence("GNGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"), count: gsas)
        }
        let lines = epoch(10, gsas: 1) + epoch(11, gsas: 1) + epoch(12, gsas: 2) + [sentence("GPGST,081812.00,1.2,3.0,2.0,45.0,2.0,3.0,4.0")]
            + epoch(13, gsas: 2) + epoch(14, gsas: 2)
        let readings = run(lines).readings
        let times = readings.compactMap(\.fix).map { ISO8601Timestamp.format($0.location.timestamp) }
        #expect(times == (10...14).map { "1998-09-13T08:18:\($0).000Z" })
    }

    /// A live source tells the assembler when the receiver went quiet: the first epoch leaves then, not one
    /// epoch late, and teaches the cycle.
    @Test func quietAfterABurstEndsTheEpoch() {
        let epochs = Self.epochs(.rmcThenGGA, rate: 1)
        var assembler = NMEAEpochAssembler(rollover: .none)
        var readings = epochs[0].flatMap { assembler.append(Array(($0 + "\r\n").utf8)) }
        #expect(readings.isEmpty, "the first epoch's end is not known yet")
        #expect(assembler.hasPendingEpoch)
        readings = assembler.flush()
        #expect(readings.compactMap(\.fix).count == 1)
        #expect(!assembler.hasPendingEpoch)
        #expect(assembler.flush().isEmpty, "nothing twice")
        // The next epoch leaves at its GGA, the end learned from the quiet.
        #expect(assembler.append(Array((epochs[1][0] + "\r\n").utf8)).isEmpty)
        #expect(assembler.append(Array((epochs[1][1] + "\r\n").utf8)).compactMap(\.fix).count == 1)
    }

    @Test func anEpochWithoutAPositionIsOneNoFix() {
        let lines = (0..<4).flatMap { t in
            [sentence("GPRMC,08181\(t),V,,,,,,,130998,,,N"), sentence("GPGGA,08181\(t),,,,,0,00,,,M,,M,,")]
        }
        let readings = run(lines).readings
        #expect(readings.count == 4)
        #expect(readings.allSatisfy { $0.fix == nil })
    }
}
