import FoundationEssentials
import Glibc
import NavigationCore
import NIOCore
import NIOPosix
import NMEA

/// Fixes straight from a serial NMEA receiver.
///
/// - `path`: a device (`/dev/ttyACM0`), a symlink (`/dev/navd-gps`, `/dev/serial/by-id/...`, resolved first:
///   libserialport refuses symlinks), or `auto` (the first port with a known GNSS USB id or product name).
/// - `baud`: 0 detects the rate by trying common ones until checksummed sentences arrive.
/// - Backend: libserialport; for devices it refuses (a pty, for example) plain termios, with a status line saying
///   why.
/// - When the device disappears (USB unplugged) the source reports it, keeps trying, and resumes when the device
///   (or its udev symlink) comes back.
public final class SerialNMEASource: Sendable {
    public let path: String
    public let baud: Int
    public let rollover: GPSWeekRollover
    public let feed = GNSSFeed()
    /// Counts from the NMEA parser, updated as data arrives.
    public var statistics: NMEAStatistics { assembler.withLock { $0.statistics } }
    /// The event loop that reads the device (``SerialChannelReader``): navd's navigation loop runs on it too.
    public let eventLoop: any EventLoop
    /// Bytes to epochs; on ``eventLoop`` while reading, kept across reconnects.
    let assembler: Mutex<NMEAEpochAssembler>
    /// The channel reading the device, while one does: ``stop()`` closes it.
    private let reading = Mutex<(any Channel)?>(nil)
    private let stopFlag = StopFlag()
    /// Seconds spent listening at each rate while detecting the baud rate.
    let detectionWindow: Double

    /// Seconds without a byte after which the epoch in progress is complete (``NMEAEpochAssembler/flush()``):
    /// longer than any pause inside a receiver's burst at 4800 baud (a sentence takes 0.17 s), shorter than the
    /// pause between bursts of a 1-5 Hz receiver. A 10 Hz receiver never pauses that long; its cycle is learned.
    static let quietEndsEpoch = 0.2

    /// Rates tried when `baud` is 0, most common first.
    public static let candidateBaudRates = [9600, 4800, 38400, 115200, 19200, 57600, 230400]

    /// - Parameter eventLoop: where the device is read and its readings yielded; navd passes its navigation loop's.
    public init(
        path: String, baud: Int = 0, rollover: GPSWeekRollover = .gpsdDefault, detectionWindow: Double = 1.5,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) {
        self.path = path
        self.eventLoop = eventLoop
        assembler = Mutex(NMEAEpochAssembler(rollover: rollover))
        self.baud = baud
        self.rollover = rollover
        self.detectionWindow = detectionWindow
    }

    public func start() {
        DetachedThread.start(name: "navd-serial") { [self] in run() }
    }

    public func stop() {
        stopFlag.set()
        reading.withLock { $0 }?.close(promise: nil)
    }

    /// The device to open: `auto` picks a receiver; symlinks are resolved.
    func resolveDevice() throws(SerialOpenError) -> String {
        var device = path
        if path == "auto" {
            let ports: [SerialPortInfo]
            do {
                ports = try SerialPorts.list()
            } catch {
                throw SerialOpenError(description: error.description)
            }
            let candidates = SerialPorts.receiverCandidates(in: ports)
            if FileManager.default.fileExists(atPath: Self.udevLink) {
                // The udev rules know which interface of a modem carries NMEA: their link is the receiver.
                device = Self.udevLink
            } else if candidates.count > 1 {
                // A modem's diagnostic port comes first in enumeration and says nothing: listen to each in turn.
                device = Self.firstSpeaking(candidates.map(\.path), baud: baud == 0 ? Self.candidateBaudRates[0] : baud, window: detectionWindow)
                    ?? candidates[0].path
            } else if let receiver = candidates.first {
                device = receiver.path
            } else {
                throw SerialOpenError(
                    description: "no GNSS receiver among the serial ports (\(ports.map(\.path).joined(separator: ", ")); none has a known GNSS USB id or product name")
            }
        }
        guard FileManager.default.fileExists(atPath: device) else {
            throw SerialOpenError(description: "serial device \(device) does not exist")
        }
        guard let resolved = realpath(device, nil) else {
            throw SerialOpenError(description: "cannot resolve \(device): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens with libserialport, falling back to termios for devices it refuses.
    func open(_ device: String, baud: Int) throws(SerialOpenError) -> (SerialBackend, String) {
        do {
            return (try LibSerialPortBackend(path: device, baud: baud), "libserialport")
        } catch {
            let backend = try TermiosBackend(path: device, baud: baud)
            return (backend, "termios (\(error.description))")
        }
    }

    private func run() {
        var backoff = Backoff()
        while !stopFlag.isSet {
            let device: String
            let backend: SerialBackend
            do {
                feed.report(.connecting(path))
                device = try resolveDevice()
                let (opened, how) = try open(device, baud: baud == 0 ? Self.candidateBaudRates[0] : baud)
                backend = opened
                if baud == 0, let detected = detectBaud(backend) {
                    feed.report(.connected("\(path) → \(device) at \(detected) baud (detected) via \(how)"))
                } else {
                    feed.report(.connected("\(path) → \(device)\(baud == 0 ? "" : " at \(baud) baud") via \(how)"))
                }
            } catch {
                let delay = backoff.next()
                feed.report(.disconnected(reason: error.description, retryIn: delay))
                stopFlag.sleep(delay)
                continue
            }
            backoff.reset()
            let ending = read(backend, device: device)
            backend.close()
            if let ending {
                let delay = backoff.next()
                feed.report(.disconnected(reason: ending, retryIn: delay))
                stopFlag.sleep(delay)
            }
        }
        feed.finish()
    }

    /// Reads the open device on ``eventLoop`` until it goes away (why, for the status) or the source stops (nil).
    private func read(_ backend: SerialBackend, device: String) -> String? {
        // The channel owns (and closes) a duplicate; the backend closes its own descriptor after.
        let duplicate = dup(backend.descriptor)
        guard duplicate >= 0 else { return "cannot read \(device): \(String(cString: strerror(errno)))" }
        let channel: any Channel
        let reader: NIOLoopBound<SerialChannelReader>
        do {
            (channel, reader) = try SerialChannelReader.start(descriptor: duplicate, on: eventLoop, for: self)
        } catch {
            return "cannot read \(device) on the event loop: \(error)"
        }
        reading.withLock { $0 = channel }
        // Run by the navigation loop on this event loop, where the reader lives.
        let eventLoop = self.eventLoop
        feed.rehearseWith {
            guard eventLoop.inEventLoop else { return }
            reader.value.rehearse()
        }
        if stopFlag.isSet { channel.close(promise: nil) }
        try? channel.closeFuture.wait()
        feed.rehearseWith(nil)
        reading.withLock { $0 = nil }
        if stopFlag.isSet { return nil }
        let cause = try? eventLoop.submit { reader.value.closingError.map { " (\($0))" } ?? "" }.wait()
        return "serial device \(device) disappeared\(cause ?? "")"
    }

    /// The link `udev/60-navd-gnss.rules` gives a known receiver's NMEA port.
    static let udevLink = "/dev/navd-gps"

    /// What listening to a port for a while showed.
    enum Listening: Equatable {
        /// Two checksummed NMEA sentences arrived.
        case speaksNMEA
        case silent
        /// The device went away.
        case gone
    }

    /// Listens to `backend` for up to `window` seconds (or until `stopped`) for two checksummed NMEA sentences.
    static func listen(to backend: SerialBackend, window: Double, stopped: () -> Bool = { false }) -> Listening {
        var buffer = [UInt8](repeating: 0, count: 1024)
        var probe = NMEAEpochAssembler()
        let deadline = monotonicSeconds() + window
        while monotonicSeconds() < deadline, !stopped() {
            guard let count = buffer.withUnsafeMutableBytes({ backend.read($0, timeoutMilliseconds: 100) }) else { return .gone }
            if count > 0 { _ = probe.append(buffer[0..<count]) }
            if probe.statistics.sentences - probe.statistics.sentencesWithoutChecksum >= 2 { return .speaksNMEA }
        }
        return .silent
    }

    /// The first of `paths` that sends two checksummed NMEA sentences within `window` seconds at `baud`, for
    /// `serial = "auto"` with several candidates (a modem's diagnostic, AT and NMEA ports); nil when none does.
    public static func firstSpeaking(_ paths: [String], baud: Int, window: Double) -> String? {
        for path in paths {
            let backend: SerialBackend
            do {
                backend = try LibSerialPortBackend(path: path, baud: baud)
            } catch {
                guard let fallback = try? TermiosBackend(path: path, baud: baud) else { continue }
                backend = fallback
            }
            defer { backend.close() }
            if listen(to: backend, window: window) == .speaksNMEA { return path }
        }
        return nil
    }

    /// Tries each candidate rate until two checksummed sentences arrive; returns the rate, or nil (the
    /// backend stays at the first rate).
    private func detectBaud(_ backend: SerialBackend) -> Int? {
        for rate in Self.candidateBaudRates where !stopFlag.isSet {
            guard backend.setBaudRate(rate) else { continue }
            switch Self.listen(to: backend, window: detectionWindow, stopped: { stopFlag.isSet }) {
            case .speaksNMEA: return rate
            case .gone: return nil
            case .silent: continue
            }
        }
        _ = backend.setBaudRate(Self.candidateBaudRates[0])
        return nil
    }
}

import Synchronization
import SystemSupport

/// Opening a device with one backend, for diagnostics and tests.
public enum SerialProbe {
    /// Opens and closes `path` with libserialport; throws its error (naming the path) when it refuses.
    public static func openWithLibSerialPort(_ path: String, baud: Int = 9600) throws {
        do {
            try LibSerialPortBackend(path: path, baud: baud).close()
        } catch {
            throw SerialPorts.Failure(description: error.description)
        }
    }
}
