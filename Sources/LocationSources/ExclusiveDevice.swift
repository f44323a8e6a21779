import FoundationEssentials
import Glibc

/// A serial receiver has one reader: navd. Two readers of one tty split its byte stream between them, and each
/// loses sentences without a sign (Debian's gpsd hotplug opens a USB receiver the moment it appears). navd sets
/// TIOCEXCL on the tty it opens, so that a later open by anyone but root fails with EBUSY (gpsd's hotplug
/// included: gpsd runs as its own user); gpsd sets it too, so a navd that comes second gets EBUSY, and the
/// error names the holder where /proc shows it. (Holders are not refused outright: socat, which test rigs and
/// field testers use to mirror a receiver, keeps the pty's other side open.)
enum ExclusiveDevice {
    /// Sets exclusive mode on `fd`, an open tty. Best effort: a device without exclusive mode still works.
    static func claim(fd: Int32) {
        _ = ioctl(fd, UInt(TIOCEXCL))
    }

    /// The message for an open that failed with `code`, naming who holds the device when it is busy.
    static func openFailure(path: String, code: Int32) -> String {
        let reason = String(cString: strerror(code))
        guard code == EBUSY else { return "cannot open \(path): \(reason)" }
        let holders = otherHolders(of: path)
        return "cannot open \(path): \(reason)"
            + (holders.isEmpty ? " (another program holds it exclusively)" : ": held exclusively by \(holders.joined(separator: ", "))")
    }

    /// Processes other than this one with `path` open, as `name (pid N)`, from /proc/PID/fd. Processes whose
    /// descriptors this user may not read are not seen (navd runs as root in tests, as navd in the unit, where
    /// gpsd's are hidden: then EBUSY from its TIOCEXCL is what tells).
    static func otherHolders(of path: String) -> [String] {
        guard let resolved = realpath(path, nil) else { return [] }
        let target = String(cString: resolved)
        free(resolved)
        let own = getpid()
        var holders: [String] = []
        guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        for entry in pids {
            guard let pid = Int32(entry), pid != own, let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd") else { continue }
            let holds = fds.contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\(fd)")) == target
            }
            guard holds else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?.filter { $0 != "\n" } ?? "?"
            holders.append("\(name) (pid \(pid))")
        }
        return holders.sorted()
    }
}
