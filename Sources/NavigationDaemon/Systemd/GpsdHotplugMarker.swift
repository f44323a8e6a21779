import FoundationEssentials
import Glibc
import Logging
import NavigationCore

/// Keeps Debian's gpsd hotplug off a receiver navd reads itself. gpsd's udev rules (60-gpsd.rules) ask systemd to
/// start `gpsdctl@ttyX` for every known receiver, and gpsd then reads the same tty: two readers split the byte
/// stream and navd loses epochs without a sign. navd's own rules (60-navd-gnss.rules, read after gpsd's) drop that
/// request while `serial-receiver` exists in navd's state directory, and navd keeps it there exactly while its
/// configured source is `serial`: with `source = "gpsd"` the file goes and gpsd gets its receivers again. The file
/// lives in the state directory (it survives reboots), so the coldplug at the next boot sees it before navd starts.
enum GpsdHotplugMarker {
    /// The file's name in systemd's `$STATE_DIRECTORY` (`/var/lib/navd` for the shipped unit, as in the rule).
    static let fileName = "serial-receiver"

    /// Writes or removes the marker for a source. Without `$STATE_DIRECTORY` (navd not started by the unit) it does
    /// nothing. `device`: the configured serial device (`auto` included), written for people reading the file.
    static func update(isSerial: Bool, device: String, environment: [String: String], logger: Logger) {
        guard let directory = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init), !directory.isEmpty else { return }
        let path = "\(directory)/\(fileName)"
        if isSerial {
            let text = "navd reads \(device) itself (gnss.source = \"serial\"); navd's udev rules keep gpsd's hotplug off it\n"
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                logger.warning("cannot write \(path) (it keeps gpsd's hotplug off navd's receiver): \(describeFileError(error))")
            }
        } else if unlink(path) != 0, errno != ENOENT {
            logger.warning("cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }
}
