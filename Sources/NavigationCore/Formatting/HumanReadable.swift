/// Short human-readable forms of distances and durations for terminals and status lines.
public enum HumanReadable {
    /// "40 m", "850 m", "1.2 km", "12 km". Distances in metres; below 1 km rounded to 10 m (5 m below 100 m).
    public static func distance(_ meters: Double) -> String {
        guard meters.isFinite else { return "?" }
        let m = max(0, meters)
        if m < 100 { return "\(CheckedNumber.clampedWhole(m / 5) * 5) m" }
        if m < 995 { return "\(CheckedNumber.clampedWhole(m / 10) * 10) m" }
        if m < 9_950 { return "\(formatFixed(m / 1000, decimals: 1)) km" }
        return "\(CheckedNumber.clampedWhole(m / 1000)) km"
    }

    /// "45 s", "3 min", "1 h 05 min". Durations in seconds.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = CheckedNumber.clampedWhole(seconds, in: 0...(1 << 53))
        if s < 60 { return "\(s) s" }
        let minutes = (s + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        let m = minutes % 60
        return "\(minutes / 60) h \(m < 10 ? "0" : "")\(m) min"
    }
}
