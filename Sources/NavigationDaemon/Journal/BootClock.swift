import FoundationEssentials
import Glibc

/// This boot's identity and age, read from the kernel: the clock a journal's age is measured with when navd
/// restarts within one boot, unaffected by the wall clock being set (NTP, GNSS) or going back.
public enum BootClock {
    /// The kernel's random id for this boot, or nil where it cannot be read. The shipped unit passes it as
    /// `NAVD_BOOT_ID=%b`, because its `ProcSubset=pid` hides /proc/sys from navd.
    public static func bootId(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let id = environment["NAVD_BOOT_ID"]?.trimmingWhitespace, !id.isEmpty {
            return id.replacing("-", with: "")
        }
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        // The kernel writes it with dashes, systemd's %b without: one form, so that both compare equal.
        let id = text.trimmingWhitespace.replacing("-", with: "")
        return id.isEmpty ? nil : id
    }

    /// Seconds since boot, suspend included (CLOCK_BOOTTIME).
    public static func uptime() -> Double? {
        var time = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The clocks `TripJournal.load` decides with, as they read now.
    public static func journalClocks(wall: Date) -> TripJournal.Clocks {
        TripJournal.Clocks(wall: wall, bootId: bootId(), uptime: uptime())
    }
}
