import Foundation
import NavigationCore
import NMEA

/// Writes NMEA epochs (RMC then GGA, in one write) into ptys at a receiver's rate (10 Hz unless told) on an
/// absolute schedule, and remembers when each epoch was written, keyed by its fix time in centiseconds (what NMEA
/// carries).
final class EpochFeeder {
    struct Sent {
        /// The fix time the epoch carries.
        var time: Date
        /// Monotonic time of the write, in seconds.
        var written: Double
    }

    private let ptys: [PtyPair]
    /// Whole seconds, so every epoch's time is a whole number of tenths.
    private var base = Date(timeIntervalSince1970: 1_795_241_290)
    private var index = 0
    private var anchor = monotonicSeconds()
    private var anchorIndex = 0
    /// Epoch writes by fix time in centiseconds.
    private(set) var sent: [Int: Sent] = [:]

    /// Seconds between epochs.
    private(set) var interval = 0.1

    init(_ ptys: [PtyPair]) {
        self.ptys = ptys
    }

    /// From the next epoch on, `hertz` epochs a second (1-20: whole centiseconds apart, as NMEA's times are).
    func setRate(_ hertz: Int) {
        precondition([1, 2, 4, 5, 10, 20].contains(hertz), "a rate whose epochs fall on whole centiseconds")
        base = base.addingTimeInterval(Double(index) * interval - Double(index) / Double(hertz))
        interval = 1 / Double(hertz)
        anchor = monotonicSeconds()
        anchorIndex = index
    }

    /// Writes the next epoch at its tick (re-anchoring the schedule when the caller was away longer).
    @discardableResult
    func send(_ coordinate: GeographicCoordinate, course: Double, speed: Double) -> Sent {
        var tick = anchor + Double(index - anchorIndex) * interval
        var now = monotonicSeconds()
        if now > tick + interval / 2 {
            anchor = now
            anchorIndex = index
            tick = now
        }
        while now < tick {
            usleep(UInt32(max(50, (tick - now) * 1e6)))
            now = monotonicSeconds()
        }
        let time = base.addingTimeInterval(Double(index) * interval)
        let fix = UserLocation(
            coordinate: coordinate, horizontalAccuracy: 3, course: CourseOverGround(degrees: course),
            speed: Speed(metersPerSecond: speed), timestamp: time)
        let text = NMEAWriter.sentences(for: fix).map { $0 + "\r\n" }.joined()
        let written = monotonicSeconds()
        // With several readers the order alternates, so that none is always written second (a pty write is some
        // microseconds).
        for pty in index % 2 == 0 ? ptys : ptys.reversed() { pty.write(text) }
        index += 1
        let record = Sent(time: time, written: written)
        sent[Self.key(time)] = record
        return record
    }

    static func key(_ time: Date) -> Int { Int((time.timeIntervalSince1970 * 100).rounded()) }

    /// Saves each epoch's write, one a line in fix-time order: its key (centiseconds) and the monotonic time of its
    /// write in milliseconds, the clock of `LineTap.save`'s arrivals, so a run kept with `--keep` can be read epoch
    /// by epoch (where its slowest epochs fell).
    func save(to path: String) {
        let text = sent.sorted { $0.key < $1.key }.map { String(format: "%ld %.3f", $0.key, $0.value.written * 1000) }.joined(separator: "\n")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    /// The fix time a line carries in its top-level `time` (navd's trip_state, gpsd's TPV). Not the first
    /// `"time":` in the text: a trip_state's `arrival` has its own `time` before it.
    static func fixTime(in line: String) -> Date? {
        guard let text = (try? JSONParser.parse(Array(line.utf8)))?["time"]?.stringValue else { return nil }
        return ISO8601Timestamp.parse(text)
    }

    /// For lines passing `filter`: the latency of each epoch (arrival minus write, ms) and how many lines each
    /// epoch written since `since` produced.
    func latencies(of lines: [LineTap.Line], since: Date, filter: (String) -> Bool) -> (milliseconds: [Double], perEpoch: [Int: Int]) {
        // Compared as centisecond keys: a time parsed from milliseconds and one built by adding tenths differ in
        // their last bits.
        let first = Self.key(since)
        var milliseconds: [Double] = []
        var perEpoch: [Int: Int] = [:]
        for key in sent.keys where key >= first { perEpoch[key] = 0 }
        for line in lines where filter(line.text) {
            guard let time = Self.fixTime(in: line.text) else { continue }
            let key = Self.key(time)
            guard key >= first, let record = sent[key] else { continue }
            if perEpoch[key] == 0 { milliseconds.append((line.time - record.written) * 1000) }
            perEpoch[key, default: 0] += 1
        }
        return (milliseconds, perEpoch)
    }

    /// For lines passing `filter`: per epoch written since `since`, keyed by its fix time in centiseconds, when
    /// the first line carrying that fix time arrived (ms after the write).
    func firstArrivals(of lines: [LineTap.Line], since: Date, filter: (String) -> Bool) -> [Int: Double] {
        let first = Self.key(since)
        var arrivals: [Int: Double] = [:]
        for line in lines where filter(line.text) {
            guard let time = Self.fixTime(in: line.text) else { continue }
            let key = Self.key(time)
            guard key >= first, arrivals[key] == nil, let record = sent[key] else { continue }
            arrivals[key] = (line.time - record.written) * 1000
        }
        return arrivals
    }

    /// For several clients' lines passing `filter`: per epoch written since `since` that every client got, the
    /// latest of their first arrivals (ms after the write). navd's event loops write their clients at once, so the
    /// client written last is the slowest of the last client of each loop, not one known in advance.
    func worstLatencies(of clients: [[LineTap.Line]], since: Date, filter: (String) -> Bool) -> [Double] {
        var worst: [Int: Double] = [:]
        var received: [Int: Int] = [:]
        for lines in clients {
            for (key, milliseconds) in firstArrivals(of: lines, since: since, filter: filter) {
                worst[key] = max(worst[key] ?? 0, milliseconds)
                received[key, default: 0] += 1
            }
        }
        return worst.keys.sorted().filter { received[$0] == clients.count }.compactMap { worst[$0] }
    }
}

/// A route's line, walked by distance.
struct RouteWalk {
    let points: [GeographicCoordinate]
    private let cumulative: [Double]

    init(_ points: [GeographicCoordinate]) {
        self.points = points
        var total = 0.0
        var cumulative = [0.0]
        for (a, b) in zip(points, points.dropFirst()) {
            total += Geodesy.distance(a, b)
            cumulative.append(total)
        }
        self.cumulative = cumulative
    }

    var length: Double { cumulative.last ?? 0 }

    /// The point `distance` metres along, and the course there (degrees).
    func position(at distance: Double) -> (GeographicCoordinate, Double) {
        let d = min(max(0, distance), length)
        var i = 0
        while i + 2 < cumulative.count && cumulative[i + 1] < d { i += 1 }
        guard points.count > 1 else { return (points[0], 0) }
        let (a, b) = (points[i], points[i + 1])
        let bearing = Geodesy.bearing(from: a, to: b)
        return (Geodesy.destination(from: a, distance: d - cumulative[i], bearing: bearing), bearing)
    }

    /// The geometry of a `route` event line (`route.geometry`: [lon, lat] pairs).
    static func fromRouteEvent(_ line: String) -> RouteWalk? {
        guard let value = try? JSONParser.parse(Array(line.utf8)), let pairs = value["route"]?["geometry"]?.arrayValue else { return nil }
        let points = pairs.compactMap { pair -> GeographicCoordinate? in
            guard let p = pair.arrayValue, p.count == 2, let lon = p[0].doubleValue, let lat = p[1].doubleValue else { return nil }
            return GeographicCoordinate(latitude: lat, longitude: lon)
        }
        return points.count > 1 ? RouteWalk(points) : nil
    }
}
