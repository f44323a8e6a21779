import Foundation
import LocationSources
import NavigationCore
import NIOCore
import NIOPosix
import NMEA
import Synchronization
import Testing
import TestSupport

/// The serial source on real ptys made by socat (termios backend), and libserialport itself.
@Suite("Serial NMEA source", .serialized)
struct SerialSourceTests {
    /// A socat pty pair: `device` is what the source opens, `feeder` where the test writes NMEA.
    final class PtyPair: @unchecked Sendable {
        let directory: URL
        let device: String
        let feeder: String
        var socat: ExternalProcess?

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("navd-serial-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            device = directory.appendingPathComponent("gps").path
            feeder = directory.appendingPathComponent("feeder").path
            try await start()
        }

        func start() async throws {
            socat = try ExternalProcess("socat", ["-d", "-d", "pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feeder)"])
            #expect(await waitForFile(feeder), "socat made no pty: \(socat?.output ?? "")")
        }

        func stop() {
            socat?.stop()
            socat = nil
        }

        deinit {
            socat?.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A serial source reading a fresh pty pair, started; the test stops it.
    final class RunningSource: @unchecked Sendable {
        let pty: PtyPair
        let source: SerialNMEASource
        let recorder: FeedRecorder

        init(baud: Int = 9600) async throws {
            pty = try await PtyPair()
            source = SerialNMEASource(path: pty.device, baud: baud, rollover: .none)
            recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
            source.start()
        }

        /// Waits until the source has opened the device.
        func connected() async -> Bool {
            await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("connected to") } }
        }

        func stop() { source.stop() }
    }

    static func driveLines() throws -> [String] {
        let drive = try Fixtures.helsinkiDrive()
        defer { try? FileManager.default.removeItem(at: drive) }
        return try String(contentsOf: drive, encoding: .utf8).split(whereSeparator: \.isNewline).map { $0 + "\r\n" }
    }

    @Test func nmeaWrittenIntoAPtyArrivesAsFixes() async throws {
        let running = try await RunningSource()
        defer { running.stop() }
        let (pty, recorder) = (running.pty, running.recorder)
        #expect(await running.connected(), "\(recorder.statuses)")
        let writer = try PtyWriter(path: pty.feeder)
        let lines = try Self.driveLines()
        for line in lines.prefix(20) {
            writer.write(line)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await recorder.wait(seconds: 5) { $0.fixes.count >= 10 }, "\(recorder.fixes.count) fixes; \(recorder.statuses)")
        // 20 lines are 10 RMC+GGA epochs: one fix each, the last one leaving at its GGA.
        try await Task.sleep(for: .milliseconds(200))
        #expect(recorder.fixes.count == 10)
        #expect(Set(recorder.fixes.map(\.location.timestamp)).count == recorder.fixes.count, "one fix per epoch")
        // libserialport refuses a pty; the termios backend took over and said why.
        let connected = try #require(recorder.statuses.first { $0.hasPrefix("connected to") })
        #expect(connected.contains("termios ("), "\(connected)")
        // The fixes are the parser's fixes for the same sentences.
        var assembler = NMEAEpochAssembler(rollover: .none)
        let expected = lines.prefix(20).flatMap { assembler.append(Array($0.utf8)) }.compactMap(\.fix)
        for fix in recorder.fixes {
            #expect(expected.contains(fix), "\(fix.location.timestamp)")
        }
    }

    /// The device is read on the source's event loop, and its readings are handed on there: navd runs its
    /// navigation loop and writes its clients on that event loop, so a fix wakes no other thread on its way.
    @Test func readingsAreHandedOnOnTheSourcesEventLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let pty = try await PtyPair()
        let source = SerialNMEASource(path: pty.device, baud: 9600, rollover: .none, eventLoop: eventLoop)
        let handedOn = Mutex<[(time: Double?, onLoop: Bool)]>([])
        source.feed.forwardReadings { reading in
            handedOn.withLock { $0.append((reading.fix?.location.timestamp.timeIntervalSince1970, eventLoop.inEventLoop)) }
        }
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("connected to") } }, "\(recorder.statuses)")
        let writer = try PtyWriter(path: pty.feeder)
        for line in try Self.driveLines().prefix(12) {
            writer.write(line)
            try await Task.sleep(for: .milliseconds(10))
        }
        var waited = 0
        while handedOn.withLock({ $0.filter { $0.time != nil }.count }) < 6, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        let readings = handedOn.withLock { $0 }
        #expect(readings.filter { $0.time != nil }.count == 6, "12 lines are 6 RMC+GGA epochs, each with a fix")
        let offTheLoop = readings.filter { !$0.onLoop }.count
        #expect(offTheLoop == 0, "\(offTheLoop) of \(readings.count) readings were handed on off the event loop")
    }

    /// The navigation loop's rehearsal of the next fix (docs/daemon.md, *A fix's way rehearsed*): the last bytes
    /// read are assembled again on a copy of the assembler. Rehearsed three times after every epoch, on the source's
    /// event loop and off it (where it does nothing), the source reads what it reads without: one fix per epoch,
    /// the parser's fixes, every sentence counted once. The rehearsal exists while the device is read, not after.
    @Test func aRehearsalChangesNothingTheSourceReads() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let pty = try await PtyPair()
        let source = SerialNMEASource(path: pty.device, baud: 9600, rollover: .none, eventLoop: eventLoop)
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        #expect(!source.feed.rehearseNextReading(), "a rehearsal before the device is read")
        source.start()
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("connected to") } }, "\(recorder.statuses)")
        let writer = try PtyWriter(path: pty.feeder)
        let lines = Array(try Self.driveLines().prefix(20))
        var rehearsed = 0
        for (index, line) in lines.enumerated() {
            writer.write(line)
            try await Task.sleep(for: .milliseconds(10))
            guard index % 2 == 1 else { continue }
            // After each RMC+GGA epoch, once it has been read.
            _ = await recorder.wait(seconds: 2) { $0.fixes.count >= (index + 1) / 2 }
            for _ in 0..<3 {
                if try await eventLoop.submit({ source.feed.rehearseNextReading() }).get() { rehearsed += 1 }
            }
            source.feed.rehearseNextReading()
        }
        #expect(await recorder.wait(seconds: 5) { $0.fixes.count >= 10 }, "\(recorder.fixes.count) fixes; \(recorder.statuses)")
        try await Task.sleep(for: .milliseconds(200))
        #expect(rehearsed == 30, "\(rehearsed) of 30 rehearsals ran")
        #expect(recorder.fixes.count == 10, "20 lines are 10 RMC+GGA epochs")
        var assembler = NMEAEpochAssembler(rollover: .none)
        let expected = lines.flatMap { assembler.append(Array($0.utf8)) }.compactMap(\.fix)
        #expect(recorder.fixes == expected)
        #expect(source.statistics.sentences == 20)
        source.stop()
        var waited = 0
        while source.feed.rehearseNextReading(), waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(!source.feed.rehearseNextReading(), "a rehearsal after the source stopped")
    }

    /// navd is the receiver's only reader: the tty it opens is in exclusive mode (TIOCEXCL), so gpsd's hotplug
    /// or any other non-root reader gets EBUSY instead of silently taking half of the sentences.
    @Test func theOpenedDeviceIsExclusive() async throws {
        let running = try await RunningSource()
        defer { running.stop() }
        #expect(await running.connected(), "\(running.recorder.statuses)")
        let fd = open(running.pty.device, O_RDONLY | O_NOCTTY | O_NONBLOCK)  // root may open it anyway
        #expect(fd >= 0)
        defer { close(fd) }
        var exclusive: Int32 = 0
        let TIOCGEXCL: UInt = 0x8004_5440
        #expect(ioctl(fd, TIOCGEXCL, &exclusive) == 0)
        #expect(exclusive == 1, "the device is not in exclusive mode")
        // A reader that is not root (gpsd runs as its own user) cannot open it, even with the file's permission.
        chmod(try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: running.pty.device)), 0o666)
        let other = try ExternalProcess("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "cat", running.pty.device])
        _ = other.waitForExit(timeout: 10)
        #expect(other.output.contains("Device or resource busy"), "\(other.output)")
    }

    /// A receiver's first epoch leaves once the line goes quiet after it, without waiting for a second epoch.
    @Test func theFirstEpochLeavesWhenTheLineGoesQuiet() async throws {
        let running = try await RunningSource()
        defer { running.stop() }
        let (pty, recorder) = (running.pty, running.recorder)
        #expect(await running.connected(), "\(recorder.statuses)")
        try await Task.sleep(for: .milliseconds(200))
        let writer = try PtyWriter(path: pty.feeder)
        let lines = try Self.driveLines()
        let written = Date()
        writer.write(lines[0] + lines[1])
        #expect(await recorder.wait(seconds: 2) { $0.fixes.count == 1 }, "\(recorder.fixes.count) fixes")
        print("serial: a lone first epoch left \(String(format: "%.2f", Date().timeIntervalSince(written))) s after it was written")
    }

    /// The silence watchdog every source has: a serial receiver that stops talking is reported lost, and back.
    @Test func aSilentReceiverIsReportedLostAndBack() async throws {
        let running = try await RunningSource()
        defer { running.stop() }
        let (pty, source, recorder) = (running.pty, running.source, running.recorder)
        let watchdog = Task { await source.feed.watchSilence(timeout: 1.0) }
        defer { watchdog.cancel() }
        let writer = try PtyWriter(path: pty.feeder)
        let lines = try Self.driveLines()
        for line in lines.prefix(10) {
            writer.write(line)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(await recorder.wait(seconds: 5) { $0.fixes.count >= 4 }, "\(recorder.statuses)")
        let silentFrom = Date()
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("receiver lost") } }, "\(recorder.statuses)")
        let detection = Date().timeIntervalSince(silentFrom)
        print("serial watchdog: silence reported after \(String(format: "%.2f", detection)) s (timeout 1.0 s)")
        #expect(detection >= 0.5)
        for line in lines[10..<20] { writer.write(line) }
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("receiver back") } }, "\(recorder.statuses)")
    }

    @Test func garbageAndBadChecksumsAreDroppedAndCounted() async throws {
        let running = try await RunningSource()
        defer { running.stop() }
        let (pty, source, recorder) = (running.pty, running.source, running.recorder)
        #expect(await running.connected(), "\(recorder.statuses)")
        let writer = try PtyWriter(path: pty.feeder)
        let lines = try Self.driveLines()
        for (i, line) in lines.prefix(10).enumerated() {
            writer.write("\u{1}\u{2}garbage \(i)\r\n")
            writer.write("$GPGGA,120000,6010.0,N,02456.0,E,1,08,0.9,10.0,M,18.0,M,,*00\r\n")
            writer.write(line)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await recorder.wait(seconds: 5) { _ in source.statistics.sentences >= 10 })
        let statistics = source.statistics
        #expect(statistics.badChecksums == 10)
        #expect(statistics.garbageLines == 10)
        #expect(statistics.sentences == 10)
        #expect(recorder.fixes.count >= 4)
    }

    @Test func aPtyThatDisappearsAndComesBackIsReconnected() async throws {
        let running = try await RunningSource()
        defer { running.stop() }
        let (pty, recorder) = (running.pty, running.recorder)
        let lines = try Self.driveLines()
        #expect(await running.connected(), "\(recorder.statuses)")
        var writer: PtyWriter? = try PtyWriter(path: pty.feeder)
        for line in lines.prefix(6) { writer?.write(line) }
        #expect(await recorder.wait(seconds: 5) { $0.fixes.count >= 2 })
        // Unplug: the pty pair goes away.
        writer = nil
        pty.stop()
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.contains("disappeared") || $0.contains("does not exist") } },
            "\(recorder.statuses)")
        let before = recorder.fixes.count
        // Plug back in: the same link name appears again.
        try await pty.start()
        #expect(await recorder.wait(seconds: 10) { $0.statuses.filter { $0.hasPrefix("connected to") }.count >= 2 }, "\(recorder.statuses)")
        // socat configures the new pair right after creating it; let it settle before writing.
        try await Task.sleep(for: .milliseconds(500))
        writer = try PtyWriter(path: pty.feeder)
        for line in lines[6..<30] {
            writer?.write(line)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await recorder.wait(seconds: 5) { $0.fixes.count >= before + 3 }, "\(recorder.fixes.count - before) new fixes; \(recorder.statuses)")
    }

    @Test func theBaudRateIsDetected() async throws {
        let pty = try await PtyPair()
        let source = SerialNMEASource(path: pty.device, baud: 0, rollover: .none, detectionWindow: 1)
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        let writer = try PtyWriter(path: pty.feeder)
        let lines = try Self.driveLines()
        source.start()
        defer { source.stop() }
        for line in lines.prefix(30) {
            writer.write(line)
            try await Task.sleep(for: .milliseconds(50))
            if recorder.statuses.contains(where: { $0.hasPrefix("connected to") }) { break }
        }
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.contains("baud (detected)") } }, "\(recorder.statuses)")
    }

    @Test func aMissingDeviceIsAClearErrorNamingThePath() async throws {
        let source = SerialNMEASource(path: "/dev/ttyNAVD-missing", baud: 9600)
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.contains("/dev/ttyNAVD-missing does not exist") && $0.contains("retrying") } },
            "\(recorder.statuses)")
    }

    @Test func libserialportEnumeratesAndNamesMissingPorts() throws {
        // Enumeration runs (this machine may have no serial ports at all; what it lists must be well-formed).
        let ports = try SerialPorts.list()
        for port in ports {
            #expect(port.path.hasPrefix("/dev/"))
            #expect(["usb", "bluetooth", "native"].contains(port.transport))
        }
        #expect {
            try SerialProbe.openWithLibSerialPort("/dev/ttyNAVD-missing")
        } throws: { error in
            "\(error)".contains("/dev/ttyNAVD-missing")
        }
    }

    @Test(arguments: [
        (0x1546, 0x01a8, "u-blox receiver"), (0x10c4, 0xea60, "Silicon Labs CP210x (common in GNSS modules)"),
        (0x067b, 0x2303, "Prolific PL2303 (BU-353 and similar)"), (0x091e, 0x0003, "Garmin USB receiver"),
        (0x0e8d, 0x3329, "MediaTek GPS"), (0x1163, 0x0200, "Cypress M8 (DeLorme Earthmate)"),
    ])
    func knownReceiversAreRecognised(vendor: Int, product: Int, name: String) {
        let port = SerialPortInfo(path: "/dev/ttyUSB0", transport: "usb", usbVendorID: vendor, usbProductID: product)
        #expect(port.gnssMatch == name)
        #expect(SerialPorts.findReceiver(in: [SerialPortInfo(path: "/dev/ttyS0", transport: "native"), port])?.path == "/dev/ttyUSB0")
    }

    @Test func productDescriptionsAreTheFallback() {
        let keyboard = SerialPortInfo(path: "/dev/ttyACM0", description: "USB Keyboard", transport: "usb", usbVendorID: 0x1234, usbProductID: 1)
        let gps = SerialPortInfo(path: "/dev/ttyACM1", description: "u-blox 7 - GPS/GNSS Receiver", transport: "usb", usbVendorID: 0x9999, usbProductID: 1)
        #expect(keyboard.gnssMatch == nil)
        #expect(SerialPorts.findReceiver(in: [keyboard, gps])?.path == "/dev/ttyACM1")
        #expect(SerialPorts.findReceiver(in: [keyboard]) == nil)
    }

    /// A Quectel or Sierra modem shows several ports; the first is a diagnostic one that says nothing. With
    /// `serial = "auto"` its known NMEA interface comes first, its other interfaces are no candidates.
    @Test(arguments: [(0x2c7c, 0x0125, 1), (0x1199, 0x9071, 2)])
    func aModemsNMEAInterfaceIsChosen(vendor: Int, product: Int, nmea: Int) {
        let ports = (0..<4).map { (interface: Int) -> SerialPortInfo in
            SerialPortInfo(path: "/dev/ttyUSB\(interface)", transport: "usb", usbVendorID: vendor, usbProductID: product, usbInterface: interface)
        }
        #expect(SerialPorts.receiverCandidates(in: ports).map(\.path) == ["/dev/ttyUSB\(nmea)"])
        #expect(SerialPorts.findReceiver(in: ports)?.path == "/dev/ttyUSB\(nmea)")
        // Without sysfs's interface numbers every port stays a candidate: navd then listens for NMEA.
        let unknown = ports.map { port -> SerialPortInfo in
            var copy = port
            copy.usbInterface = nil
            return copy
        }
        #expect(SerialPorts.receiverCandidates(in: unknown).count == 4)
    }

    /// Several candidates: navd listens to each in turn and takes the first that speaks NMEA (a silent
    /// diagnostic port first, the NMEA port second, both real ptys).
    @Test func theFirstPortThatSpeaksNMEAIsChosen() async throws {
        let silent = try await PtyPair()
        let speaking = try await PtyPair()
        let writer = try PtyWriter(path: speaking.feeder)
        let lines = try Self.driveLines()
        let feeding = Task.detached {
            for line in lines.prefix(200) where !Task.isCancelled {
                writer.write(line)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { feeding.cancel() }
        let chosen = SerialNMEASource.firstSpeaking([silent.device, speaking.device], baud: 9600, window: 1.0)
        #expect(chosen == speaking.device)
        #expect(SerialNMEASource.firstSpeaking([silent.device], baud: 9600, window: 0.5) == nil)
    }
}
