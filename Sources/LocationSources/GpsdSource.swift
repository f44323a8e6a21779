import CGPSShim
import FoundationEssentials
import Glibc
import NavigationCore
import NMEA
import SystemSupport

/// Fixes from gpsd through libgps. A dedicated thread runs `gps_waiting`/`gps_read` and hands copies of plain
/// Swift values to the feed; NaN fields become nil; `fix.mode` decides validity (gpsd 3.22 leaves `status` at
/// 0 even on good fixes).
///
/// When gpsd stops, the source reports it and reconnects with backoff (0.5 s to 8 s). gpsd says nothing when its
/// device disappears: the feed's silence watchdog (``GNSSFeed/watchSilence(timeout:)``, the same for
/// every source) reports that.
public final class GpsdSource: Sendable {
    public let host: String
    public let port: String
    /// Watch only this device (gpsd's `?WATCH` `device`, and reports from other devices are dropped), or every
    /// device when nil. The path as gpsd knows it (as given to gpsd).
    public let device: String?
    public let feed = GNSSFeed()
    private let stopFlag = StopFlag()

    public init(host: String = "127.0.0.1", port: String = "2947", device: String? = nil) {
        self.host = host
        self.port = port
        self.device = device
    }

    /// Parses `HOST:PORT` (port defaults to 2947; `[::1]:2947` for IPv6).
    public static func address(_ text: String) -> (host: String, port: String)? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            let port = rest.hasPrefix(":") ? String(rest.dropFirst()) : "2947"
            return host.isEmpty || Int(port) == nil ? nil : (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let host = parts.first, !host.isEmpty else { return nil }
        let port = parts.count == 2 ? String(parts[1]) : "2947"
        return Int(port).map { _ in (String(host), port) }
    }

    /// Starts the reader thread.
    public func start() {
        DetachedThread.start(name: "navd-gpsd") { [self] in run() }
    }

    /// Stops the reader thread (within about 0.1 s) and finishes the feed.
    public func stop() {
        stopFlag.set()
    }

    private func run() {
        var backoff = Backoff()
        let name = "gpsd at \(host):\(port)" + (device.map { " (device \($0))" } ?? "")
        while !stopFlag.isSet {
            feed.report(.connecting(name))
            var error: Int32 = 0
            guard let connection = navd_gps_open(host, port, &error) else {
                let delay = backoff.next()
                feed.report(.disconnected(reason: "cannot connect to \(name): \(String(cString: navd_gps_error_string(error)))", retryIn: delay))
                stopFlag.sleep(delay)
                continue
            }
            defer { navd_gps_close(connection) }
            guard navd_gps_watch(connection, device) == 0 else {
                let delay = backoff.next()
                feed.report(.disconnected(reason: "\(name) refused the WATCH request", retryIn: delay))
                stopFlag.sleep(delay)
                continue
            }
            feed.report(.connected(name))
            readLoop(connection, name: name, backoff: &backoff)
        }
        feed.finish()
    }

    private func readLoop(_ connection: OpaquePointer, name: String, backoff: inout Backoff) {
        var report = navd_gps_report()
        // gpsd's reports are single lines well under 16 KB (a SKY with 64 satellites is about 6 KB).
        var message = [CChar](repeating: 0, count: 16_384)
        while !stopFlag.isSet {
            let observed = feed.isRawObserved
            let result = observed
                ? navd_gps_read_message(connection, 100_000, &report, &message, Int32(message.count))
                : navd_gps_read(connection, 100_000, &report)
            if observed, result == 1 {
                let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                    .trimmingWhitespace
                if !text.isEmpty { feed.yieldRaw(.gpsdJSON(text)) }
            }
            if result < 0 {
                let delay = backoff.next()
                feed.report(.disconnected(reason: "\(name) closed the connection", retryIn: delay))
                stopFlag.sleep(delay)
                return
            }
            if result == 1, report.has_fix_data != 0, isSelectedDevice(report), let reading = Self.reading(from: report) {
                feed.yield(reading)
                if reading.fix != nil { backoff.reset() }
            }
        }
    }

    /// True when the report comes from the watched device (or no device was selected). gpsd tags each report
    /// with its device; the WATCH request alone does not keep every other device's reports out.
    private func isSelectedDevice(_ report: navd_gps_report) -> Bool {
        guard let device, !device.isEmpty else { return true }
        let reported = withUnsafeBytes(of: report.device) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return reported.isEmpty || reported == device
    }

    /// A reading from one gpsd report: a fix when the mode is 2D or 3D with a finite position. Every number passes
    /// ``CheckedNumber`` with its physical range: a report with a value outside (an accuracy of 1e300, a speed
    /// past the COCOM limit, a time before 1970) is no fix, as for a serial receiver.
    static func reading(from r: navd_gps_report) -> GNSSReading? {
        // NaN is "not reported", a negative count "unknown"; anything else must be inside its range.
        var check = RangeCheck()
        let seconds = r.time_sec != 0 ? Double(r.time_sec) + Double(r.time_nsec) / 1e9 : nil
        let time = check.measure(seconds, in: PhysicalRange.unixTime).map { Date(timeIntervalSince1970: $0) }
        func count(_ n: Int32) -> Int? { check.whole(n >= 0 ? Double(n) : nil, in: PhysicalRange.satelliteCount) }
        let mode = GNSSFixMode(rawValue: Int(r.mode)) ?? .noFix
        let eph = check.measure(r.eph, in: PhysicalRange.accuracy).map(UserLocation.accuracy68(fromConfidence95:))
        let hdop = check.measure(r.hdop, in: PhysicalRange.hdop)
        let quality = GNSSQuality(
            mode: mode, satellitesUsed: count(r.satellites_used), satellitesInView: count(r.satellites_visible), hdop: hdop,
            horizontalAccuracy: eph, altitude: check.measure(r.alt_msl, in: PhysicalRange.altitude), estimated: r.estimated != 0)
        let lat = check.measure(r.latitude, in: -90...90)
        let lon = check.measure(r.longitude, in: -180...180)
        let track = check.measure(r.track, in: PhysicalRange.course)
        let trackError = check.measure(r.epd, in: 0...360).map(UserLocation.accuracy68(fromConfidence95:))
        let speed = check.measure(r.speed, in: PhysicalRange.speed)
        let speedError = check.measure(r.eps, in: PhysicalRange.speed).map(UserLocation.accuracy68(fromConfidence95:))
        guard !check.failed, mode >= .twoDimensional, r.latlon_set != 0, let lat, let lon, let time else {
            // Without a position and a time there is nothing to navigate with, whatever mode gpsd claims.
            var none = quality
            none.mode = .noFix
            return r.mode == 0 && !check.failed ? nil : .noFix(none, time: time)
        }
        let location = UserLocation(
            coordinate: GeographicCoordinate(latitude: lat, longitude: lon),
            horizontalAccuracy: eph ?? hdop.map(NMEAAccuracy.accuracy68(hdop:)) ?? 10,
            course: track.map { CourseOverGround(degrees: $0, accuracy: trackError) },
            speed: speed.map { Speed(metersPerSecond: $0, accuracy: speedError) },
            timestamp: time)
        return .fix(GNSSFix(location: location, quality: quality))
    }
}
