import FoundationEssentials
import Glibc
import Logging
import NIOCore
import LocationSources
import NavigationCore
import NavigationProtocol
import RouteClient
import Synchronization
import SystemSupport

/// The one owner of navigation state. Its loop takes one input at a time (fixes, source statuses, client
/// commands, calculation results, timer ticks) and applies it to the ``TripCoordinator``, then performs the
/// coordinator's effects: publishing events, starting and cancelling calculation sessions, writing the journal.
/// Calculations, the source and the timer run as child tasks of the service; nothing outlives it.
public final class NavigationService: DaemonService {
    enum Input: Sendable {
        case reading(GNSSReading)
        case sourceStatus(GNSSSourceStatus)
        case connected(ClientConnection)
        case command(PreparedCommand, id: JSONValue?, client: ClientConnection)
        case refused(ProtocolError, id: JSONValue?, client: ClientConnection)
        case attemptFailed(session: Int, RouteCalculationRunner.FailedAttempt)
        case finished(session: Int, RouteCalculationRunner.Outcome)
        case tick
        case reload(TripCoordinator.Settings, RouteCalculationRunner, configText: String)
        /// The answer to a command whose handler finished its work off the loop (`record start`, `record stop`).
        case lateAnswer(ServerMessage, client: ClientConnection)
    }

    public static let navdVersion = "0.6.0"

    private let inbox = LoopInbox<Input>()
    /// What the loop owns: whoever holds the loop (``LoopInbox``) reads and changes it.
    private let state: LoopState
    /// Calculations and slow clients' grace periods the loop started.
    private let children = LoopChildTasks()
    private let location: LocationInput
    private let hub: EventHub
    private let journal: JournalWriter?
    private let voiceModeFile: VoiceModeFile?
    private let notifier: SystemdNotifier
    private let readiness: Readiness
    private let logger: Logger
    private let tickInterval: Duration
    private let recording: RecordingControl?
    private let recordFromStart: Bool
    private let now: @Sendable () -> Date
    private let bootId = BootClock.bootId()
    /// Where the loop runs: the event loop that reads the receiver and writes the clients (nil: Swift's pool).
    private let executor: EventLoopTaskExecutor?
    /// The writers of the clients on the loop's event loop, run at once after an input run in place.
    private let localWriters: EventLoopWriters?
    /// Idle CPUs held awake shortly before a fix or a route answer is due (nil: not asked for, or not available).
    private let wakeHold: WakeHold?

    public init(
        coordinator: TripCoordinator, runner: RouteCalculationRunner, location: LocationInput, hub: EventHub, journal: TripJournal?,
        voiceModeFile: VoiceModeFile? = nil, notifier: SystemdNotifier, readiness: Readiness, logger: Logger, recording: RecordingControl? = nil, recordFromStart: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }, eventLoop: (any EventLoop)? = nil, wakeLatency: CPUWakeLatency? = nil
    ) {
        executor = eventLoop.map(EventLoopTaskExecutor.init)
        localWriters = eventLoop.map { hub.writers.queue(for: $0) }
        wakeHold = eventLoop.flatMap { loop in wakeLatency.map { WakeHold(request: $0, eventLoop: loop) } }
        self.recording = recording
        self.recordFromStart = recordFromStart
        state = LoopState(coordinator: coordinator, runner: runner)
        self.location = location
        self.hub = hub
        self.journal = journal.map { JournalWriter(journal: $0, logger: logger) }
        self.voiceModeFile = voiceModeFile
        self.notifier = notifier
        self.readiness = readiness
        self.logger = logger
        self.now = now
        // Ping systemd's watchdog from the loop itself, three times per interval, so a stuck loop is restarted.
        if let watchdog = notifier.watchdogInterval {
            tickInterval = min(.seconds(1), watchdog / 3)
        } else {
            tickInterval = .seconds(1)
        }
        // A client queued on another event loop overflows there; it gets the same grace period and close.
        hub.onOverflow { [weak self] client in self?.disconnectSlow(client) }
    }

    /// A client connected: the loop sends `hello` with the current state before any event.
    public func clientConnected(_ client: ClientConnection) { runOrQueue(.connected(client)) }

    public func submit(_ command: PreparedCommand, id: JSONValue?, client: ClientConnection) {
        runOrQueue(.command(command, id: id, client: client))
    }

    /// A line the socket refused (unparsable, not authorized): answered by the loop, so that the error comes
    /// after the client's hello and after the answers to the commands it sent before.
    public func refuse(_ error: ProtocolError, id: JSONValue?, client: ClientConnection) {
        runOrQueue(.refused(error, id: id, client: client))
    }

    /// `configText`: the new configuration's text, for the flight recorder (redacted there).
    public func reload(settings: TripCoordinator.Settings, runner: RouteCalculationRunner, configText: String) {
        inbox.yield(.reload(settings, runner, configText: configText))
    }

    /// Runs `input` right here when the caller is on the loop's event loop and the loop is idle (its task waits,
    /// nothing is queued): a fix read from a serial receiver, a command read from a client's socket or an engine's
    /// answer read there then reaches the loop as a function call, without a task resumed for it on the event
    /// loop's queue. Otherwise `input` waits its turn in the inbox.
    ///
    /// What the input queued for the clients on this event loop is written right after, in the same call, rather
    /// than by a job queued behind the read (the serial channel's next read attempt and NIO's bookkeeping came
    /// first). A calculation the input started has written its request to a kept-alive connection already (its
    /// task runs at once until it waits), so the engine has it before the clients have the input's answer and
    /// events; on a new connection the request follows the connect, whenever that completes.
    private func runOrQueue(_ input: Input) {
        if let eventLoop = executor?.eventLoop, eventLoop.inEventLoop, inbox.claimIfIdle() {
            process(input)
            let bookkeeping = state.takeBookkeeping()
            inbox.release()
            localWriters?.runNow()
            // Written: what the window waited for has reached the clients.
            if let reason = input.endsWakeWindow { wakeHold?.close(reason) }
            perform(bookkeeping)
        } else {
            inbox.yield(input)
        }
    }

    /// Where clients' sessions run: the loop's own executor, so that a command read from a client's socket reaches
    /// the loop on the thread that read it, with no hop to Swift's pool and back (nil: Swift's pool).
    var sessionExecutor: (any TaskExecutor)? { executor }

    public func run() async throws {
        await withTaskExecutorPreference(executor) { await runLoop() }
    }

    private func runLoop() async {
        let inbox = self.inbox
        let location = self.location
        let tickInterval = self.tickInterval
        if recordFromStart, let recording {
            // Before the source starts: the recording holds every input from the first.
            do {
                try recording.start(reason: "config", coordinator: state.coordinator, now: now())
            } catch {
                logger.error("cannot record: \(error); navigating without a recording")
            }
        }
        // A reading read on the loop's event loop while the loop is idle is run right there (a serial receiver's
        // fix then reaches the clients' outboxes within the read); any other enters the loop's queue on the
        // source's thread, with no task in between.
        location.feed.forwardReadings { [self] reading in runOrQueue(.reading(reading)) }
        await withDiscardingTaskGroup { group in
            // The source paces itself (a simulated or replayed drive sleeps between fixes) or starts its own reader
            // (a serial receiver is read on the event loop by NIO, gpsd on a thread): off the loop's event loop, so a
            // busy event loop does not stretch a simulated receiver's epochs.
            group.addTask(executorPreference: globalConcurrentExecutor) { await location.run() }
            group.addTask {
                for await status in location.feed.statuses { inbox.yield(.sourceStatus(status)) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tickInterval)
                    inbox.yield(.tick)
                }
            }
            logger.info("GNSS source started", metadata: ["source": "\(location.name)"])
            readiness.sourceStarted()
            await loop()
            group.cancelAll()
        }
        // Readings after the loop are dropped, and the feed stops holding the service (its sink captured it).
        location.feed.forwardReadings { _ in }
        notifier.stopping()
        // How many fixes' ways were rehearsed (a field tester's check that the rehearsal runs with their receiver).
        logger.info("navigation loop stopped", metadata: ["fixRehearsals": "\(state.rehearsals)", "answerRehearsals": "\(state.answerRehearsals)"])
    }

    private func loop() async {
        await withGracefulShutdownHandler {
            while let input = await inbox.next() {
                process(input)
                perform(state.takeBookkeeping())
                // After the writes this input queued on the loop's event loop.
                if let reason = input.endsWakeWindow, let wakeHold { executor?.eventLoop.execute { wakeHold.close(reason) } }
            }
        } onGracefulShutdown: { [inbox] in
            inbox.finish()
        }
        // Shutting down: keep the trip for the next start, stop calculations and the recording.
        state.rehearsal?.cancel()
        state.answerRehearsal?.task.cancel()
        for signal in state.cancels.values { signal.cancel() }
        await children.cancelAllAndWait()
        recording?.stop(reason: "navd stopped")
        voiceModeFile?.waitUntilWritten()
        guard let journal else { return }
        let record = state.coordinator.checkpoint(now: now())
        if let record { journal.submit(.save(stamped(record))) }
        journal.finish()
        if let record { logger.info("trip journaled for the next start", metadata: ["routeId": "\(record.routeId)"]) }
    }

    /// Runs one input: by the loop's task, or in place by a reader that found the loop idle (``LoopInbox``).
    private func process(_ input: Input) {
        let state = self.state
        if case .lateAnswer(let answer, let client) = input {
            hub.deliver(answer.line, to: client) { client.answered() }
            return
        }
        let time = now()
        // The loop input as a value (what is recorded and replayed), and the live objects a command needs.
        var client: ClientConnection?
        var command: PreparedCommand?
        let loopInput: LoopInput
        switch input {
        case .reading(let reading):
            loopInput = .reading(reading)
        case .sourceStatus(let status):
            loopInput = .sourceStatus(status)
        case .connected(let connected):
            // A client that is already gone is not added (its connection task has finished).
            guard !connected.outbox.isClosing else {
                connected.answered()
                return
            }
            client = connected
            loopInput = .connected(client: connected.id, control: connected.mayControl)
        case .command(let prepared, _, let sender):
            client = sender
            command = prepared
            loopInput = .command(line: prepared.line, client: sender.id, control: sender.mayControl)
        case .refused(let error, let id, let sender):
            client = sender
            loopInput = .refused(error, id: id, client: sender.id)
        case .attemptFailed(let session, let failure):
            loopInput = .attemptFailed(session: session, failure)
        case .finished(let session, let outcome):
            state.cancels[session] = nil
            answerArrived(session: session, outcome)
            loopInput = .finished(session: session, outcome)
        case .tick:
            loopInput = .tick
            notifier.watchdog()
        case .reload(let settings, let newRunner, let configText):
            state.runner = newRunner
            loopInput = .reload(settings, configText: ConfigRedaction.redact(configText))
            logger.notice("configuration reloaded")
        case .lateAnswer:
            return  // answered above
        }
        // `record` itself is not part of what it records.
        let recorder = command?.type == RecordCommand.type ? nil : recording?.current
        recorder?.record(loopInput, now: time)
        let answer = state.coordinator.step(
            loopInput, now: time, seq: hub.seq, command: command, client: client, recording: recording,
            answerLater: client.flatMap { client in command.map { lateAnswer(to: $0, from: client) } })
        // Calculations start before anything is written: their requests (made on this event loop, each task run
        // at once until it waits for its answer) go to the engine ahead of the answer and the events, whose
        // encoding and writes to every client would otherwise come first.
        var effects = state.coordinator.takeEffects()
        let starts = effects.filter(\.startsCalculation)
        if !starts.isEmpty {
            effects.removeAll(where: \.startsCalculation)
            perform(starts, recorder: recording?.current)
        }
        // Added before its hello is queued (nothing is published in between): the hello still comes first, and
        // the client is in the hub before the hello settles what the loop owes it, so a client that leaves at
        // once is removed after it was added, never before.
        if case .connected(let connected) = input {
            hub.add(connected)
            logger.info("client connected", metadata: ["client": "\(connected.id)", "peer": "\(connected.peer)", "control": "\(connected.mayControl)"])
        }
        if let answer, let client {
            let line = answer.line
            recorder?.recordLine(line)
            hub.deliver(line, to: client) { client.answered() }
        } else if command == nil {
            // Nothing to queue; a command answered later is still owed (its `lateAnswer` settles it).
            client?.answered()
        }
        perform(consume effects, recorder: recording?.current)
        if let replaced = state.coordinator.takeReplacedTrip() { state.bookkeeping.append(.free(replaced)) }
        // A mutating getter, read in place (a getter on the stored coordinator copied it whole, on every input).
        let status = state.coordinator.statusLine
        if status != state.lastStatus {
            state.lastStatus = status
            readiness.statusChanged(status)
        }
        if case .reading(let reading) = input, let fix = reading.fix { scheduleRehearsal(after: fix) }
    }

    /// Schedules the rehearsal of the next fix's way on the loop's event loop, ``FixCadence/lead`` before the
    /// receiver's next fix is due (docs/daemon.md, *A fix's way rehearsed*).
    ///
    /// Why: at 10 Hz navd's thread wakes every 100 ms to caches that hold little of a fix's code and data; a fix's
    /// way ran about ten times slower than back to back (docs/performance.md). Run once on a copy shortly before,
    /// the real fix finds it in the caches.
    private func scheduleRehearsal(after fix: GNSSFix) {
        guard let eventLoop = executor?.eventLoop, eventLoop.inEventLoop else { return }
        let state = self.state
        state.rehearsal?.cancel()
        state.rehearsal = nil
        state.cadence.fixArrived(at: Int64(clamping: NIODeadline.now().uptimeNanoseconds))
        guard let time = state.cadence.rehearsalTime, let seconds = state.cadence.intervalSeconds else { return }
        let next = fix.carried(by: seconds)
        state.rehearsal = eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(clamping: time))) { [weak self] in
            self?.rehearse(next)
        }
    }

    /// Runs `fix`'s way as the loop would, on a copy of the coordinator, and drops what it produced: its events'
    /// lines are encoded and not sent, its effects not performed. Only while the loop is idle (an input in
    /// progress warms the caches itself); the loop's state is not changed, so nothing of it reaches a client, the
    /// journal or a recording.
    private func rehearse(_ fix: GNSSFix) {
        guard inbox.claimIfIdle() else { return }
        let state = self.state
        state.rehearsal = nil
        state.rehearsals &+= 1
        location.feed.rehearseNextReading()
        _ = Rehearsal.fix(fix, on: state.coordinator, now: now(), seq: hub.seq)
        inbox.release()
        // The fix is due in about 2 ms: its bytes wake the loop's thread on a CPU that has not gone to sleep.
        wakeHold?.open(.fix)
    }

    /// Notes when `session`'s request went to the engine and schedules the rehearsal of its answer's way on the
    /// loop's event loop, ``EngineCadence/lead`` before the engine's fastest recent answer's last byte would come
    /// (docs/daemon.md, *An answer's way rehearsed*). Called right after the session's task ran until it waits
    /// for the answer: on a kept-alive connection its request is written by then.
    ///
    /// Why: an engine computes for milliseconds, in which its own work and the clients' evict navd's from the
    /// caches; an answer's way from its last `read` to the `route` event's `write` took 0.7–0.9 ms against about
    /// 0.15 ms back to back (docs/performance.md).
    private func scheduleAnswerRehearsal(session: Int) {
        guard let eventLoop = executor?.eventLoop, eventLoop.inEventLoop else { return }
        let state = self.state
        let sent = Int64(clamping: NIODeadline.now().uptimeNanoseconds)
        state.sessionStarts[session] = sent
        guard let delay = state.engineCadence.rehearsalDelay, state.lastAnswer != nil else { return }
        state.answerRehearsal?.task.cancel()
        let task: Scheduled<Void> = eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(clamping: sent &+ delay))) { [weak self] in
            self?.rehearseAnswer(session: session)
        }
        state.answerRehearsal = (session, task)
    }

    /// `session`'s answer reached the loop: the engine's time is learned from a first attempt's success, a short
    /// enough answer is kept for the next rehearsal, and a rehearsal still pending for the session is cancelled.
    private func answerArrived(session: Int, _ outcome: RouteCalculationRunner.Outcome) {
        let state = self.state
        if state.answerRehearsal?.session == session {
            state.answerRehearsal?.task.cancel()
            state.answerRehearsal = nil
        }
        guard let sent = state.sessionStarts.removeValue(forKey: session), case .success(let routes) = outcome.result else { return }
        // The engine's time: to the answer's last byte, before navd parsed it (the client's last answer, parsed
        // just now, unless it was parsed elsewhere: a long one, whose time would then be before `sent`).
        if outcome.attempts == 1, let received = state.runner.engines.first?.fetcher.executor.lastAnswerReceived {
            let (took, overflow) = Int64(clamping: received.uptimeNanoseconds).subtractingReportingOverflow(sent)
            if !overflow { state.engineCadence.answered(after: took) }
        }
        if Rehearsal.isRehearsable(routes) { state.lastAnswer = routes }
    }

    /// Runs an answer's way as the loop would, while `session` still waits for its engine: the engine's client
    /// parses the last answer it parsed again, and a copy of the coordinator takes the last answer taken as
    /// `session`'s; what they produce is dropped. Only while the loop is idle; the loop's state is not changed, so
    /// nothing of it reaches a client, the journal, an engine or a recording. An answer that comes meanwhile waits
    /// for the rehearsal (about an answer's own way in navd).
    private func rehearseAnswer(session: Int) {
        guard inbox.claimIfIdle() else { return }
        let state = self.state
        state.answerRehearsal = nil
        let waiting = state.cancels[session] != nil
        if waiting, let routes = state.lastAnswer {
            state.answerRehearsals &+= 1
            state.runner.engines.first?.fetcher.executor.rehearseLastAnswer()
            _ = Rehearsal.answer(routes, session: session, on: state.coordinator, now: now(), seq: hub.seq)
        }
        inbox.release()
        // The answer is due in about 1 ms (an engine slower than a local one is held for only from here).
        if waiting { wakeHold?.open(.answer) }
    }

    /// How a command's handler answers after the loop moved on: its answer comes back into the loop's queue.
    private func lateAnswer(to command: PreparedCommand, from client: ClientConnection) -> @Sendable (Result<[String: JSONValue], ProtocolError>) -> Void {
        let (id, type, inbox) = (command.line["id"], command.type, inbox)
        return { outcome in
            let message: ServerMessage =
                switch outcome {
                case .success(let result): .reply(id: id, command: type, result: result)
                case .failure(let error): .error(id: id, error)
                }
            inbox.yield(.lateAnswer(message, client: client))
        }
    }

    /// The record with this boot's id and uptime, so that a restart within the boot measures its age exactly.
    private func stamped(_ record: TripJournalRecord) -> TripJournalRecord {
        var record = record
        record.bootId = bootId
        record.uptime = BootClock.uptime()
        return record
    }

    private func disconnectSlow(_ client: ClientConnection) {
        guard client.markDisconnecting() else { return }
        logger.warning("client too slow; disconnecting", metadata: ["client": "\(client.id)", "peer": "\(client.peer)"])
        children.start(on: nil) {
            // The final error is written if the client reads again soon; otherwise the connection is dropped.
            try? await Task.sleep(for: .seconds(10))
            client.forceClose()
        }
    }

    private func perform(_ effects: consuming [TripCoordinator.Effect], recorder: FlightRecorder?) {
        let state = self.state
        // Each effect moved out of the list and consumed by its case, its event handed on (`publish` consumes it):
        // a `for` loop copies each effect and its binding copies the event again, a retain of every text and list
        // in a `trip_state` twice a fix.
        var pending = consume effects
        for index in pending.indices {
            var effect = TripCoordinator.Effect.deleteJournal  // a case without a payload, left in the effect's place
            swap(&effect, &pending[index])
            switch consume effect {
            case .publish(let event, let routeId):
                let published = hub.publish(event, routeId: routeId)
                recorder?.recordLine(published.line)
                for client in published.overflowed {
                    disconnectSlow(client)
                }
            case .startCalculation(let session, let request):
                let signal = CancelSignal()
                state.cancels[session] = signal
                let runner = state.runner
                let preparation = state.coordinator.routePreparation(forSession: session)
                // On the loop's event loop, where the engine's connection lives: the request, the answer and the
                // result cross no thread. A long answer is parsed on Swift's pool (RouteFetcher), and a long
                // route's controller and text are made there (PreparedRoute), so that they do not hold fixes back.
                // Run at once: the request is built and written to a kept-alive connection here, before this
                // input's answer and events are even written out.
                children.start(on: executor, immediately: true) { [self] in
                    let outcome = await signal.run {
                        var outcome = await runner.run(request) { failure in
                            runOrQueue(.attemptFailed(session: session, failure))
                        }
                        if let preparation, case .success(let routes) = outcome.result, PreparedRoute.isWorthIt(routes) {
                            outcome.prepared = await withTaskExecutorPreference(globalConcurrentExecutor) { PreparedRoute(routes[0], preparation) }
                            if outcome.prepared != nil {
                                logger.debug("long route made ready off the loop", metadata: ["session": "\(session)", "points": "\(routes[0].geometry.count)"])
                            }
                        }
                        return outcome
                    }
                    if let outcome {
                        runOrQueue(.finished(session: session, outcome))
                    }
                }
                // A local engine (answers learned to come within a window's hold, or none learned yet): held awake
                // once the request is written (above, at once), so that the engine's threads, woken stage by stage
                // after its first read, find their CPUs awake.
                if state.engineCadence.isLocal { wakeHold?.open(.answer) }
                scheduleAnswerRehearsal(session: session)
            case .activeRouteChanged(let route):
                location.simulator?.follow(route)
                for notice in route?.notices ?? [] { state.bookkeeping.append(.log(.warning, "route answer not used as it came: \(notice)")) }
            case .cancelCalculation(let session):
                state.cancels.removeValue(forKey: session)?.cancel()
                state.sessionStarts[session] = nil
                if state.answerRehearsal?.session == session {
                    state.answerRehearsal?.task.cancel()
                    state.answerRehearsal = nil
                }
            case .saveJournal(let record):
                // Recorded here, in the order of the lines around it; written after them (`Bookkeeping`).
                recorder?.recordLine(JournalDecision.save(record).line)
                state.bookkeeping.append(.journal(.save(stamped(record))))
            case .deleteJournal:
                recorder?.recordLine(JournalDecision.delete.line)
                state.bookkeeping.append(.journal(.delete))
            case .saveVoiceMode(let mode):
                state.bookkeeping.append(.voiceMode(mode))
            case .log(let level, let message):
                state.bookkeeping.append(.log(level, message))
            }
        }
    }

    /// Hands the journal, the voice mode file and the log what an input left for them. Called after the input's
    /// writes to the clients when it ran in place; touches no loop state (the inbox may have been released).
    private func perform(_ bookkeeping: [Bookkeeping]) {
        for item in bookkeeping {
            switch item {
            case .journal(let operation): journal?.submit(operation)
            case .voiceMode(let mode): voiceModeFile?.submit(mode)
            case .log(let level, let message): logger.log(level: level, "\(message)")
            case .free: break  // freed with the list, after the writes
            }
        }
    }
}

/// An input's work that no client waits for: a journal write and a log line each wake or call into something
/// outside the loop (the journal's thread, stderr or journald), so they wait until the input's events are written. A
/// route's `route` event no longer waits behind its "trip started" log line and the journal's wake-up, nor behind
/// the freeing of the trip it replaced.
enum Bookkeeping {
    case journal(JournalWriter.Operation)
    case voiceMode(VoiceMode)
    case log(Logger.Level, String)
    /// A trip a new route replaced: freed after the new route's events are written.
    case free(TripCoordinator.Trip)
}

extension TripCoordinator.Effect {
    var startsCalculation: Bool {
        if case .startCalculation = self { return true }
        return false
    }
}

/// What the navigation loop owns and changes as it runs its inputs.
///
/// Unchecked: only the holder of the loop's ``LoopInbox`` touches it (the loop's task between inputs, or a reader
/// running one in place under a claim), one at a time; the inbox's lock orders each holder after the one before.
final class LoopState: @unchecked Sendable {
    var coordinator: TripCoordinator
    var runner: RouteCalculationRunner
    /// The calculations running, by session.
    var cancels: [Int: CancelSignal] = [:]
    /// The status last told to systemd.
    var lastStatus = ""
    /// When fixes reach the loop, and the next fix's rehearsal (``NavigationService``'s `scheduleRehearsal`).
    var cadence = FixCadence()
    var rehearsal: Scheduled<Void>?
    /// Fix rehearsals run (wrapping), logged when the loop stops.
    var rehearsals: UInt64 = 0
    /// When each running session's request went to its engine (the event loop's clock, nanoseconds), how long
    /// the engine's answers took, and the pending rehearsal of an answer's way (``NavigationService``'s
    /// `scheduleAnswerRehearsal`).
    var sessionStarts: [Int: Int64] = [:]
    var engineCadence = EngineCadence()
    var answerRehearsal: (session: Int, task: Scheduled<Void>)?
    /// The routes of the last answer taken that is short enough to rehearse (``Rehearsal/longestAnswer``): what
    /// an answer's rehearsal applies while the next session's engine computes.
    var lastAnswer: [Route]?
    /// Answer rehearsals run (wrapping), logged when the loop stops.
    var answerRehearsals: UInt64 = 0
    /// What the input being run left for the journal, the voice mode file and the log, handed over after its
    /// events are written.
    var bookkeeping: [Bookkeeping] = []

    func takeBookkeeping() -> [Bookkeeping] {
        defer { bookkeeping.removeAll() }
        return bookkeeping
    }

    init(coordinator: TripCoordinator, runner: RouteCalculationRunner) {
        self.coordinator = coordinator
        self.runner = runner
    }
}

/// Cancels one calculation's task from the loop (the task stays in the service's ``LoopChildTasks``). The
/// work runs in that task itself, not in a child of its own: a calculation's request is made while the task runs at
/// once, before the writes of the input that started it (an answer, events to every client).
final class CancelSignal: Sendable {
    private struct State: ~Copyable {
        var cancelled = false
        /// The task running the work, while it runs: only then may it be cancelled through this reference.
        var task: RunningTask?
    }
    /// Unchecked: an `UnsafeCurrentTask` is valid only while its task runs, and the signal holds it, under its lock,
    /// only from the work's start to its end.
    private struct RunningTask: @unchecked Sendable {
        let task: UnsafeCurrentTask
    }
    private let state = Mutex(State())

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.task?.task.cancel()
            state.task = nil
        }
    }

    /// Runs `work` in the current task: its result, or nil when the signal fired first or meanwhile (the task is
    /// cancelled then, and `work` ends as its cancellation makes it end).
    func run<T>(_ work: () async -> T) async -> T? {
        let started = withUnsafeCurrentTask { task in
            let running = task.map(RunningTask.init)
            return state.withLock { state in
                guard !state.cancelled else { return false }
                state.task = running
                return true
            }
        }
        guard started else { return nil }
        let result = await work()
        let cancelled = state.withLock { state in
            state.task = nil
            return state.cancelled
        }
        return cancelled ? nil : result
    }
}

extension NavigationService.Input {
    /// The wake window this input's handling closes: a reading (the fix that was due, or the receiver's word
    /// that it has none), a calculation's outcome (the answer that was due).
    var endsWakeWindow: WakeWindows.Reason? {
        switch self {
        case .reading: .fix
        case .finished: .answer
        default: nil
        }
    }
}
