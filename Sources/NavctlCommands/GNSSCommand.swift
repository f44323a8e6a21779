import ArgumentParser
import FoundationEssentials
import Glibc
import LocationSources
import NavigationCore
import NMEA
import TrackFormats
import SystemSupport

struct GNSSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gnss",
        abstract: "Show fixes and GNSS quality from gpsd, a serial receiver, or a recording.",
        discussion: """
            Exactly one source: --gpsd HOST:PORT [--device PATH], --serial PATH|auto [--baud N], --nmea FILE \
            [--speed X | --fast], --gpx FILE, or --gpsd-log FILE (gpspipe -w output). --list-ports shows the serial \
            ports instead. Status changes go to stderr; fixes to stdout, as text or (--json) JSON Lines.
            """)

    @Option(help: "gpsd address, HOST:PORT (port 2947 when omitted).")
    var gpsd: String?

    @Option(help: "With --gpsd: watch only this device.")
    var device: String?

    @Option(help: "Serial device path, or auto to find a receiver by its USB id.")
    var serial: String?

    @Option(help: "With --serial: baud rate; 0 detects it.")
    var baud: Int = 0

    @Option(help: "Replay an NMEA log.")
    var nmea: String?

    @Option(help: "Replay a GPX track.")
    var gpx: String?

    @Option(name: .customLong("gpsd-log"), help: "Replay a gpsd JSON log (gpspipe -w output).")
    var gpsdLog: String?

    @Option(help: "Replay speed factor (1 = real time).")
    var speed: Double = 1

    @Flag(help: "Replay as fast as possible.")
    var fast = false

    @Flag(help: "Print JSON Lines (one fix with its quality per line) instead of text.")
    var json = false

    @Flag(help: "List serial ports with their USB details and which look like GNSS receivers.")
    var listPorts = false

    @Option(help: "Stop after this many fixes.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "Do not correct GPS week rollover (report dates as the receiver sends them).")
    var noRolloverCorrection = false

    @Option(help: "Seconds without a fix before the receiver is reported lost (navd's gnss.watchdog_timeout).")
    var watchdogTimeout: Double = 5

    func validate() throws {
        let sources = [gpsd, serial, nmea, gpx, gpsdLog].compactMap { $0 }.count
        if listPorts {
            guard sources == 0 else { throw ValidationError("--list-ports takes no source") }
        } else {
            guard sources == 1 else { throw ValidationError("give exactly one of --gpsd, --serial, --nmea, --gpx, --gpsd-log") }
        }
        guard speed > 0 else { throw ValidationError("--speed must be positive") }
        guard watchdogTimeout > 0 else { throw ValidationError("--watchdog-timeout must be positive") }
        if let gpsd, GpsdSource.address(gpsd) == nil { throw ValidationError("--gpsd must be HOST:PORT") }
    }

    func run() async throws {
        try await reportingErrors {
            if listPorts { return try printPorts() }
            let rollover: GPSWeekRollover = noRolloverCorrection ? .none : .gpsdDefault
            let feed: GNSSFeed
            var stopSource: @Sendable () -> Void = {}
            var replayTask: Task<Void, Never>?
            if let gpsd, let address = GpsdSource.address(gpsd) {
                let source = GpsdSource(host: address.host, port: address.port, device: device)
                feed = source.feed
                source.start()
                stopSource = { source.stop() }
            } else if let serial {
                let source = SerialNMEASource(path: serial, baud: baud, rollover: rollover)
                feed = source.feed
                source.start()
                stopSource = { source.stop() }
            } else {
                let path = nmea ?? gpx ?? gpsdLog!
                let data = try readInput(path)
                let readings: [GNSSReading]
                do {
                    readings = try ReplaySource.readings(from: data, rollover: rollover)
                } catch {
                    throw CommandFailure("\(path): \(error)")
                }
                let source = ReplaySource(readings: readings, pacing: fast ? .asFastAsPossible : speed == 1 ? .realTime : .accelerated(speed))
                feed = source.feed
                let task = Task { await source.run() }
                replayTask = task
                stopSource = { task.cancel() }
            }
            // The silence watchdog navd runs for every source.
            let timeout = watchdogTimeout
            let watchdog = Task { await feed.watchSilence(timeout: timeout) }
            let statusTask = Task {
                for await status in feed.statuses {
                    StandardStream.error.write("gnss: \(status)\n")
                }
            }
            let deadline = duration.map { Date().addingTimeInterval($0) }
            let timer = Task {
                guard let deadline else { return }
                try? await Task.sleep(for: .seconds(max(0, deadline.timeIntervalSinceNow)))
                stopSource()
            }
            var fixes = 0
            let encoder = makeJSONEncoder(pretty: false)
            for await reading in feed.readings {
                let line = json ? String(decoding: try encoder.encode(GNSSReadingRecord(reading)), as: UTF8.self) : Self.text(reading)
                writeLine(line)
                if reading.fix != nil { fixes += 1 }
                if let count, fixes >= count { break }
            }
            stopSource()
            timer.cancel()
            await replayTask?.value
            watchdog.cancel()
            if replayTask != nil {
                // A replay finishes its feed, which ends the statuses: every one (its "end of input" last) is printed
                // before navctl exits. Cancelling instead could drop the last under load.
                await statusTask.value
            } else {
                statusTask.cancel()
            }
        }
    }

    private func printPorts() throws {
        let ports = try SerialPorts.list()
        if json {
            let encoder = makeJSONEncoder(pretty: false)
            for port in ports { writeLine(String(decoding: try encoder.encode(port), as: UTF8.self)) }
            return
        }
        if ports.isEmpty { writeLine("no serial ports") }
        for port in ports {
            var details = [port.transport]
            if let vid = port.usbVendorID, let pid = port.usbProductID { details.append(String(cFormat: "%04lx:%04lx", vid, pid)) }
            details += [port.manufacturer, port.product, port.serialNumber.map { "serial \($0)" }].compactMap { $0 }
            let verdict = port.gnssMatch.map { "  ← GNSS receiver? \($0)" } ?? ""
            writeLine("\(port.path)  \(port.description ?? "")  [\(details.joined(separator: ", "))]\(verdict)")
        }
    }

    static func text(_ reading: GNSSReading) -> String {
        switch reading {
        case .noFix(let quality, let time):
            let sats = quality.satellitesInView.map { "  \($0) satellites in view" } ?? ""
            return "\(time.map(ISO8601Timestamp.format) ?? "--")  no fix\(sats)"
        case .fix(let fix):
            let l = fix.location, q = fix.quality
            // DR: the receiver estimated the fix itself (its own dead reckoning).
            let mode = (q.mode == .threeDimensional ? "3D" : "2D") + (q.estimated ? " DR" : "")
            var parts = [
                ISO8601Timestamp.format(l.timestamp), mode,
                String(cFormat: "%.6f, %.6f", l.coordinate.latitude, l.coordinate.longitude),
                String(cFormat: "±%.1f m", l.horizontalAccuracy),
            ]
            if let speed = l.speed { parts.append(String(cFormat: "%.1f m/s", speed.metersPerSecond)) }
            if let course = l.course { parts.append(String(cFormat: "%.0f°", course.degrees)) }
            if let used = q.satellitesUsed { parts.append("sats \(used)" + (q.satellitesInView.map { "/\($0)" } ?? "")) }
            if let hdop = q.hdop { parts.append(String(cFormat: "hdop %.1f", hdop)) }
            if let signal = q.averageSignalStrength { parts.append(String(cFormat: "%.0f dB-Hz", signal)) }
            parts.append(String(cFormat: "age %.1f s", max(0, Date().timeIntervalSince(l.timestamp))))
            return parts.joined(separator: "  ")
        }
    }
}

/// One reading as JSON: the fix's location keys, its quality, and its age.
struct GNSSReadingRecord: Encodable {
    var reading: GNSSReading

    init(_ reading: GNSSReading) { self.reading = reading }

    private enum Keys: String, CodingKey { case fix, time, mode, estimated, satellitesUsed, satellitesInView, hdop, signal, altitude, age }

    func encode(to encoder: any Encoder) throws {
        let quality: GNSSQuality
        var c = encoder.container(keyedBy: Keys.self)
        switch reading {
        case .fix(let fix):
            try fix.location.encode(to: encoder)
            quality = fix.quality
            try c.encode(true, forKey: .fix)
            try c.encode((Date().timeIntervalSince(fix.location.timestamp) * 10).rounded() / 10, forKey: .age)
        case .noFix(let q, let time):
            quality = q
            try c.encode(false, forKey: .fix)
            try c.encodeIfPresent(time.map(ISO8601Timestamp.format), forKey: .time)
        }
        try c.encode(quality.mode.rawValue, forKey: .mode)
        if quality.estimated { try c.encode(true, forKey: .estimated) }
        try c.encodeIfPresent(quality.satellitesUsed, forKey: .satellitesUsed)
        try c.encodeIfPresent(quality.satellitesInView, forKey: .satellitesInView)
        try c.encodeIfPresent(quality.hdop, forKey: .hdop)
        try c.encodeIfPresent(quality.averageSignalStrength.map { ($0 * 10).rounded() / 10 }, forKey: .signal)
        try c.encodeIfPresent(quality.altitude, forKey: .altitude)
    }
}
