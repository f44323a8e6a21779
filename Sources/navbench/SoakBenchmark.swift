import Foundation
import NavigationCore
import NMEA
import Synchronization

/// A long drive, time-scaled: the real navd reads a serial pty fed with `hours` of receiver time at 10 Hz, written
/// `speedup` times faster than real time, with `clients` socket clients reading every event, the flight recorder
/// on, and a reroute every few minutes of receiver time (the car leaves the route at 60°) and a new trip after each
/// arrival (back and forth across Helsinki through the real Valhalla). Fix times drive navd's trip logic, so a
/// scaled drive is a real drive to navd. Prints navd's RSS, open file descriptors and threads over receiver time
/// with their slopes after warm-up, what every client missed, and the recording parts against their caps.
struct SoakBenchmark {
    var navd: String
    var valhalla: String
    var hours: Double
    var speedup: Double
    var clients: Int
    /// Megabytes, as `recording.max_file_mb` and `max_total_mb`.
    var partCap = 16.0
    var totalCap = 1024.0
    /// Receiver seconds on a route before the car leaves it (the trips are about 2 km, 2.5 minutes: about one
    /// reroute per trip).
    var leaveEvery = 90.0
    var keep = false

    static let ends = [FieldBenchmark.origin, FieldBenchmark.destination]

    func run() -> [Figure] {
        let root = "/tmp/navbench-soak-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer {
            if keep { progress("the run's files are in \(root)") } else { try? FileManager.default.removeItem(atPath: root) }
        }
        let recordings = "\(root)/recordings"
        let pty = PtyPair(directory: root, name: "gps")
        let instance = NavdUnderTest(
            binary: navd, directory: "\(root)/navd", gnss: FieldBenchmark.serialGNSS(pty), valhalla: valhalla,
            extra: """
                [recording]
                enabled = true
                directory = "\(recordings)"
                max_file_mb = \(partCap)
                max_total_mb = \(totalCap)
                """)
        defer {
            instance.stop()
            pty.close()
        }
        let readers = SoakReaders(socketPath: instance.socketPath, count: clients)
        let epochs = Int(hours * 36_000)
        progress("soak: \(epochs) epochs (\(hours) h of receiver time at 10 Hz) at \(speedup)x, \(clients) clients, recorder on")

        var drive = SoakDrive(leaveEvery: leaveEvery)
        var samples: [SoakSample] = []
        let started = monotonicSeconds()
        var lastSample = -1.0
        let base = Date(timeIntervalSince1970: 1_795_241_290)
        let interval = 0.1 / speedup
        for index in 0..<epochs {
            let tick = started + Double(index) * interval
            var now = monotonicSeconds()
            while now < tick {
                usleep(UInt32(max(20, (tick - now) * 1e6)))
                now = monotonicSeconds()
            }
            let time = base.addingTimeInterval(Double(index) / 10)
            let (position, course, speed) = drive.next(mail: readers.takeMail(), send: readers.sendToControl)
            let fix = UserLocation(
                coordinate: position, horizontalAccuracy: 3, course: CourseOverGround(degrees: course), speed: Speed(metersPerSecond: speed),
                timestamp: time)
            pty.write(NMEAWriter.sentences(for: fix).map { $0 + "\r\n" }.joined())
            if now - lastSample >= 2 || index == epochs - 1 {
                lastSample = now
                samples.append(SoakSample(receiverHours: Double(index) / 36_000, pid: instance.process.pid))
                if samples.count % 30 == 0 {
                    progress(
                        String(format: "soak: %.2f h, RSS %.1f MB, %d fds, %d threads, %d reroutes, %d arrivals", samples.last!.receiverHours,
                               samples.last!.rssMegabytes, samples.last!.descriptors, samples.last!.threads, drive.reroutes, drive.arrivals))
                }
            }
            if !instance.process.isRunning { fail("navd exited during the soak:\n\(instance.process.log)") }
        }
        let wall = monotonicSeconds() - started
        usleep(1_000_000)  // the last events arrive
        // The recording holds every line navd published: what a missed seq was.
        let report = readers.finish(published: Self.publishedTypes(recordings))
        let parts = Self.parts(recordings)
        return figures(samples: samples, report: report, drive: drive, parts: parts, wall: wall, log: instance.process.log)
    }

    private func figures(samples: [SoakSample], report: SoakReaders.Report, drive: SoakDrive, parts: [Int], wall: Double, log: String) -> [Figure] {
        // Warm-up: the first tenth (allocator pools, the first routes, the clients' buffers).
        let steady = samples.filter { $0.receiverHours >= hours / 10 }
        func slope(_ value: (SoakSample) -> Double) -> Double {
            LinearFit(steady.map { ($0.receiverHours, value($0)) }).slope
        }
        let rssSlope = slope(\.rssMegabytes), fdSlope = slope { Double($0.descriptors) }, threadSlope = slope { Double($0.threads) }
        let first = steady.first ?? samples[0], last = samples.last!
        progress(String(format: "soak: %.0f s of wall time for %.1f h of receiver time", wall, hours))
        progress("soak: RSS \(String(format: "%.1f", first.rssMegabytes)) → \(String(format: "%.1f", last.rssMegabytes)) MB, fds \(first.descriptors) → \(last.descriptors), threads \(first.threads) → \(last.threads) (after warm-up)")
        progress("soak: \(report.events) events per client on average; \(report.lost) lost, \(report.coalesced) trip_states coalesced for a client behind, \(report.closed) clients disconnected")
        if !report.lostExamples.isEmpty { progress("soak: lost events (seq: type): \(report.lostExamples.joined(separator: ", "))") }
        let biggestPart = Double(parts.max() ?? 0) / 1_048_576, total = Double(parts.reduce(0, +)) / 1_048_576
        progress(String(format: "soak: %d recording parts, biggest %.2f MB (cap %.0f), all %.1f MB (cap %.0f)", parts.count, biggestPart, partCap, total, totalCap))
        let errors = log.split(separator: "\n").filter { $0.hasPrefix("<3>") || $0.hasPrefix("<2>") }
        if !errors.isEmpty { progress("soak: navd logged errors:\n\(errors.prefix(5).joined(separator: "\n"))") }
        return [
            Figure("soak: receiver time", hours, "h"),
            Figure("soak: speed-up over real time", speedup, "x"),
            Figure("soak: reroutes", Double(drive.reroutes), "reroutes"),
            Figure("soak: arrivals (trips driven)", Double(drive.arrivals), "trips"),
            Figure("soak: RSS after warm-up", first.rssMegabytes, "MB"),
            Figure("soak: RSS at the end", last.rssMegabytes, "MB"),
            Figure("soak: RSS slope after warm-up", rssSlope, "MB/h", target: "< 0.1 MB/h", met: abs(rssSlope) < 0.1),
            Figure("soak: open file descriptors at the end", Double(last.descriptors), "fds"),
            Figure("soak: file descriptor slope", fdSlope, "fds/h", target: "0", met: abs(fdSlope) < 0.01),
            Figure("soak: threads at the end", Double(last.threads), "threads"),
            Figure("soak: thread slope", threadSlope, "threads/h", target: "0", met: abs(threadSlope) < 0.01),
            Figure("soak: events per client", Double(report.events), "events"),
            Figure("soak: events lost (any client)", Double(report.lost + report.closed), "events", target: "0", met: report.lost + report.closed == 0),
            Figure("soak: trip_states replaced for a client behind", Double(report.coalesced), "states"),
            Figure("soak: recording parts", Double(parts.count), "files"),
            Figure("soak: biggest recording part", biggestPart, "MB", target: "≤ \(Int(partCap)) MB", met: biggestPart <= partCap),
            Figure("soak: all recordings", total, "MB", target: "≤ \(Int(totalCap)) MB", met: total <= totalCap),
            Figure("soak: errors in navd's log", Double(errors.count), "lines", target: "0", met: errors.isEmpty),
        ]
    }

    /// The type of every event in the recordings (`{"type":"X","seq":N,...` lines), by seq.
    static func publishedTypes(_ directory: String) -> [UInt64: String] {
        var types: [UInt64: String] = [:]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []) where name.hasSuffix(".jsonl") {
            guard let text = try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix(#"{"type":""#) {
                let head = line.prefix(64)
                guard let typeEnd = head.dropFirst(9).firstIndex(of: "\""), let seqStart = head.range(of: #","seq":"#)?.upperBound,
                    let seq = UInt64(head[seqStart...].prefix { $0.isNumber })
                else { continue }
                types[seq] = String(head[head.index(head.startIndex, offsetBy: 9)..<typeEnd])
            }
        }
        return types
    }

    /// Sizes of the recording files, bytes.
    static func parts(_ directory: String) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") }.compactMap {
            (try? FileManager.default.attributesOfItem(atPath: "\(directory)/\($0)"))?[.size] as? Int
        }
    }
}

/// navd's resources at one moment.
struct SoakSample {
    var receiverHours: Double
    var rssMegabytes: Double
    var descriptors: Int
    var threads: Int

    init(receiverHours: Double, pid: pid_t) {
        self.receiverHours = receiverHours
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix("\(name):") } ?? ""
            // "Threads:\t4", "VmRSS:\t   30000 kB"
            return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? .nan
        }
        rssMegabytes = field("VmRSS") / 1024
        threads = Int(field("Threads").isNaN ? -1 : field("Threads"))
        descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }
}

/// Least squares line through points.
struct LinearFit {
    var slope: Double

    init(_ points: [(Double, Double)]) {
        let n = Double(points.count)
        guard n > 1 else {
            slope = 0
            return
        }
        let meanX = points.reduce(0) { $0 + $1.0 } / n, meanY = points.reduce(0) { $0 + $1.1 } / n
        let sxx = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.0 - meanX) }
        let sxy = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
        slope = sxx > 0 ? sxy / sxx : 0
    }
}

/// The car: on its route, leaving it every `leaveEvery` receiver seconds until navd reroutes, standing after an
/// arrival until the next trip's route arrives.
struct SoakDrive {
    var leaveEvery: Double
    private(set) var reroutes = 0
    private(set) var arrivals = 0
    private var walk: RouteWalk?
    private var distance = 0.0
    private var position = SoakBenchmark.ends[0]
    private var course = 0.0
    private var epochsOnRoute = 0
    private var leaving = false
    private var standing = 0
    private var trips = 0
    private var waitingForRoute = false
    static let speed = 14.0

    init(leaveEvery: Double) {
        self.leaveEvery = leaveEvery
    }

    /// The next epoch's position, course (degrees) and speed (m/s), after what navd said (`mail`).
    mutating func next(mail: SoakReaders.Mail, send: (String) -> Void) -> (GeographicCoordinate, Double, Double) {
        if let route = mail.routes.last, let next = RouteWalk.fromRouteEvent(route) {
            if leaving { reroutes += 1 }
            // From where the car is onto the new route: no jump for the plausibility gate to refuse.
            walk = RouteWalk([position] + next.points)
            distance = 0
            leaving = false
            waitingForRoute = false
            epochsOnRoute = 0
        }
        if mail.arrived > 0 {
            arrivals += mail.arrived
            walk = nil
            standing = 0
        }
        guard let walk else {
            // Standing: after 3 epochs ask for the next trip, to the other end.
            standing += 1
            if standing == 3 && !waitingForRoute {
                trips += 1
                let to = SoakBenchmark.ends[trips % 2]
                send(#"{"type":"navigate","id":"soak\#(trips)","waypoints":[{"lat":\#(to.latitude),"lon":\#(to.longitude)}]}"#)
                waitingForRoute = true
            }
            return (position, course, 0)
        }
        if leaving {
            position = Geodesy.destination(from: position, distance: Self.speed / 10, bearing: course)
            return (position, course, Self.speed)
        }
        epochsOnRoute += 1
        if Double(epochsOnRoute) / 10 >= leaveEvery, distance + 300 < walk.length {
            leaving = true
            course = (course + 60).truncatingRemainder(dividingBy: 360)
            return (position, course, Self.speed)
        }
        distance = min(walk.length, distance + Self.speed / 10)
        (position, course) = walk.position(at: distance)
        return (position, course, distance >= walk.length ? 0 : Self.speed)
    }
}

/// `count` clients of navd's socket read by one thread with poll: every line's `type` and `seq` (navd writes them
/// first), each client's gaps in `seq`, and for the first client the route and arrival events the drive needs.
final class SoakReaders: @unchecked Sendable {
    struct Mail {
        var routes: [String] = []
        var arrived = 0
    }
    struct Report {
        /// Events per client, on average.
        var events: Int
        /// Events a client never got that were not a trip_state replaced by a newer one (or that no client got).
        var lost: Int
        var lostExamples: [String]
        var coalesced: Int
        var closed: Int
    }

    private let descriptors: [Int32]
    private let mail = Mutex(Mail())
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?
    // The reader thread's own until `done`.
    private var lastSeq: [UInt64]
    private var missing: [[UInt64]]
    private var typeOfSeq: [UInt64: String] = [:]
    private var eventCount: [Int]
    private var closed = 0

    init(socketPath: String, count: Int) {
        descriptors = (0..<count).map { _ in connectUnixSocket(socketPath) }
        lastSeq = Array(repeating: 0, count: count)
        missing = Array(repeating: [], count: count)
        eventCount = Array(repeating: 0, count: count)
        let thread = Thread { [self] in readLoop() }
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    func takeMail() -> Mail { mail.withLock { current in defer { current = Mail() }; return current } }

    func sendToControl(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptors[0], $0.baseAddress, $0.count) }
    }

    private func readLoop() {
        var pending = Array(repeating: [UInt8](), count: descriptors.count)
        var buffer = [UInt8](repeating: 0, count: 1 << 17)
        var open = Set(descriptors.indices)
        while !stopping.load(ordering: .relaxed) && !open.isEmpty {
            var polls = open.sorted().map { pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 200) > 0 else { continue }
            for entry in polls where entry.revents != 0 {
                let client = descriptors.firstIndex(of: entry.fd)!
                let count = read(entry.fd, &buffer, buffer.count)
                guard count > 0 else {
                    open.remove(client)
                    closed += 1
                    continue
                }
                pending[client] += buffer[0..<count]
                var start = 0
                pending[client].withUnsafeBufferPointer { bytes in
                    while let newline = (start..<bytes.count).first(where: { bytes[$0] == 10 }) {
                        handle(client: client, line: UnsafeBufferPointer(rebasing: bytes[start..<newline]))
                        start = newline + 1
                    }
                }
                pending[client].removeFirst(start)
            }
        }
        done.signal()
    }

    /// `{"type":"X","seq":N,...`: events carry a seq; hellos and replies are skipped.
    private func handle(client: Int, line: UnsafeBufferPointer<UInt8>) {
        let prefix = String(decoding: UnsafeBufferPointer(rebasing: line[0..<min(64, line.count)]), as: UTF8.self)
        guard prefix.hasPrefix(#"{"type":""#), let typeEnd = prefix.dropFirst(9).firstIndex(of: "\"") else { return }
        let type = String(prefix[prefix.index(prefix.startIndex, offsetBy: 9)..<typeEnd])
        guard type != "hello", type != "reply", type != "error",
            let seqStart = prefix.range(of: #","seq":"#)?.upperBound,
            let seq = UInt64(prefix[seqStart...].prefix { $0.isNumber })
        else { return }
        eventCount[client] += 1
        if typeOfSeq[seq] == nil { typeOfSeq[seq] = type }
        if lastSeq[client] != 0, seq > lastSeq[client] + 1 {
            for gap in (lastSeq[client] + 1)..<seq { missing[client].append(gap) }
        }
        lastSeq[client] = max(lastSeq[client], seq)
        if client == 0 {
            if type == "route" {
                let text = String(decoding: line, as: UTF8.self)
                mail.withLock { $0.routes.append(text) }
            } else if type == "arrived" {
                mail.withLock { $0.arrived += 1 }
            }
        }
    }

    /// Stops reading and tells what each client missed; `published`: every event navd published, by seq.
    func finish(published: [UInt64: String]) -> Report {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        var lost = 0, coalesced = 0
        var examples: [String] = []
        for gaps in missing {
            for seq in gaps {
                let type = typeOfSeq[seq] ?? published[seq]
                if type == "trip_state" {
                    coalesced += 1
                } else {
                    lost += 1
                    if examples.count < 10 { examples.append("\(seq): \(type ?? "not in the recording either")") }
                }
            }
        }
        for fd in descriptors { close(fd) }
        return Report(events: eventCount.reduce(0, +) / max(1, eventCount.count), lost: lost, lostExamples: examples, coalesced: coalesced, closed: closed)
    }
}
