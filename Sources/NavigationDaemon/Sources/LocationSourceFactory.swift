import FoundationEssentials
import Glibc
import LocationSources
import NavigationCore
import NIOCore
import NIOPosix
import NMEA

/// The configured GNSS source, started and stopped the same way whatever it is.
public struct LocationInput: Sendable {
    public let feed: GNSSFeed
    /// A human-readable name for logs and status.
    public let name: String
    /// Runs the source until the calling task is cancelled.
    public let run: @Sendable () async -> Void
    /// Set for the simulated source: the service tells it which route to drive.
    public let simulator: SimulatedGNSS?
}

public enum LocationSourceFactory {
    /// Builds the source. Errors (an unreadable replay file) name the file and the problem; a missing serial
    /// device or an absent gpsd is not an error here: those sources report it and keep retrying.
    /// `eventLoop`: where a serial receiver is read (navd passes its navigation loop's, so that a fix crosses no
    /// thread on its way to the clients); gpsd's client library reads on a thread of its own.
    public static func make(_ gnss: NavdConfig.GNSS, eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()) throws -> LocationInput {
        switch gnss.source {
        case .gpsd:
            guard let address = GpsdSource.address(gnss.gpsd) else { throw SourceConfigurationError("gnss.gpsd '\(gnss.gpsd)' is not HOST:PORT") }
            let source = GpsdSource(host: address.host, port: address.port, device: gnss.device.isEmpty ? nil : gnss.device)
            return LocationInput(
                feed: source.feed, name: "gpsd at \(gnss.gpsd)", run: watched(source.feed, gnss, threaded(start: source.start, stop: source.stop)),
                simulator: nil)
        case .serial:
            let source = SerialNMEASource(path: gnss.serial, baud: gnss.baud, eventLoop: eventLoop)
            return LocationInput(
                feed: source.feed, name: "serial \(gnss.serial)", run: watched(source.feed, gnss, threaded(start: source.start, stop: source.stop)),
                simulator: nil)
        case .replay:
            guard let data = FileManager.default.contents(atPath: gnss.replay) else {
                throw SourceConfigurationError("gnss.replay: cannot read \(gnss.replay)")
            }
            let readings: [GNSSReading]
            do {
                readings = try ReplaySource.readings(from: data)
            } catch {
                throw SourceConfigurationError("gnss.replay: \(gnss.replay): \(error)")
            }
            let source = ReplaySource(readings: readings, pacing: gnss.replaySpeed == 1 ? .realTime : .accelerated(gnss.replaySpeed))
            return LocationInput(feed: source.feed, name: "replay of \(gnss.replay)", run: watched(source.feed, gnss, { await source.run() }), simulator: nil)
        case .simulate:
            let simulator = SimulatedGNSS(
                settings: SimulatedReceiverSettings(
                    start: gnss.simulateStart, speed: gnss.simulateSpeed, rate: gnss.simulateRate, timeScale: gnss.simulateTimeScale,
                    noise: gnss.simulateNoise, missedTurn: gnss.simulateMissedTurn == 0 ? nil : gnss.simulateMissedTurn))
            return LocationInput(feed: simulator.feed, name: "simulated receiver", run: watched(simulator.feed, gnss, { await simulator.run() }), simulator: simulator)
        }
    }

    /// Runs a source with the feed's silence watchdog beside it (`gnss.watchdog_timeout`): every source the same.
    private static func watched(
        _ feed: GNSSFeed, _ gnss: NavdConfig.GNSS, _ run: @escaping @Sendable () async -> Void
    ) -> @Sendable () async -> Void {
        let timeout = gnss.watchdogTimeout
        return {
            await withDiscardingTaskGroup { group in
                group.addTask { await feed.watchSilence(timeout: timeout) }
                await run()
                group.cancelAll()
            }
        }
    }

    /// A source with its own reader thread: started, then stopped when the task is cancelled.
    private static func threaded(start: @escaping @Sendable () -> Void, stop: @escaping @Sendable () -> Void) -> @Sendable () async -> Void {
        {
            start()
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
            stop()
        }
    }
}

public struct SourceConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
