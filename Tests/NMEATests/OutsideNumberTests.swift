import Foundation
import NavigationCore
import NMEA
import Testing

/// Numbers from a receiver pass one checked conversion with a physical range (NMEAFieldRules, CheckedNumber):
/// a sentence with a field out of its format or range is dropped and its epoch is no fix. Each of these
/// sentences carries a valid checksum; before the rules, the first trapped the process and the others became
/// fixes with impossible numbers.
@Suite("Numbers from a receiver")
struct OutsideNumberTests {
    /// A good epoch (RMC + GGA at 12:00:00) and the next one at 12:00:01 with one field replaced.
    static let good = [
        sentence("GPRMC,120000.00,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A"),
        sentence("GPGGA,120000.00,6010.0000,N,02456.0000,E,1,08,0.9,12.0,M,17.0,M,,"),
    ]

    static let crafted: [(String, String)] = [
        ("an exponent in the time (seen: trapped in ISO8601Timestamp.format)", "GPRMC,120001.1e20,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A"),
        ("HDOP 1e300 (seen: a fix with accuracy 4e300)", "GPGGA,120001.00,6010.0000,N,02456.0000,E,1,08,1e300,12.0,M,17.0,M,,"),
        ("HDOP past NMEA's 99.99", "GPGGA,120001.00,6010.0000,N,02456.0000,E,1,08,150.0,12.0,M,17.0,M,,"),
        ("a speed of 1e300 knots", "GPRMC,120001.00,A,6010.0000,N,02456.0000,E,1e300,45.0,241126,,,A"),
        ("a speed past the COCOM limit", "GPRMC,120001.00,A,6010.0000,N,02456.0000,E,5000.0,45.0,241126,,,A"),
        ("a course of nan", "GPRMC,120001.00,A,6010.0000,N,02456.0000,E,10.0,nan,241126,,,A"),
        ("a negative speed", "GPRMC,120001.00,A,6010.0000,N,02456.0000,E,-10.0,45.0,241126,,,A"),
        ("an altitude of 1e300", "GPGGA,120001.00,6010.0000,N,02456.0000,E,1,08,0.9,1e300,M,17.0,M,,"),
        ("a satellite count of 2^63", "GPGGA,120001.00,6010.0000,N,02456.0000,E,1,9223372036854775808,0.9,12.0,M,17.0,M,,"),
        ("a GST error of 1e300 m", "GPGST,120001.00,1.0,1e300,1e300,0.0,1e300,1e300,2.0"),
        ("a ZDA year of 99999999", "GPZDA,120001.00,24,11,99999999,00,00"),
        ("a ZDA year with an exponent", "GPZDA,120001.00,24,11,2e3,00,00"),
        ("a VTG speed of 1e300 km/h", "GPVTG,45.0,T,,M,,N,1e300,K,A"),
        ("a GSV count of 999999999", "GPGSV,1,1,999999999,01,40,083,46"),
    ]

    /// The crafted sentence sits inside the second epoch (12:00:01) between its RMC and GGA; a third epoch
    /// closes it. The second epoch is no fix; the first and third are untouched.
    @Test(arguments: crafted)
    func outOfRangeIsNoFix(name: String, body: String) throws {
        let lines = Self.good + [
            sentence("GPRMC,120001.00,A,6010.0010,N,02456.0010,E,10.0,45.0,241126,,,A"), sentence(body),
            sentence("GPGGA,120001.00,6010.0010,N,02456.0010,E,1,08,0.9,12.0,M,17.0,M,,"),
            sentence("GPRMC,120002.00,A,6010.0020,N,02456.0020,E,10.0,45.0,241126,,,A"),
        ]
        let (readings, statistics) = run(lines)
        #expect(statistics.rejectedSentences == 1, "\(name)")
        // Every reading's time can be written (the trap of the issue).
        for reading in readings {
            if case .noFix(_, let time?) = reading { #expect(ISO8601Timestamp.format(time).hasPrefix("2026-11-24")) }
        }
        let fixes = readings.compactMap(\.fix)
        let times = fixes.map { ISO8601Timestamp.format($0.location.timestamp) }
        // A time that cannot be read cannot be placed: that sentence alone is dropped.
        let unplaceable = body.hasPrefix("GPRMC,120001.1e20")
        #expect(times == (unplaceable
            ? ["2026-11-24T12:00:00.000Z", "2026-11-24T12:00:01.000Z", "2026-11-24T12:00:02.000Z"]
            : ["2026-11-24T12:00:00.000Z", "2026-11-24T12:00:02.000Z"]), "\(name)")
        #expect(fixes.allSatisfy { $0.location.horizontalAccuracy < 100 && ($0.location.speed?.metersPerSecond ?? 0) < 10 })
    }

    /// A position with an exponent is no position from that sentence (receivers also repeat impossible
    /// positions in "no fix" sentences, so a position alone does not reject a sentence).
    @Test func anExponentInAPositionIsNoPosition() throws {
        let lines = [
            sentence("GPRMC,120000.00,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A"),
            sentence("GPGGA,120000.00,6010e-1,N,02456.0000,E,1,08,0.9,12.0,M,17.0,M,,"),
        ]
        let fix = try #require(run(lines).readings.compactMap(\.fix).first)
        #expect(abs(fix.location.coordinate.latitude - (60 + 10.0 / 60)) < 1e-9)
    }

    /// The sentence through the whole stream, as `navctl gnss --nmea FILE` reads it: no trap, no fix.
    @Test func theSeenSentenceAlone() {
        let (readings, statistics) = run([sentence("GPRMC,120000.1e20,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A")])
        #expect(readings.allSatisfy { $0.fix == nil })
        #expect(statistics.rejectedSentences == 1)
    }

    /// A receiver that sends checksums sends them on every sentence: one without is noise (a lost `*hh`).
    @Test func aMissingChecksumAfterChecksumsIsRejected() {
        let lines = Self.good + ["$GPRMC,120001.00,A,6010.0010,N,02456.0010,E,10.0,45.0,241126,,,A"]
        let (readings, statistics) = run(lines)
        #expect(statistics.rejectedSentences == 1)
        #expect(readings.compactMap(\.fix).count == 1)
    }

    /// A receiver that never sends checksums is read as before.
    @Test func aReceiverWithoutChecksumsIsRead() {
        let lines = ["$GPRMC,120000.00,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A", "$GPRMC,120001.00,A,6010.0010,N,02456.0010,E,10.0,45.0,241126,,,A"]
        let (readings, statistics) = run(lines)
        #expect(statistics.rejectedSentences == 0)
        #expect(statistics.sentencesWithoutChecksum == 2)
        #expect(readings.compactMap(\.fix).count == 2)
    }

    /// Numbers at the edges of their ranges are fixes: the rules keep out the impossible, not the unusual.
    @Test func edgesOfTheRangesAreAccepted() throws {
        let lines = [
            sentence("GPRMC,235959.999,A,8959.9999,N,17959.9999,W,999.9,360.0,241126,,,A"),
            sentence("GPGGA,235959.999,8959.9999,N,17959.9999,W,6,99,99.99,-400.0,M,17.0,M,,"),
        ]
        let (readings, statistics) = run(lines)
        #expect(statistics.rejectedSentences == 0)
        let fix = try #require(readings.compactMap(\.fix).first)
        #expect(fix.location.course?.degrees == 0)
        #expect(fix.quality.hdop == 99.99)
    }
}

@Suite("Receivers as they are in vehicles")
struct ReceiverDateTests {
    /// A date carried forward advances at every midnight, not only at the first (it stayed one day ahead).
    @Test func aCarriedDateAdvancesAtEveryMidnight() throws {
        var lines = [sentence("GPRMC,235959.00,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A")]
        // GGA only from here on: the date is carried through two midnights.
        for time in ["000000.00", "120000.00", "235959.00", "000000.00", "000001.00"] {
            lines.append(sentence("GPGGA,\(time),6010.0000,N,02456.0000,E,1,08,0.9,12.0,M,17.0,M,,"))
        }
        let times = run(lines).readings.compactMap { $0.fix.map { ISO8601Timestamp.format($0.location.timestamp) } }
        #expect(times == [
            "2026-11-24T23:59:59.000Z", "2026-11-25T00:00:00.000Z", "2026-11-25T12:00:00.000Z", "2026-11-25T23:59:59.000Z",
            "2026-11-26T00:00:00.000Z", "2026-11-26T00:00:01.000Z",
        ])
    }

    /// GGA-only receivers (no RMC, no ZDA) are dated from the host's clock, which the source hands in.
    @Test(arguments: [
        // Host time, receiver time of day, expected date: the day that puts the two nearest.
        ("2026-11-25T10:00:05.000Z", "100000.00", "2026-11-25T10:00:00.000Z"),
        ("2026-11-25T00:00:02.000Z", "235959.00", "2026-11-24T23:59:59.000Z"),
        ("2026-11-24T23:59:58.000Z", "000001.00", "2026-11-25T00:00:01.000Z"),
    ])
    func ggaOnlyReceiversAreDatedByTheHost(host: String, time: String, expected: String) throws {
        var assembler = NMEAEpochAssembler(rollover: .none)
        assembler.hostTime = try #require(ISO8601Timestamp.parse(host))
        var readings = assembler.append(Array((sentence("GPGGA,\(time),6010.0000,N,02456.0000,E,1,08,0.9,12.0,M,17.0,M,,") + "\r\n").utf8))
        readings += assembler.finish()
        let fix = try #require(readings.compactMap(\.fix).first)
        #expect(ISO8601Timestamp.format(fix.location.timestamp) == expected)
    }

    @Test func ggaOnlyWithoutAHostClockIsNoFix() {
        let readings = run([sentence("GPGGA,100000.00,6010.0000,N,02456.0000,E,1,08,0.9,12.0,M,17.0,M,,")]).readings
        #expect(readings.allSatisfy { $0.fix == nil })
    }

    /// A GSA saying "no fix" sent after the previous epoch's end must not veto the next epoch's valid RMC and
    /// GGA: the first fix after reacquisition used to be lost.
    @Test func aStaleNoFixGSADoesNotVetoTheNextEpoch() throws {
        let lines = [
            sentence("GPRMC,120000.00,V,,,,,,,241126,,,N"),
            sentence("GPGGA,120000.00,,,,,0,00,99.99,,M,,M,,"),
            sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"),
            // Reacquired: this epoch's GSA comes after its RMC and GGA, so the old one is what it carries first.
            sentence("GPRMC,120001.00,A,6010.0000,N,02456.0000,E,10.0,45.0,241126,,,A"),
            sentence("GPGGA,120001.00,6010.0000,N,02456.0000,E,1,05,1.9,12.0,M,17.0,M,,"),
            sentence("GPGSA,A,3,01,02,03,04,05,,,,,,,,2.5,1.9,1.6"),
            sentence("GPRMC,120002.00,A,6010.0010,N,02456.0010,E,10.0,45.0,241126,,,A"),
        ]
        let fixes = run(lines).readings.compactMap(\.fix)
        #expect(fixes.map { ISO8601Timestamp.format($0.location.timestamp) } == ["2026-11-24T12:00:01.000Z", "2026-11-24T12:00:02.000Z"])
    }

    /// A "no fix" GSA after the epoch's own sentences still counts.
    @Test func aNoFixGSAInsideTheEpochStillCounts() {
        let lines = [
            sentence("GPGGA,120001.00,6010.0000,N,02456.0000,E,1,05,1.9,12.0,M,17.0,M,,"),
            sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"),
        ]
        #expect(run(lines).readings.allSatisfy { $0.fix == nil })
    }
}
