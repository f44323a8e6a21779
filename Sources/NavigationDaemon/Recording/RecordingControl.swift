import FoundationEssentials
import Glibc
import Logging
import LocationSources
import NavigationCore
import NavigationProtocol
import RouteClient
import Synchronization

/// Starts and stops the flight recorder: from the configuration at navd's start, or on `record` commands. While
/// a recording runs, the GNSS source's raw input and every routing exchange reach it too; the navigation loop
/// writes its inputs and outputs (``NavigationService``).
public final class RecordingControl: Sendable {
    private struct Settings {
        var limits: FlightRecorder.Limits
        var configFile: String
        /// The configuration's text with its secrets redacted.
        var configText: String
    }

    private let recorder = Mutex<FlightRecorder?>(nil)
    private let settings: Mutex<Settings>
    private let hub: EventHub
    private let feed: GNSSFeed?
    private let executor: RouteHTTPExecutor?
    private let logger: Logger

    public init(
        limits: FlightRecorder.Limits, configFile: String, configText: String, hub: EventHub, feed: GNSSFeed?, executor: RouteHTTPExecutor?,
        logger: Logger
    ) {
        settings = Mutex(Settings(limits: limits, configFile: configFile, configText: ConfigRedaction.redact(configText)))
        self.hub = hub
        self.feed = feed
        self.executor = executor
        self.logger = logger
    }

    /// The recording under way, if any.
    public var current: FlightRecorder? { recorder.withLock { $0 } }

    /// A reloaded configuration: its limits apply from the next recording.
    public func update(limits: FlightRecorder.Limits, configText: String) {
        settings.withLock {
            $0.limits = limits
            $0.configText = ConfigRedaction.redact(configText)
        }
    }

    /// Starts a recording unless one runs (then returns it). `coordinator` is the loop's state at this moment.
    @discardableResult
    public func start(reason: String, coordinator: TripCoordinator, now: Date) throws(FlightRecorder.CannotRecord) -> FlightRecorder {
        if let current { return current }
        let settings = settings.withLock { $0 }
        let header: [String: JSONValue] = [
            "reason": .string(reason), "navd": .string(NavigationService.navdVersion), "createdRef": .number(now.timeIntervalSinceReferenceDate),
            "config": ["file": .string(settings.configFile), "text": .string(settings.configText)],
            "seed": coordinator.recordingSeed(seq: hub.seq, now: now).json,
        ]
        let started = try FlightRecorder(limits: settings.limits, header: header, createdAt: now, logger: logger)
        recorder.withLock { $0 = started }
        feed?.observeRaw { raw in started.record(raw) }
        executor?.observe { exchange in started.record(exchange) }
        logger.notice("recording to \(started.path) (\(reason))")
        return started
    }

    /// Stops the recording under way; nil when none ran. Returns once it is on disk.
    @discardableResult
    public func stop(reason: String) -> FlightRecorder.Summary? {
        guard let running = recorder.withLock({ current -> FlightRecorder? in
            defer { current = nil }
            return current
        }) else { return nil }
        feed?.observeRaw(nil)
        executor?.observe(nil)
        let summary = running.stop(reason: reason)
        logger.notice("recording stopped (\(reason)): \(summary.files.joined(separator: ", ")), \(summary.bytes) bytes in \(Int(summary.seconds)) s")
        return summary
    }

    /// The `record` command.
    func handle(_ command: RecordCommand, coordinator: TripCoordinator, now: Date) throws(ProtocolError) -> RecordReply {
        switch command.action {
        case .start:
            do {
                let recording = try start(reason: "command", coordinator: coordinator, now: now)
                return RecordReply(recording: true, path: recording.path)
            } catch {
                throw ProtocolError(.recordingFailed, error.description)
            }
        case .stop:
            guard let summary = stop(reason: "record stop") else { return RecordReply(recording: false, files: []) }
            return RecordReply(recording: false, files: summary.files, bytes: summary.bytes, seconds: (summary.seconds * 10).rounded() / 10)
        case .status:
            guard let current else { return RecordReply(recording: false) }
            return RecordReply(recording: true, path: current.path, seconds: (current.elapsed * 10).rounded() / 10)
        }
    }
}
