import NavigationCore

/// What each numeric field of the sentences navd reads may hold. A sentence with a field that is not in its
/// format (an exponent, `nan`, a letter) or outside its physical range is line noise that passed the checksum, or
/// a receiver that has lost its mind: navd drops it, counts it (``NMEAStatistics/rejectedSentences``) and reports
/// the epoch it arrived in as no fix. An empty field is always allowed (it means "not known"). Latitude and
/// longitude are not among these fields: receivers repeat impossible positions in their "no fix" sentences
/// (a TN200 sends latitude 36000.0000 with status V), and a position that does not read (an exponent, a
/// latitude past 90°) is simply no position from that sentence, as before.
enum NMEAFieldRules {
    enum Rule {
        /// `hhmmss[.s…]`.
        case time
        /// `ddmmyy`.
        case date
        /// A decimal number inside the range.
        case decimal(ClosedRange<Double>)
        /// A whole number inside the range.
        case integer(ClosedRange<Int>)
    }

    /// Speed in knots: the COCOM limit (``PhysicalRange/speed``) in knots.
    static let knots = 0...PhysicalRange.speed.upperBound * 3600 / 1852
    /// Speed in km/h: the same limit.
    static let kilometresPerHour = 0...PhysicalRange.speed.upperBound * 3.6
    /// The numeric fields navd reads, by sentence type. Fields navd does not read are not checked: receivers fill
    /// them in their own ways (ZDA's zone as `+00`, u-blox's GST RMS as `235111`), and nothing navd does depends on them.
    static let rules: [String: [(Int, Rule)]] = [
        "RMC": [(0, .time), (6, .decimal(knots)), (7, .decimal(PhysicalRange.course)), (8, .date)],
        "GGA": [(0, .time), (5, .integer(0...9)), (6, .integer(PhysicalRange.satelliteCount)),
            (7, .decimal(PhysicalRange.hdop)), (8, .decimal(PhysicalRange.altitude))],
        "GNS": [(0, .time), (6, .integer(PhysicalRange.satelliteCount)),
            (7, .decimal(PhysicalRange.hdop)), (8, .decimal(PhysicalRange.altitude))],
        "GLL": [(4, .time)],
        "GSA": [(1, .integer(1...3)), (15, .decimal(PhysicalRange.hdop))],
        "VTG": [(0, .decimal(PhysicalRange.course)), (4, .decimal(knots)), (6, .decimal(kilometresPerHour))],
        "GST": [(0, .time), (5, .decimal(PhysicalRange.accuracy)), (6, .decimal(PhysicalRange.accuracy))],
        "ZDA": [(0, .time), (1, .integer(1...31)), (2, .integer(1...12)), (3, .integer(PhysicalRange.year))],
        "GSV": [(0, .integer(1...99)), (1, .integer(1...99)), (2, .integer(PhysicalRange.satelliteCount))],
        "PSRFEPE": [(0, .time)],
    ]

    /// The field holding the time of day, for the sentence types that carry one.
    static let timeField: [String: Int] = ["RMC": 0, "GGA": 0, "GNS": 0, "GLL": 4, "GST": 0, "ZDA": 0, "PSRFEPE": 0]

    /// True when every field `s` has a rule for is empty or valid. Sentence types without rules pass.
    static func accepts(_ s: NMEASentence) -> Bool {
        guard let fields = rules[s.type] else { return true }
        for (index, rule) in fields {
            let field = s[index]
            guard !field.isEmpty else { continue }
            switch rule {
            case .time: if NMEAFields.timeOfDay(field) == nil { return false }
            case .date: if NMEAFields.date(field) == nil { return false }
            case .decimal(let range): if NMEAFields.number(field).flatMap({ CheckedNumber.measure($0, in: range) }) == nil { return false }
            case .integer(let range): if NMEAFields.integer(field).map({ range.contains($0) }) != true { return false }
            }
        }
        return true
    }
}
