import FoundationEssentials
import Glibc
import NavigationCore
import NMEA
import TrackFormats

/// How fast a replay plays.
public enum ReplayPacing: Hashable, Sendable {
    /// As recorded: the gap between two readings is the gap between their timestamps.
    case realTime
    /// Faster (or slower) by this factor.
    case accelerated(Double)
    /// No waiting at all.
    case asFastAsPossible

    /// Seconds to wait between readings recorded `gap` seconds apart.
    func delay(forGap gap: Double) -> Double {
        switch self {
        case .realTime: max(0, gap)
        case .accelerated(let factor): factor > 0 ? max(0, gap) / factor : 0
        case .asFastAsPossible: 0
        }
    }
}

/// Plays recorded readings into a feed: NMEA logs, gpsd JSON logs, GPX tracks, JSON Lines of fixes.
/// Pacing comes from the readings' own timestamps, through an injected `sleep` so that tests never wait.
public final class ReplaySource: Sendable {
    public let readings: [GNSSReading]
    public let pacing: ReplayPacing
    public let feed = GNSSFeed(keepEveryReading: true)
    private let sleep: @Sendable (Double) async throws -> Void

    public init(
        readings: [GNSSReading], pacing: ReplayPacing,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) {
        self.readings = readings
        self.pacing = pacing
        self.sleep = sleep
    }

    /// Reads a file by its content: NMEA (lines starting with `$`), gpsd JSON (objects with a `class`), JSON
    /// Lines of fixes, or GPX.
    public static func readings(from data: Data, rollover: GPSWeekRollover = .gpsdDefault) throws -> [GNSSReading] {
        let firstLine = data.split(separator: UInt8(ascii: "\n")).first(where: { $0.contains { $0 > 32 } }).map { Array($0) } ?? []
        if firstLine.contains(UInt8(ascii: "$")) || firstLine.contains(UInt8(ascii: "!")) || !data.isEmpty && firstLine.first.map({ $0 < 32 || $0 > 126 }) == true {
            var assembler = NMEAEpochAssembler(rollover: rollover)
            return assembler.append(data) + assembler.append([0x0a]) + assembler.finish()
        }
        if String(decoding: firstLine, as: UTF8.self).contains("\"class\"") { return try GpsdJSONLogReader.read(data) }
        return try LocationTrackReader.read(data).map { location in
            .fix(GNSSFix(location: location, quality: GNSSQuality(mode: .twoDimensional, horizontalAccuracy: location.horizontalAccuracy)))
        }
    }

    /// Plays every reading, then reports ``GNSSSourceStatus/finished`` and finishes the feed. Cancellation stops it.
    public func run() async {
        feed.report(.connected("replay of \(readings.count) readings"))
        var previous: Date?
        for reading in readings {
            let time: Date? =
                switch reading {
                case .fix(let fix): fix.location.timestamp
                case .noFix(_, let time): time
                }
            if let time, let previous {
                let delay = pacing.delay(forGap: time.timeIntervalSince(previous))
                if delay > 0 {
                    do { try await sleep(delay) } catch { break }
                }
            }
            if Task.isCancelled { break }
            if let time { previous = time }
            feed.yield(reading)
        }
        feed.report(.finished)
        feed.finish()
    }
}
