import FoundationEssentials
import Glibc
import Logging
import LocationSources
import NavigationCore
import NavigationProtocol
import NIOCore
import NIOPosix
import RouteAdapters
import RouteClient
import SystemSupport

/// Wires navd together from a configuration file and runs it until SIGTERM or SIGINT.
public enum NavdDaemon {
    /// Runs the daemon. Returns when it has shut down; throws for start-up failures (config, socket).
    public static func run(configPath: String) async throws {
        let config: NavdConfig
        do {
            config = try ConfigLoader.load(path: configPath)
        } catch {
            throw StartupError(description: "invalid configuration:\n\(error)")
        }
        LoggingSystem.bootstrap { label in JournaldLogHandler(label: label, format: config.logging.format) }
        LogLevelSetting.shared.level = LogLevelName.parse(config.logging.level) ?? .info
        let logger = Logger(label: "navd")
        let notifier = SystemdNotifier()
        let readiness = Readiness(notifier: notifier)
        let startedAt = Date()
        // A descriptor per client, and headroom for the rest (receiver, journal, engines, recorder, web listener).
        let descriptors = config.socket.maxClients + 256
        let descriptorLimit = DescriptorLimit.raise(toAtLeast: descriptors)
        if descriptorLimit < descriptors {
            let problem =
                "open file limit is \(descriptorLimit), below the \(descriptors) that socket.max_clients = \(config.socket.maxClients) needs; "
                + "clients beyond it are refused by the kernel (raise LimitNOFILE)"
            logger.warning("\(problem)")
        }
        // Before anything is touched (the journal, the socket file): a second navd with the same socket must not take
        // it over from the one serving it (binding would remove the live socket's file) nor rewrite its journal.
        if SocketServer.isServed(config.socket.path) {
            throw StartupError(
                description: "another process already serves \(config.socket.path) (is navd already running?); "
                    + "this navd exits without touching that socket or the trip journal")
        }

        let journal = config.journal.path.isEmpty ? nil : TripJournal(path: config.journal.path)
        var resume: TripJournalRecord?
        var confirmResumeAge = false
        if let journal {
            switch journal.load(clocks: BootClock.journalClocks(wall: startedAt), maxAge: config.journal.maxAge) {
            case .none: break
            case .resumable(let record): resume = record
            case .resumableIfFirstFixConfirms(let record):
                resume = record
                confirmResumeAge = true
            case .tooOld(let age):
                logger.notice("trip journal is too old to resume; deleted", metadata: ["age_s": "\(CheckedNumber.clampedWhole(age, rounding: .towardZero))", "path": "\(journal.path)"])
            case .corrupt(let reason, let movedTo):
                logger.error(
                    "trip journal is unreadable; moved aside", metadata: ["reason": "\(reason)", "moved_to": "\(movedTo ?? "(could not move)")"])
            }
        }

        let voiceModeFile = config.journal.path.isEmpty ? nil : VoiceModeFile(journalPath: config.journal.path, logger: logger)
        var voiceMode = VoiceMode.full
        switch voiceModeFile?.load() {
        case .mode(let kept)?: voiceMode = kept
        case .unreadable(let reason)?: logger.warning("voice mode file unreadable; speaking in full", metadata: ["reason": "\(reason)"])
        case .none?, nil: break
        }

        // One event loop reads a serial receiver, runs the navigation loop and writes the clients' sockets: a fix
        // reaches the clients on the thread that read it (docs/performance.md). Calculations run on it too, their
        // engines' connections there; a long answer is parsed on Swift's pool.
        let navigationEventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let location = try LocationSourceFactory.make(config.gnss, eventLoop: navigationEventLoop)
        GpsdHotplugMarker.update(
            isSerial: config.gnss.source == .serial, device: config.gnss.serial, environment: ProcessInfo.processInfo.environment, logger: logger)
        let executor = RouteHTTPExecutor(
            configuration: .init(
                connectTimeout: .milliseconds(Int64(config.routing.connectTimeout * 1000)), totalTimeout: .milliseconds(Int64(config.routing.timeout * 1000)),
                trustRootsFile: config.routing.caFile.isEmpty ? nil : config.routing.caFile),
            eventLoop: navigationEventLoop)
        if config.routing.usesTLS, let problem = executor.tlsProblem() {
            logger.error("routing.ca_file \(config.routing.caFile) cannot be used: \(problem); requests to https engines fail until it is fixed")
        }
        let hub = EventHub()
        let recording = RecordingControl(
            limits: FlightRecorder.Limits(config.recording), configFile: configPath,
            configText: (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? "", hub: hub, feed: location.feed, executor: executor,
            logger: logger)
        let policy = AccessPolicy(socket: config.socket)
        for name in policy.unknownNames { logger.warning("socket control list names an unknown \(name)") }
        if let warning = ConfigFileSafety.warning(path: configPath) { logger.warning("\(warning)") }
        let wakeLatency = config.performance.holdCPUsAwake ? Self.openWakeLatency(logger: logger) : nil
        let navigation = NavigationService(
            coordinator: TripCoordinator(
                settings: TripCoordinator.Settings(config: config), idPrefix: Self.routeIdPrefix(startedAt), resume: resume,
                confirmAgeOnFirstFix: confirmResumeAge, voiceMode: voiceMode),
            runner: makeRunner(config, executor: executor), location: location, hub: hub, journal: journal, voiceModeFile: voiceModeFile,
            notifier: notifier, readiness: readiness, logger: logger, recording: recording, recordFromStart: config.recording.enabled,
            eventLoop: navigationEventLoop, wakeLatency: wakeLatency)
        let server = SocketServer(
            settings: config.socket, policy: policy, router: .standard(), hub: hub, navigation: navigation, readiness: readiness,
            logger: logger, clientEventLoops: navigationEventLoop,
            clientLoops: ClientLoopChooser(home: navigationEventLoop, others: Array(MultiThreadedEventLoopGroup.singleton.makeIterator())))
        var web: [DaemonServiceGroup.Entry] = []
        if !config.web.listen.isEmpty {
            web = [.init(name: "web server", service: WebServer(web: config.web, token: Self.webToken(config.web, logger: logger), sessions: server.sessions, files: WebFiles.all(destinations: config.web.destinations), clientLoops: server.clientLoops, logger: logger))]
        }
        let reloader = ReloadService(
            configPath: configPath, running: config, navigation: navigation, server: server, executor: executor, recording: recording,
            notifier: notifier, logger: logger)
        logger.notice(
            "navd \(NavigationService.navdVersion) starting",
            metadata: ["config": "\(configPath)", "gnss": "\(location.name)", "engine": "\(config.routing.engine.rawValue) \(HTTPRequestSpec.redacted(config.routing.url))",
                       "fallbacks": "\(config.routing.fallbacks.map { "\($0.engine.rawValue) \(HTTPRequestSpec.redacted($0.url))" })"])
        // Shut down in reverse order: the reloader, then navigation (journal saved), then the socket (clients told).
        let group = DaemonServiceGroup(
            services: [
                .init(name: "socket server", service: server), .init(name: "navigation loop", service: navigation),
                .init(name: "configuration reloader", service: reloader),
            ] + web,
            logger: logger)
        try await group.run()
        try? await executor.shutdown()
        logger.notice("navd stopped")
    }

    /// The CPU latency request for ``WakeHold``, or nil with the reason logged once: navd runs on without it (a
    /// container without the device, a service user that may not write it).
    static func openWakeLatency(logger: Logger) -> CPUWakeLatency? {
        switch CPUWakeLatency.open() {
        case .success(let request):
            logger.info("holding idle CPUs awake before fixes and route answers are due", metadata: ["device": "\(CPUWakeLatency.devicePath)"])
            return request
        case .failure(let error):
            logger.notice("performance.hold_cpus_awake: cannot hold idle CPUs awake (\(error)); navigating without it (docs/deployment.md)")
            return nil
        }
    }

    /// Route ids are `<start time in base 36>-<n>`: unique across restarts without randomness in the core.
    static func routeIdPrefix(_ date: Date) -> String {
        "r" + String(Int64(date.timeIntervalSince1970 * 1000), radix: 36)
    }

    static func makeRunner(_ config: NavdConfig, executor: RouteHTTPExecutor) -> RouteCalculationRunner {
        RouteCalculationRunner(
            engines: RouteEndpoint.chain(config.routing, executor: executor, locale: config.guidance.instructionLocale),
            retryDelay: config.routing.retryDelay)
    }
}

public struct StartupError: Error, CustomStringConvertible {
    public var description: String
}

/// SIGHUP: re-reads the configuration and applies what can change while running (routing, reroute policy,
/// controller settings for the next route, control lists, log level); says what needs a restart.
final class ReloadService: DaemonService {
    let configPath: String
    let running: NavdConfig
    let navigation: NavigationService
    let server: SocketServer
    let executor: RouteHTTPExecutor
    let recording: RecordingControl
    let notifier: SystemdNotifier
    let logger: Logger

    init(
        configPath: String, running: NavdConfig, navigation: NavigationService, server: SocketServer, executor: RouteHTTPExecutor,
        recording: RecordingControl, notifier: SystemdNotifier, logger: Logger
    ) {
        self.recording = recording
        self.configPath = configPath
        self.running = running
        self.navigation = navigation
        self.server = server
        self.executor = executor
        self.notifier = notifier
        self.logger = logger
    }

    func run() async throws {
        let hangups = UnixSignalStream([SIGHUP])
        await withGracefulShutdownHandler {
            for await _ in hangups.signals { reload() }
        } onGracefulShutdown: {
            hangups.finish()
        }
    }

    private func reload() {
        notifier.reloading()
        defer { notifier.notify("READY=1") }
        let config: NavdConfig
        do {
            config = try ConfigLoader.load(path: configPath)
        } catch {
            logger.error("reload failed; keeping the running configuration", metadata: ["errors": "\(error)"])
            return
        }
        var needsRestart: [String] = []
        if config.gnss != running.gnss { needsRestart.append("[gnss]") }
        if config.socket.path != running.socket.path || config.socket.mode != running.socket.mode || config.socket.group != running.socket.group
            || config.socket.maxLineLength != running.socket.maxLineLength || config.socket.clientQueueLimit != running.socket.clientQueueLimit
            || config.socket.maxClients != running.socket.maxClients
        {
            needsRestart.append("socket path, mode, group and limits")
        }
        if config.journal != running.journal { needsRestart.append("[journal]") }
        if config.web != running.web { needsRestart.append("[web]") }
        if config.routing.connectTimeout != running.routing.connectTimeout || config.routing.timeout != running.routing.timeout {
            needsRestart.append("routing timeouts")
        }
        if config.routing.caFile != running.routing.caFile { needsRestart.append("routing.ca_file") }
        if config.logging.format != running.logging.format { needsRestart.append("logging.format") }
        if config.performance != running.performance { needsRestart.append("[performance]") }
        LogLevelSetting.shared.level = LogLevelName.parse(config.logging.level) ?? .info
        server.update(policy: AccessPolicy(socket: config.socket))
        let text = (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? ""
        recording.update(limits: FlightRecorder.Limits(config.recording), configText: text)
        navigation.reload(
            settings: TripCoordinator.Settings(config: config), runner: NavdDaemon.makeRunner(config, executor: executor), configText: text)
        if needsRestart.isEmpty {
            logger.notice("reloaded \(configPath)")
        } else {
            logger.warning("reloaded \(configPath); these changes need a restart and were not applied: \(needsRestart.joined(separator: ", "))")
        }
    }
}

extension NavdDaemon {
    /// The control token from `[web] token_file`: nil (read only) without one, or when it cannot be read or is
    /// empty, which is logged: a web listener never refuses to start over its token.
    static func webToken(_ web: NavdConfig.Web, logger: Logger) -> String? {
        guard !web.tokenFile.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: web.tokenFile) else {
            logger.error("web.token_file cannot be read; the web listener is read only", metadata: ["path": "\(web.tokenFile)"])
            return nil
        }
        // The token gives control of the vehicle's navigation: a file anyone can read gives it to everyone.
        var status = stat()
        if stat(web.tokenFile, &status) == 0, status.st_mode & 0o007 != 0 {
            let mode = Int(status.st_mode & 0o7777)
            logger.error(
                "web.token_file can be read or written by every user (chmod 0640, owned by navd's group); the web listener is read only",
                metadata: ["path": "\(web.tokenFile)", "mode": "\(String(mode, radix: 8))"])
            return nil
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard token.count >= 16 else {
            logger.error("web.token_file holds no token of at least 16 characters; the web listener is read only", metadata: ["path": "\(web.tokenFile)"])
            return nil
        }
        return token
    }
}

