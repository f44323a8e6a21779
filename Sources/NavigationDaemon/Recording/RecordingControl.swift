import FoundationEssentials
import Glibc
import Logging
import LocationSources
import NavigationCore
import NavigationProtocol
import RouteClient
import Synchronization
import SystemSupport

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

    /// Starts a recording unless one runs (then returns it) and waits until its file is open: for navd's start,
    /// before the navigation loop runs. `coordinator` is the loop's state at this moment.
    @discardableResult
    public func start(reason: String, coordinator: TripCoordinator, now: Date) throws(FlightRecorder.CannotRecord) -> FlightRecorder {
        let recorder = begin(reason: reason, coordinator: coordinator, now: now)
        if case .failure(let error) = opened(recorder, reason: reason) { throw error }
        return recorder
    }

    /// Starts a recording unless one runs (then returns it) without touching the disk: from this moment every
    /// input is kept, and the recorder's own thread opens the file (``opened(_:reason:)`` waits for it).
    private func begin(reason: String, coordinator: TripCoordinator, now: Date) -> FlightRecorder {
        if let current { return current }
        let settings = settings.withLock { $0 }
        let header: [String: JSONValue] = [
            "reason": .string(reason), "navd": .string(NavigationService.navdVersion), "createdRef": .number(now.timeIntervalSinceReferenceDate),
            "config": ["file": .string(settings.configFile), "text": .string(settings.configText)],
            "seed": coordinator.recordingSeed(seq: hub.seq, now: now).json,
        ]
        let started = FlightRecorder(opening: settings.limits, header: header, createdAt: now, logger: logger)
        recorder.withLock { $0 = started }
        feed?.observeRaw { raw in started.record(raw) }
        executor?.observe { exchange in started.record(exchange) }
        return started
    }

    /// Waits until `recorder` has opened its file. One that could not is taken out, so nothing more reaches it.
    private func opened(_ started: FlightRecorder, reason: String) -> Result<FlightRecorder, FlightRecorder.CannotRecord> {
        switch started.waitUntilOpen() {
        case .success(let path):
            logger.notice("recording to \(path) (\(reason))")
            return .success(started)
        case .failure(let error):
            if detach(ifCurrent: started) != nil { logger.error("cannot record: \(error)") }
            return .failure(error)
        }
    }

    /// Stops the recording under way; nil when none ran. Returns once it is on disk.
    @discardableResult
    public func stop(reason: String) -> FlightRecorder.Summary? {
        detach(ifCurrent: nil).map { finish($0, reason: reason) }
    }

    /// Takes the recording under way out (when `expected` is given: only if it is that one), so no input reaches it.
    private func detach(ifCurrent expected: FlightRecorder?) -> FlightRecorder? {
        guard let running = recorder.withLock({ current -> FlightRecorder? in
            guard let running = current, expected.map({ $0 === running }) ?? true else { return nil }
            current = nil
            return running
        }) else { return nil }
        feed?.observeRaw(nil)
        executor?.observe(nil)
        return running
    }

    /// Ends a detached recording: its `end` record, then everything flushed and closed.
    private func finish(_ running: FlightRecorder, reason: String) -> FlightRecorder.Summary {
        let summary = running.stop(reason: reason)
        logger.notice("recording stopped (\(reason)): \(summary.files.joined(separator: ", ")), \(summary.bytes) bytes in \(Int(summary.seconds)) s")
        return summary
    }

    /// The `record` command. On the navigation loop (`answerLater` given) `start` and `stop` return nil at once
    /// and answer through `answerLater` when the disk work is done on a thread of their own: slow storage (an SD
    /// card, a full eMMC) must not hold up fixes or the watchdog ping. Without `answerLater` they answer here.
    func handle(
        _ command: RecordCommand, coordinator: TripCoordinator, now: Date,
        answerLater: (@Sendable (Result<RecordReply, ProtocolError>) -> Void)?
    ) throws(ProtocolError) -> RecordReply? {
        switch command.action {
        case .start:
            let recorder = begin(reason: "command", coordinator: coordinator, now: now)
            let answer: @Sendable () -> Result<RecordReply, ProtocolError> = { [self] in
                switch opened(recorder, reason: "command") {
                case .success(let recorder): .success(RecordReply(recording: true, path: recorder.path))
                case .failure(let error): .failure(ProtocolError(.recordingFailed, error.description))
                }
            }
            guard let answerLater else { return try answer().get() }
            DetachedThread.start(name: "navd rec start") { answerLater(answer()) }
            return nil
        case .stop:
            guard let running = detach(ifCurrent: nil) else { return RecordReply(recording: false, files: []) }
            let answer: @Sendable () -> RecordReply = { [self] in
                let summary = finish(running, reason: "record stop")
                return RecordReply(recording: false, files: summary.files, bytes: summary.bytes, seconds: (summary.seconds * 10).rounded() / 10)
            }
            guard let answerLater else { return answer() }
            DetachedThread.start(name: "navd rec stop") { answerLater(.success(answer())) }
            return nil
        case .status:
            guard let current else { return RecordReply(recording: false) }
            return RecordReply(recording: true, path: current.path.isEmpty ? nil : current.path, seconds: (current.elapsed * 10).rounded() / 10)
        }
    }
}
