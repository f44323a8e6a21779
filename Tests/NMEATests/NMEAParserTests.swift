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
}

@Suite("NMEA epoch assembly")
struct NMEAEpochTests {
    static let rmc = sentence("GPRMC,081836.00,A,3751.65,S,14507.36,E,12.4,360.0,130998,011.3,E,A")
    static let gga = sentence("GPGGA,081836.00,3751.65,S,14507.36,E,1,08,0.9,545.4,M,46.9,M,,")
    static let gsa = sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")

    @Test func emitsAsSoonAsThePositionIsKnownInEitherOrder() throws {
        for order in [[Self.rmc, Self.gga, Self.gsa], [Self.gga, Self.rmc, Self.gsa], [Self.gsa, Self.gga, Self.rmc]] {
            var assembler = NMEAEpochAssembler(rollover: .none)
            var emittedAt: Int?
            for (i, line) in order.enumerated() where emittedAt == nil {
                if !assembler.append(Array((line + "\r\n").utf8)).isEmpty { emittedAt = i }
            }
            // The first sentence with a position and a date emits (GGA alone has no date yet).
            let expected = order.firstIndex(of: Self.rmc)!
            #expect(emittedAt == expected, "\(order.map { $0.dropFirst(3).prefix(3) })")
        }
    }

    @Test func theLastEmissionOfAnEpochHasEverything() throws {
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
        ([sentence("GPGSA,A,1,,,,,,,,,,,,,,,"), sentence("GPRMC,081836,A,3751.65,S,14507.36,E,0,0,130998,,,A")], false),
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
