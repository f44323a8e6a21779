import FoundationEssentials
import Glibc
import NavigationCore

/// Counts of what a parser has seen, for diagnostics ("garbage and bad checksums are dropped and counted").
public struct NMEAStatistics: Hashable, Sendable, Codable {
    /// Sentences accepted (checksum good or absent).
    public var sentences = 0
    /// Sentences dropped for a bad checksum.
    public var badChecksums = 0
    /// Lines that were not sentences at all (noise, binary data).
    public var garbageLines = 0
    /// Lines longer than the maximum, dropped.
    public var overlongLines = 0
    /// Sentences accepted without a checksum.
    public var sentencesWithoutChecksum = 0
    /// Accepted sentences of types navd does not use (proprietary, navigation, ...).
    public var ignoredSentences = 0
    /// Sentences dropped because a field navd reads is malformed or outside its physical range
    /// (`NMEAFieldRules`), or because the sentence lacks the checksum that the receiver's other sentences carry.
    /// The epoch such a sentence arrives in is reported as no fix.
    public var rejectedSentences = 0

    public init() {}
}

/// Groups sentences into receiver cycles (epochs, by UTC time) and turns each epoch into exactly one reading.
///
/// **One reading per epoch, on time**: like gpsd, the assembler learns which sentence ends the receiver's cycle
/// (the last one before the time changes: its address and how many of that address came before it in the epoch;
/// for GSV, the last message of a group). Once learned (the end of the first epoch seen teaches it, so from the
/// second epoch on), the epoch's reading is emitted as soon as that sentence is parsed. Until then, and whenever a
/// receiver skips its usual last sentence, the epoch is emitted when the next epoch's first timed sentence arrives
/// (or on ``finish()``), and the cycle is learned again from what was seen. When the learned end was too early
/// (a sentence of the emitted epoch's time still follows), the late sentences update nothing already sent and the
/// cycle is learned again. The reading carries everything the epoch said: position, time, speed and course (RMC,
/// VTG), accuracy (GST when present, else HDOP × UERE, see ``NMEAAccuracy``), altitude, satellites, fix type. An
/// epoch without a valid position is one ``GNSSReading/noFix(_:time:)``.
///
/// **Validity**: GGA quality 0 (and 7, manual input; 8, simulation), RMC and GLL status `V`, GSA mode 1 and the
/// NMEA 2.3/4.1 mode indicator `N` mean no fix: receivers keep repeating their last position with these, and it
/// is not a fix. Status `V` with a valid mode indicator (`A`, `D`, `P`, `R`, `F`, `E`) is a fix (some NMEA 4.1
/// receivers report so). A fix the receiver says it estimated (GGA quality 6; mode indicator `E`) is a fix marked
/// ``GNSSQuality/estimated``: its position and speed come from the receiver's own dead reckoning. The fix mode is GSA's when the epoch has one; otherwise 3D when GGA or GNS give an
/// altitude with a valid quality, else 2D. A fix stated by RMC, GGA, GNS or GLL supersedes a "no fix" GSA that
/// came before it in the epoch. A sentence with a field out of its format or physical range (`NMEAFieldRules`),
/// or without the checksum the receiver's other sentences carry, is dropped and its epoch is no fix.
///
/// **Dates**: RMC's two-digit year (80–99 → 19xx, else 20xx) or ZDA's four-digit year; sentences without a date
/// use the last one seen, advanced past every midnight; a receiver that never sends a date (GGA-only) gets the
/// UTC day of ``hostTime`` nearest to its time of day. ``rollover`` decides whether dates 1024 weeks in the past are
/// corrected (see docs/gnss.md).
public struct NMEAEpochAssembler: Sendable {
    public var rollover: GPSWeekRollover
    public private(set) var statistics = NMEAStatistics()
    /// The sentence learned to end the receiver's cycle, or nil while it is being learned.
    public private(set) var cycleEnd: CycleMark?

    private var splitter = NMEALineSplitter()
    private var epoch = Epoch()
    /// The epoch last emitted at its learned end, kept to recognise an end learned too early.
    private var lastEmittedAtEnd: Epoch?
    /// The last date seen (days since 1970) and the time of day it applied to, for sentences without a date.
    private var lastDate: (days: Int64, timeOfDay: Double)?
    /// The mode of the previous epoch that had a fix, for epochs whose sentences cannot tell 2D from 3D.
    private var previousMode: GNSSFixMode?
    /// True once a sentence with a checksum has been seen: from then on, one without is line noise.
    private var receiverSendsChecksums = false

    /// The host's clock at the time of the bytes being appended, set by the source (the edge reads the clock;
    /// the assembler never does). Receivers that never send a date (GGA-only) get the date from it: the UTC
    /// day that puts the receiver's time of day nearest to this time, as gpsd does with the system clock.
    public var hostTime: Date?

    public init(rollover: GPSWeekRollover = .gpsdDefault) {
        self.rollover = rollover
    }

    /// Everything known about the current epoch.
    struct Epoch: Sendable {
        var timeOfDay: Double?
        var dateDays: Int64?
        var latitude: Double?
        var longitude: Double?
        var positionValid = false
        var ggaQuality: Int?
        var gsaMode: Int?
        /// True when a sentence of this epoch said the receiver estimated the position itself (dead reckoning: GGA
        /// quality 6, mode indicator `E` in RMC, GLL or VTG, or `E` for every constellation of GNS).
        var estimated = false
        /// True when a sentence of this epoch was rejected (``NMEAStatistics/rejectedSentences``): no fix.
        var rejected = false
        var hasAltitude = false
        var altitude: Double?
        var speedKnots: Double?
        var course: Double?
        var satellitesUsed: Int?
        var gsaSatellites = 0
        var satellitesInView: Int?
        var signalSum = 0.0
        var signalCount = 0
        var hdop: Double?
        var gstSigmas: (lat: Double, lon: Double)?
        /// True once this epoch's reading has left.
        var emitted = false
        var sawTimedSentence = false
        /// How many sentences of each address this epoch has had (a handful of addresses: a list, not a table).
        var occurrences: [(address: String, count: Int)] = []
        /// The place in the cycle of the last sentence fed into this epoch.
        var lastMark: CycleMark?
    }

    /// Feeds raw bytes (any chunking) and returns the readings they complete.
    public mutating func append<C: Collection>(_ bytes: C) -> [GNSSReading] where C.Element == UInt8 {
        var readings: [GNSSReading] = []
        for line in splitter.append(bytes) { readings += feed(line: line) }
        statistics.overlongLines = splitter.overlongLines
        return readings
    }

    /// Feeds raw bytes read into memory (a receiver's read buffer): ``append(_:)`` made for them in this module, so
    /// that a caller in another module does not run the generic one, a witness-table call per byte and the runtime's
    /// generic metadata looked up on every read (`perf`: the epoch's assembly was as costly as the navigation step).
    public mutating func append(bytes: UnsafeRawBufferPointer) -> [GNSSReading] {
        append(bytes)
    }

    /// Feeds one line.
    public mutating func feed<C: Collection>(line: C) -> [GNSSReading] where C.Element == UInt8 {
        let sentence: NMEASentence
        do {
            sentence = try NMEASentence.parse(line)
        } catch .badChecksum {
            statistics.badChecksums += 1
            return []
        } catch {
            statistics.garbageLines += 1
            return []
        }
        if sentence.hadChecksum {
            receiverSendsChecksums = true
        } else if receiverSendsChecksums {
            // A receiver sends checksums on every sentence or on none: a '*' lost to noise is not a clean sentence.
            // Nothing in it can be trusted, its time included, so it is dropped without touching any epoch.
            statistics.rejectedSentences += 1
            return []
        }
        statistics.sentences += 1
        if !sentence.hadChecksum { statistics.sentencesWithoutChecksum += 1 }
        return feed(sentence)
    }

    /// The receiver has gone quiet (a live source saw no bytes for a while): the epoch in progress is complete.
    /// Its reading leaves now, and its last sentence is learned as the end of the cycle. A receiver that sends
    /// its epoch in one burst once a second is then on time from its first epoch, and one whose cycle varies
    /// waits for the quiet after its burst rather than for the next epoch. Sentences of the same epoch that still
    /// come join it without a second reading.
    public mutating func flush() -> [GNSSReading] {
        guard epoch.sawTimedSentence, !epoch.emitted else { return [] }
        var readings: [GNSSReading] = []
        if let mark = epoch.lastMark { cycleEnd = mark }
        closeEpoch(into: &readings, learning: false)
        return readings
    }

    /// True while an epoch has sentences whose reading has not left yet.
    public var hasPendingEpoch: Bool { epoch.sawTimedSentence && !epoch.emitted }

    /// Ends the input: the last epoch, if it had no position, is reported as no fix.
    public mutating func finish() -> [GNSSReading] {
        var readings: [GNSSReading] = []
        closeEpoch(into: &readings, learning: false)
        return readings
    }

    // MARK: - Sentences

    public mutating func feed(_ s: NMEASentence) -> [GNSSReading] {
        var readings: [GNSSReading] = []
        guard NMEAFieldRules.accepts(s) else {
            statistics.rejectedSentences += 1
            // A timed sentence spoils the epoch of its time; an untimed one (GSA, VTG, GSV) the epoch it arrives in,
            // as its other fields would have. One whose time itself is unreadable cannot be placed: it is dropped.
            if let field = NMEAFieldRules.timeField(of: s.kind) {
                guard let time = NMEAFields.timeOfDay(s.bytes(ofField: field)) else { return readings }
                startEpochIfNeeded(time, into: &readings)
            }
            epoch.rejected = true
            return readings
        }
        read(s, into: &readings)
        let mark = markOf(s)
        epoch.lastMark = mark
        if epoch.sawTimedSentence, !epoch.emitted, mark == cycleEnd {
            closeEpoch(into: &readings, learning: false)
        }
        return readings
    }

    /// Where `s` stands in the epoch: its address and how many of that address came before; the last message of
    /// a GSV group is marked as such (groups grow and shrink with the satellites in view).
    private mutating func markOf(_ s: NMEASentence) -> CycleMark {
        let address = s.address
        if s.kind == .gsv { return CycleMark(address: address, occurrence: s.bytes(ofField: 0) == s.bytes(ofField: 1) ? 0 : -1) }
        return CycleMark(address: address, occurrence: epoch.count(address))
    }

    private mutating func read(_ s: NMEASentence, into readings: inout [GNSSReading]) {
        func field(_ index: Int) -> NMEAField { s.bytes(ofField: index) }
        func letter(_ index: Int) -> UInt8? { s.bytes(ofField: index).first }
        // Status `A`: data valid.
        func isActive(_ index: Int) -> Bool { s.field(index, is: UInt8(ascii: "A")) }
        switch s.kind {
        case .rmc:
            startEpochIfNeeded(NMEAFields.timeOfDay(field(0)), into: &readings)
            if let date = NMEAFields.date(field(8)) { setDate(date) }
            let modeIndicator = letter(11)
            let valid = isActive(1) ? modeIndicator != UInt8(ascii: "N") : Self.validModeIndicator(modeIndicator)
            if modeIndicator == UInt8(ascii: "E") { epoch.estimated = true }
            setPosition(lat: NMEAFields.latitude(field(2), field(3)), lon: NMEAFields.longitude(field(4), field(5)), valid: valid)
            if valid {
                if let knots = NMEAFields.number(field(6)) { epoch.speedKnots = knots }
                if let course = NMEAFields.number(field(7)) { epoch.course = course }
            }
        case .gga:
            startEpochIfNeeded(NMEAFields.timeOfDay(field(0)), into: &readings)
            let quality = NMEAFields.integer(field(5))
            epoch.ggaQuality = quality
            if quality == 6 { epoch.estimated = true }
            readFixSentence(s, valid: quality.map { (1...6).contains($0) } ?? false)
        case .gns:
            startEpochIfNeeded(NMEAFields.timeOfDay(field(0)), into: &readings)
            // One mode indicator per constellation; any valid one makes a fix.
            let modes = field(5)
            readFixSentence(s, valid: modes.contains { Self.validModeIndicator($0) })
            if modes.contains(UInt8(ascii: "E")), !modes.contains(where: { Self.validModeIndicator($0) && $0 != UInt8(ascii: "E") }) {
                epoch.estimated = true
            }
        case .gll:
            startEpochIfNeeded(NMEAFields.timeOfDay(field(4)), into: &readings)
            let modeIndicator = letter(6)
            let valid = isActive(5) ? modeIndicator != UInt8(ascii: "N") : Self.validModeIndicator(modeIndicator)
            if modeIndicator == UInt8(ascii: "E") { epoch.estimated = true }
            setPosition(lat: NMEAFields.latitude(field(0), field(1)), lon: NMEAFields.longitude(field(2), field(3)), valid: valid)
        case .gsa:
            if let mode = NMEAFields.integer(field(1)), (1...3).contains(mode) {
                // Several GSAs per epoch (one per constellation) report the same mode; keep the best.
                epoch.gsaMode = max(epoch.gsaMode ?? 0, mode)
            }
            for index in 2...13 where !field(index).isEmpty { epoch.gsaSatellites += 1 }
            if let hdop = NMEAFields.number(field(15)) { epoch.hdop = hdop }
        case .vtg:
            let modeIndicator = letter(8)
            if modeIndicator == UInt8(ascii: "E") { epoch.estimated = true }
            if modeIndicator != UInt8(ascii: "N") {
                if let course = NMEAFields.number(field(0)) { epoch.course = course }
                if let knots = NMEAFields.number(field(4)) {
                    epoch.speedKnots = knots
                } else if let kmh = NMEAFields.number(field(6)) {
                    epoch.speedKnots = kmh / 1.852
                }
            }
        case .gst:
            startEpochIfNeeded(NMEAFields.timeOfDay(field(0)), into: &readings)
            if let lat = NMEAFields.number(field(5)), let lon = NMEAFields.number(field(6)) { epoch.gstSigmas = (lat, lon) }
        case .zda:
            startEpochIfNeeded(NMEAFields.timeOfDay(field(0)), into: &readings)
            if let day = NMEAFields.integer(field(1)), let month = NMEAFields.integer(field(2)), let year = NMEAFields.integer(field(3)),
                (1...12).contains(month), (1...31).contains(day), year >= 1980
            {
                setDate((year, month, day))
            }
        case .sirfErrorEstimate:
            // SiRF's error estimate leads its epoch and carries the epoch's time: it opens the epoch.
            startEpochIfNeeded(NMEAFields.timeOfDay(field(0)), into: &readings)
        case .gsv:
            // Each constellation's GSV group reports its own count in its first message: the sum is all in view.
            if s.field(1, is: UInt8(ascii: "1")), let inView = NMEAFields.integer(field(2)) {
                // Bounded: each count is at most 255 (NMEAFieldRules), and an epoch's sum stops at 10 000.
                epoch.satellitesInView = min(10_000, (epoch.satellitesInView ?? 0) + inView)
            }
            // Then up to four satellites: PRN, elevation, azimuth, signal (dB-Hz, empty when not tracked). NMEA 4.1
            // appends a signal id, which leaves the block layout unchanged.
            for block in stride(from: 3, to: s.fieldCount - 3, by: 4) {
                if let snr = NMEAFields.integer(field(block + 3)), (0...99).contains(snr) {
                    epoch.signalSum += Double(snr)
                    epoch.signalCount += 1
                }
            }
            return
        case .other:
            statistics.ignoredSentences += 1
        }
    }

    /// GGA and GNS share their layout from field 1: position, (quality or modes), satellites used, HDOP, altitude.
    private mutating func readFixSentence(_ s: NMEASentence, valid: Bool) {
        setPosition(
            lat: NMEAFields.latitude(s.bytes(ofField: 1), s.bytes(ofField: 2)), lon: NMEAFields.longitude(s.bytes(ofField: 3), s.bytes(ofField: 4)),
            valid: valid)
        if let used = NMEAFields.integer(s.bytes(ofField: 6)) { epoch.satellitesUsed = used }
        if let hdop = NMEAFields.number(s.bytes(ofField: 7)) { epoch.hdop = hdop }
        if valid, let altitude = NMEAFields.number(s.bytes(ofField: 8)) {
            epoch.altitude = altitude
            epoch.hasAltitude = true
        }
    }

    /// A mode indicator that means a fix: autonomous, differential, precise, RTK (fixed or float), estimated.
    static func validModeIndicator(_ letter: UInt8?) -> Bool {
        switch letter {
        case UInt8(ascii: "A"), UInt8(ascii: "D"), UInt8(ascii: "P"), UInt8(ascii: "R"), UInt8(ascii: "F"), UInt8(ascii: "E"): true
        default: false
        }
    }

    // MARK: - Epochs

    private mutating func startEpochIfNeeded(_ timeOfDay: Double?, into readings: inout [GNSSReading]) {
        guard let timeOfDay else { return }
        if let current = epoch.timeOfDay, Self.sameTime(current, timeOfDay) { return }
        if !epoch.sawTimedSentence, let emitted = lastEmittedAtEnd, let time = emitted.timeOfDay, Self.sameTime(time, timeOfDay) {
            // The learned end came too early: this sentence belongs to the epoch already sent. It joins it (one
            // reading per epoch: nothing more is sent for it), and the cycle is learned again when it ends.
            let untimed = epoch
            epoch = emitted
            epoch.merge(untimed: untimed)
            lastEmittedAtEnd = nil
            cycleEnd = nil
            return
        }
        if epoch.sawTimedSentence { closeEpoch(into: &readings, learning: true) }
        let carried = epoch
        epoch = Epoch()
        // Untimed sentences (GSA, VTG) that arrived before this epoch's first timed sentence belong to it.
        epoch.merge(untimed: carried)
        epoch.timeOfDay = timeOfDay
        epoch.sawTimedSentence = true
        if let lastDate {
            // Carry the date forward, into the next day when the time of day wrapped around midnight. What is
            // carried becomes the last date, so that every midnight advances it, not only the first.
            let days = lastDate.days + (timeOfDay + 1 < lastDate.timeOfDay ? 1 : 0)
            epoch.dateDays = days
            self.lastDate = (days, timeOfDay)
        }
    }

    static func sameTime(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 0.0005 }

    /// Emits the epoch's reading unless it has left already, and starts an empty epoch. `learning`: the epoch
    /// ended because the next one began, so its last sentence is the cycle's end.
    private mutating func closeEpoch(into readings: inout [GNSSReading], learning: Bool) {
        if epoch.sawTimedSentence, !epoch.emitted {
            let reading = reading()
            if let fix = reading.fix { previousMode = fix.quality.mode }
            readings.append(reading)
            epoch.emitted = true
        }
        if learning {
            if let mark = epoch.lastMark { cycleEnd = mark }
            lastEmittedAtEnd = nil
        } else {
            lastEmittedAtEnd = epoch
        }
        epoch = Epoch()
    }

    private mutating func setDate(_ date: (year: Int, month: Int, day: Int)) {
        let days = ISO8601Timestamp.daysFromCivil(Int64(date.year), Int64(date.month), Int64(date.day))
        epoch.dateDays = days
        if let timeOfDay = epoch.timeOfDay { lastDate = (days, timeOfDay) }
    }

    private mutating func setPosition(lat: Double?, lon: Double?, valid: Bool) {
        guard valid, let lat, let lon else { return }
        // A fix stated by RMC, GGA, GNS or GLL supersedes a "no fix" GSA that came before it, as in gpsd, where
        // each sentence overwrites the mode: the GSA may be the previous epoch's (sent after that epoch's end),
        // and the first fix after reacquisition must not be lost to it. A "no fix" GSA after them still counts.
        if epoch.gsaMode == 1 { epoch.gsaMode = nil }
        epoch.latitude = lat
        epoch.longitude = lon
        epoch.positionValid = true
    }

    private func timestamp() -> Date? {
        guard let timeOfDay = epoch.timeOfDay, let days = epoch.dateDays ?? hostDays(for: timeOfDay) else { return nil }
        return rollover.apply(to: Date(timeIntervalSince1970: Double(days) * 86_400 + timeOfDay))
    }

    /// The UTC day (days since 1970) that puts `timeOfDay` nearest to ``hostTime``, for receivers without a date.
    private func hostDays(for timeOfDay: Double) -> Int64? {
        guard let host = hostTime?.timeIntervalSince1970, let hostSeconds = CheckedNumber.measure(host, in: PhysicalRange.unixTime) else { return nil }
        let hostDay = (hostSeconds / 86_400).rounded(.down)
        let hostTimeOfDay = hostSeconds - hostDay * 86_400
        var day = hostDay
        if timeOfDay - hostTimeOfDay > 43_200 { day -= 1 } else if hostTimeOfDay - timeOfDay > 43_200 { day += 1 }
        return Int64(day)
    }

    private func mode() -> GNSSFixMode {
        // GSA states the fix type; trust it over an inference from GGA's altitude field (receivers keep a held
        // altitude in GGA during 2D fixes). gpsd 3.22 reports 3D there: see docs/gnss.md.
        if let gsa = epoch.gsaMode { return GNSSFixMode(rawValue: gsa) ?? .noFix }
        if epoch.hasAltitude { return .threeDimensional }
        // Only RMC/GLL/VTG this epoch: they cannot tell 2D from 3D, so the previous epoch's mode stands.
        if epoch.ggaQuality == nil, let previousMode, previousMode >= .twoDimensional { return previousMode }
        return .twoDimensional
    }

    private func quality(mode: GNSSFixMode) -> GNSSQuality {
        var accuracy: Double?
        if let sigmas = epoch.gstSigmas {
            accuracy = NMEAAccuracy.accuracy68(latitudeSigma: sigmas.lat, longitudeSigma: sigmas.lon)
        } else if let hdop = epoch.hdop {
            accuracy = NMEAAccuracy.accuracy68(hdop: hdop)
        }
        return GNSSQuality(
            mode: mode, satellitesUsed: epoch.satellitesUsed ?? (epoch.gsaSatellites > 0 ? epoch.gsaSatellites : nil),
            satellitesInView: epoch.satellitesInView, hdop: epoch.hdop,
            averageSignalStrength: epoch.signalCount > 0 ? epoch.signalSum / Double(epoch.signalCount) : nil,
            horizontalAccuracy: accuracy, altitude: epoch.altitude, estimated: epoch.estimated)
    }

    /// The epoch's reading: a fix when it has a valid position, a time and a 2D or 3D mode; else no fix.
    private func reading() -> GNSSReading {
        guard !epoch.rejected, epoch.positionValid, let lat = epoch.latitude, let lon = epoch.longitude, let time = timestamp() else {
            return .noFix(quality(mode: .noFix), time: timestamp())
        }
        let mode = mode()
        guard mode >= .twoDimensional else { return .noFix(quality(mode: .noFix), time: time) }
        let quality = quality(mode: mode)
        let location = UserLocation(
            coordinate: GeographicCoordinate(latitude: lat, longitude: lon),
            horizontalAccuracy: quality.horizontalAccuracy ?? NMEAAccuracy.accuracy68(hdop: NMEAAccuracy.assumedHDOP),
            course: epoch.course.map { CourseOverGround(degrees: $0) },
            speed: epoch.speedKnots.map { Speed(metersPerSecond: $0 * NMEAUnits.metersPerSecondPerKnot) }, timestamp: time)
        return .fix(GNSSFix(location: location, quality: quality))
    }
}

/// A sentence's place in a receiver's cycle: its address (`GPGGA`) and how many sentences of that address the
/// epoch has had up to it (1 for the first). For GSV, 0 marks the last message of a group and -1 any other.
public struct CycleMark: Hashable, Sendable, CustomStringConvertible {
    public var address: String
    public var occurrence: Int

    public var description: String {
        switch occurrence {
        case 0: "\(address) (last of its group)"
        case 1: address
        default: "\(address) #\(occurrence)"
        }
    }
}

extension NMEAEpochAssembler.Epoch {
    /// Takes what untimed sentences (GSA, VTG, GSV) said before the epoch's first timed sentence.
    mutating func merge(untimed: Self) {
        guard !untimed.sawTimedSentence else { return }
        rejected = rejected || untimed.rejected
        estimated = estimated || untimed.estimated
        if let mode = untimed.gsaMode { gsaMode = max(gsaMode ?? 0, mode) }
        gsaSatellites += untimed.gsaSatellites
        speedKnots = speedKnots ?? untimed.speedKnots
        course = course ?? untimed.course
        hdop = hdop ?? untimed.hdop
        if let inView = untimed.satellitesInView { satellitesInView = (satellitesInView ?? 0) + inView }
        signalSum += untimed.signalSum
        signalCount += untimed.signalCount
        for (address, count) in untimed.occurrences { add(count, of: address) }
    }

    /// Counts one more sentence of `address` in this epoch and returns how many it has had, this one included.
    mutating func count(_ address: String) -> Int {
        add(1, of: address)
    }

    /// Adds `count` sentences of `address` and returns how many the epoch has had.
    @discardableResult
    private mutating func add(_ count: Int, of address: String) -> Int {
        if let index = occurrences.firstIndex(where: { $0.address == address }) {
            occurrences[index].count += count
            return occurrences[index].count
        }
        occurrences.append((address, count))
        return count
    }
}

enum NMEAUnits {
    /// 1852 m / 3600 s.
    static let metersPerSecondPerKnot = 1852.0 / 3600.0
}
