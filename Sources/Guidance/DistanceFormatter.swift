import NavigationCore

/// Distances as a driver reads and hears them, rounded the way people say them, in one unit system. The same
/// rounding in banners, voice and `navctl watch`. Pure.
public struct DistanceFormatter: Sendable, Equatable {
    /// A distance rounded for saying: the number as written in `language` and its unit's key in the catalog.
    public struct Rounded: Sendable, Equatable {
        /// The rounded amount, in `unit`.
        public var amount: Double
        /// `metres`, `kilometres`, `feet`, `yards` or `miles`.
        public var unit: String
        /// Decimals to write (0 or 1).
        public var decimals: Int
    }

    public var units: UnitSystem

    public init(units: UnitSystem) { self.units = units }

    static let metresPerMile = 1609.344
    static let metresPerFoot = 0.3048
    static let metresPerYard = 0.9144

    /// `metres` rounded:
    /// - metric: 10 m steps below 100 m, 50 m steps below 1 km, 0.1 km steps below 10 km, whole km beyond;
    /// - imperial: below a tenth of a mile 50 ft steps (yards: 10 yd steps), then 0.1 mi steps below 10 mi,
    ///   whole miles beyond.
    public func rounded(_ metres: Double) -> Rounded {
        let m = metres.isFinite ? max(0, metres) : 0
        switch units {
        case .metric:
            if m < 95 { return Rounded(amount: max(10, (m / 10).rounded() * 10), unit: "metres", decimals: 0) }
            if m < 975 { return Rounded(amount: max(100, (m / 50).rounded() * 50), unit: "metres", decimals: 0) }
            if m < 9_950 { return Rounded(amount: (m / 100).rounded() / 10, unit: "kilometres", decimals: 1) }
            return Rounded(amount: (m / 1000).rounded(), unit: "kilometres", decimals: 0)
        case .imperial, .imperialYards:
            let miles = m / Self.metresPerMile
            if miles < 0.095 {
                if units == .imperialYards {
                    return Rounded(amount: max(10, (m / Self.metresPerYard / 10).rounded() * 10), unit: "yards", decimals: 0)
                }
                return Rounded(amount: max(50, (m / Self.metresPerFoot / 50).rounded() * 50), unit: "feet", decimals: 0)
            }
            if miles < 9.95 { return Rounded(amount: max(0.1, (miles * 10).rounded() / 10), unit: "miles", decimals: 1) }
            return Rounded(amount: miles.rounded(), unit: "miles", decimals: 0)
        }
    }

    /// `metres` rounded and abbreviated for a screen: "250 m", "1.2 km", "500 ft", "50 yd", "0.3 mi".
    public func abbreviated(_ metres: Double) -> String {
        let rounded = rounded(metres)
        let symbols = ["metres": "m", "kilometres": "km", "feet": "ft", "yards": "yd", "miles": "mi"]
        return "\(Self.number(rounded, decimalSeparator: ".")) \(symbols[rounded.unit] ?? rounded.unit)"
    }

    /// A speed in metres per second as a screen shows it in this unit system: "50 km/h", "31 mph".
    public func speed(_ metresPerSecond: Double) -> String {
        units == .metric
            ? "\(CheckedNumber.clampedWhole(metresPerSecond * 3.6)) km/h"
            : "\(CheckedNumber.clampedWhole(metresPerSecond * 3600 / Self.metresPerMile)) mph"
    }

    /// The amount as written, with `separator` between whole and tenths ("0,3" in German); whole amounts without.
    public static func number(_ rounded: Rounded, decimalSeparator separator: String) -> String {
        let tenths = CheckedNumber.clampedWhole(rounded.amount * 10)
        // "1 mile", not "1.0 miles": a whole amount is written whole.
        if rounded.decimals == 0 || tenths % 10 == 0 { return String(CheckedNumber.clampedWhole(rounded.amount)) }
        return "\(tenths / 10)\(separator)\(tenths % 10)"
    }
}
