import NavigationCore

/// What each numeric field of the sentences navd reads may hold. A sentence with a field that is not in its
/// format (an exponent, `nan`, a letter) or outside its physical range is line noise that passed the checksum, or
/// a receiver that has lost its mind: navd drops it, counts it (``NMEAStatistics/rejectedSentences``) and reports
/// the epoch it arrived in as no fix. An empty field is always allowed (it means "not known"). Latitude and
/// longitude are not among these fields: receivers repeat impossible positions in their "no fix" sentences
/// (a TN200 sends latitude 36000.0000 with status V), and a position that does not read (an exponent, a
/// latitude past 90°) is simply no position from that sentence, as before.
enum NMEAFieldRules {
    /// Speed in knots: the COCOM limit (``PhysicalRange/speed``) in knots.
    static let knots = 0...PhysicalRange.speed.upperBound * 3600 / 1852
    /// Speed in km/h: the same limit.
    static let kilometresPerHour = 0...PhysicalRange.speed.upperBound * 3.6

    /// True when every numeric field navd reads from `s` is empty or valid. Fields navd does not read are not
    /// checked: receivers fill them in their own ways (ZDA's zone as `+00`, u-blox's GST RMS as `235111`), and
    /// nothing navd does depends on them. Sentence types navd does not read pass.
    static func accepts(_ s: NMEASentence) -> Bool {
        switch s.kind {
        case .rmc:
            time(s, 0) && decimal(s, 6, knots) && decimal(s, 7, PhysicalRange.course) && date(s, 8)
        case .gga:
            time(s, 0) && integer(s, 5, 0...9) && integer(s, 6, PhysicalRange.satelliteCount)
                && decimal(s, 7, PhysicalRange.hdop) && decimal(s, 8, PhysicalRange.altitude)
        case .gns:
            time(s, 0) && integer(s, 6, PhysicalRange.satelliteCount) && decimal(s, 7, PhysicalRange.hdop)
                && decimal(s, 8, PhysicalRange.altitude)
        case .gll:
            time(s, 4)
        case .gsa:
            integer(s, 1, 1...3) && decimal(s, 15, PhysicalRange.hdop)
        case .vtg:
            decimal(s, 0, PhysicalRange.course) && decimal(s, 4, knots) && decimal(s, 6, kilometresPerHour)
        case .gst:
            time(s, 0) && decimal(s, 5, PhysicalRange.accuracy) && decimal(s, 6, PhysicalRange.accuracy)
        case .zda:
            time(s, 0) && integer(s, 1, 1...31) && integer(s, 2, 1...12) && integer(s, 3, PhysicalRange.year)
        case .gsv:
            integer(s, 0, 1...99) && integer(s, 1, 1...99) && integer(s, 2, PhysicalRange.satelliteCount)
        case .sirfErrorEstimate:
            time(s, 0)
        case .other:
            true
        }
    }

    /// The field holding the time of day, for the sentence kinds that carry one.
    static func timeField(of kind: NMEASentenceKind) -> Int? {
        switch kind {
        case .rmc, .gga, .gns, .gst, .zda, .sirfErrorEstimate: 0
        case .gll: 4
        case .gsa, .vtg, .gsv, .other: nil
        }
    }

    /// Field `index` is empty or `hhmmss[.s…]`.
    private static func time(_ s: NMEASentence, _ index: Int) -> Bool {
        let field = s.bytes(ofField: index)
        return field.isEmpty || NMEAFields.timeOfDay(field) != nil
    }

    /// Field `index` is empty or `ddmmyy`.
    private static func date(_ s: NMEASentence, _ index: Int) -> Bool {
        let field = s.bytes(ofField: index)
        return field.isEmpty || NMEAFields.date(field) != nil
    }

    /// Field `index` is empty or a decimal number inside `range`.
    private static func decimal(_ s: NMEASentence, _ index: Int, _ range: ClosedRange<Double>) -> Bool {
        let field = s.bytes(ofField: index)
        return field.isEmpty || NMEAFields.number(field).flatMap { CheckedNumber.measure($0, in: range) } != nil
    }

    /// Field `index` is empty or a whole number inside `range`.
    private static func integer(_ s: NMEASentence, _ index: Int, _ range: ClosedRange<Int>) -> Bool {
        let field = s.bytes(ofField: index)
        return field.isEmpty || NMEAFields.integer(field).map { range.contains($0) } == true
    }
}
