import FoundationEssentials
import Glibc
import Guidance
import Logging
import LocationSources
import NavigationCore
import NavigationProtocol
import RoadAhead
import TripPlanning
import RouteAdapters
import RouteClient

/// The daemon's navigation logic, pure: fixes, commands and calculation results go in; the next state and a
/// list of effects (events to publish, calculations to start or cancel, journal writes) come out. The
/// ``NavigationService`` owns the only instance and performs the effects; tests drive it with a manual clock.
public struct TripCoordinator: Sendable {
    public struct Settings: Sendable {
        public var reroute: NavdConfig.Reroute
        public var controller: NavigationControllerConfig
        public var engine: NavdConfig.Routing.Engine
        public var profile: String
        /// Seconds between periodic journal saves.
        public var journalInterval: Double
        /// Seconds: a journal older than this is not resumed (`journal.max_age`).
        public var journalMaxAge: Double
        /// Metres (68%); a worse fix makes GNSS `degraded`.
        public var degradedAccuracy: Double
        /// Seconds without a fix before GNSS is `lost` (`gnss.watchdog_timeout`): the position `navigate` routes
        /// from is called stale beyond it.
        public var watchdogTimeout: Double
        /// Seconds of an outage during which progress is predicted along the route (`gnss.dead_reckoning`).
        public var deadReckoning: Double
        /// When a speed alert is raised (`[speed_alert]`).
        public var speedAlert: SpeedAlertRules
        /// Metres ahead within which road objects are listed (`road_ahead.horizon`).
        public var roadAheadHorizon: Double
        /// The most road objects listed at once (`road_ahead.max_objects`).
        public var roadAheadLimit: Int
        /// Matching without a trip (`[free_drive]`).
        public var freeDrive: FreeDriveRules
        /// Seconds (fix time) between refreshes of the route ahead (`routing.refresh_interval`); 0: never.
        public var refreshInterval: Double
        /// Looking for a faster way (`routing.faster_route*`).
        public var fasterRoute: FasterRouteRules
        /// Seconds a client has to choose among routes offered (`routing.choose_timeout`).
        public var chooseTimeout: Double
        /// What navd says on its own, in which language and units (`[guidance]`).
        public var guidance: GuidanceSettings

        public init(config: NavdConfig) {
            reroute = config.reroute
            controller = config.controller
            engine = config.routing.engine
            profile = config.routing.effectiveProfile
            journalInterval = config.journal.interval
            journalMaxAge = config.journal.maxAge
            degradedAccuracy = config.gnss.degradedAccuracy
            watchdogTimeout = config.gnss.watchdogTimeout
            deadReckoning = config.gnss.deadReckoning
            speedAlert = config.speedAlert
            roadAheadHorizon = config.roadAhead.horizon
            roadAheadLimit = config.roadAhead.maxObjects
            freeDrive = config.freeDrive
            refreshInterval = config.routing.refreshInterval
            fasterRoute = config.routing.fasterRoute
            chooseTimeout = config.routing.chooseTimeout
            guidance = GuidanceSettings(config: config.guidance)
        }
    }

    public typealias Purpose = RouteCalculationEvent.Purpose

    /// What a calculation session asks the routing engine.
    public enum CalculationRequest: Sendable, Equatable {
        /// `query` carries no engine options: each engine of the chain maps `options` onto its own keys.
        case route(RouteQuery, options: RouteOptions)
        case match([TracePoint])
        /// The route ahead re-costed on the same way (``RefreshRequest``).
        case refresh(RefreshRequest)
    }

    /// What a route refresh asks: the engine re-costs `shape` where it can walk a route's own edges (Valhalla),
    /// and is otherwise asked for `query` again (its answer is used only when it is the same way).
    public struct RefreshRequest: Sendable, Equatable {
        /// Most shape points sent for an edge walk (Valhalla's default `max_shape` is 16 000); a longer route
        /// ahead is asked for again instead.
        public static let edgeWalkPointLimit = 16_000
        /// The route ahead, from where the vehicle is on it to the destination.
        public var shape: [GeographicCoordinate]
        /// From where the vehicle is on the route through the waypoints ahead.
        public var query: RouteQuery
        public var options: RouteOptions
    }

    public enum Effect: Sendable {
        case publish(NavigationEvent, routeId: String?)
        case startCalculation(session: Int, request: CalculationRequest)
        case cancelCalculation(session: Int)
        /// The route being navigated changed (nil: none); the simulated receiver follows it.
        case activeRouteChanged(Route?)
        case saveJournal(TripJournalRecord)
        /// Keep the voice mode for the next start.
        case saveVoiceMode(VoiceMode)
        case deleteJournal
        case log(Logger.Level, String)
    }

    /// One calculation session.
    struct Calculation: Sendable {
        var session: Int
        var purpose: Purpose
        /// Wall-clock start (for the expected latency of reroutes).
        var startedAt: Date
        /// The trip generation it belongs to: a result for an older generation never revives a trip.
        var generation: Int
        var requested: [Waypoint]
        var options: RouteOptions
        /// Set while a navigate waits for the first fix.
        var waitingForFix: Bool
        var attempts = 0
        /// A change of stops: the trip's waypoints already passed when it was asked for; `requested` is the
        /// edited list ahead of them.
        var keptWaypoints: [Waypoint]?
        /// A refresh or a look for a faster way: the route it is about (a newer route makes its answer moot).
        var routeId: String?
        /// Further routes asked for (`navigate`'s `alternatives`, a look for a faster way).
        var alternatives = 0
    }

    /// The looks for a faster way during a route, by fix time, and what they found.
    struct FasterRouteLooks: Sendable {
        /// The last look asked for (or the route's first fix).
        var lastLook: Date?
        /// The way offered and not taken: not offered again.
        var offered: RouteIndex?
    }

    /// Routes a client may choose among (`choose_route`) until `chooseBefore`.
    struct RouteOffer: Sendable {
        enum Kind: Sendable { case alternatives, faster }
        var kind: Kind
        var session: Int
        /// Alternatives: every route of the answer (index 0 is the one navigated). Faster: the faster way.
        var routes: [Route]
        /// The route navigated when it was made (another route withdraws it).
        var routeId: String
        /// Wall clock.
        var chooseBefore: Date
        var saving = 0.0
        var savingFraction = 0.0
    }

    /// When the active route was refreshed, by fix time.
    struct RefreshTimes: Sendable {
        /// The last refresh asked for (or the route's first fix).
        var lastAttempt: Date?
        /// The last time the route's figures were fresh: its first fix, or the last refresh applied.
        var lastSuccess: Date?
        /// Whether the route carries traffic (congestion or incidents ahead) that will grow old.
        var hasTraffic = false
    }

    /// Where a trip restored from the journal picks up.
    struct Resume: Sendable {
        var distanceAlong: Double
        /// The trip's totals before the restart: its start and the distance driven.
        var summary: TripSummary
        /// GNSS time of the trip's last fix before the restart.
        var lastFixTime: Date?
        /// Set when the journal came from an earlier boot: its age is decided by the first fix's GNSS time.
        var confirmAgeOnFirstFix: Bool
    }

    /// The active trip.
    struct Trip: Sendable {
        var routeId: String
        var controller: NavigationController {
            didSet {
                limits = RouteLimits(route: controller.route, index: controller.index)
                objects = RouteObjects(route: controller.route, index: controller.index)
                legs = LegDurations(route: controller.route)
                arrival.routeChanged()
                routeText = nil
            }
        }
        /// The text of the controller's route written ahead (``PreparedRoute``), for its `route` event; nil: the
        /// event's line writes it. Dropped whenever the controller changes, and set after it.
        var routeText: JSONTextWritten?
        /// Where the route's stops are in time, for the arrival at each; made anew with each route.
        private(set) var legs: LegDurations
        /// The driver's pace and the arrival it gives; kept across reroutes (the pace is the driver's).
        var arrival = ArrivalEstimator()
        /// The arrival times' texts written last (they change a few times a minute).
        var arrivalTexts = RecentTimestamps()
        /// The route's posted limits, for the slow-down warning; made anew with each route.
        private(set) var limits: RouteLimits
        /// The route's road objects (tunnels, tolls, ferries, ...), for `roadAhead` and dead reckoning in tunnels.
        private(set) var objects: RouteObjects
        var state: TripState
        /// The destinations as the client asked for them (origin excluded).
        var requested: [Waypoint]
        /// How many of `requested` were passed before the current route began.
        var passedBeforeRoute: Int
        var options: RouteOptions
        var ledger = InstructionLedger()
        /// Set for a trip restored from the journal, until the first fix re-snaps it.
        var resumeFrom: Resume?
        var lastJournalSave: Date?
        var reroutes = 0
        /// The route's refreshes (made anew with each route but a refreshed one).
        var refresh = RefreshTimes()
        /// Looks for a faster way (made anew with each route).
        var faster = FasterRouteLooks()
        /// The way navd switched away from for a faster one, and when (fix time): not switched back to.
        var wayLeft: (index: RouteIndex, at: Date)?

        init(
            routeId: String, controller: NavigationController, state: TripState, requested: [Waypoint], passedBeforeRoute: Int, options: RouteOptions,
            resumeFrom: Resume? = nil, reroutes: Int = 0
        ) {
            self.routeId = routeId
            self.controller = controller
            limits = RouteLimits(route: controller.route, index: controller.index)
            objects = RouteObjects(route: controller.route, index: controller.index)
            legs = LegDurations(route: controller.route)
            self.state = state
            self.requested = requested
            self.passedBeforeRoute = passedBeforeRoute
            self.options = options
            self.resumeFrom = resumeFrom
            self.reroutes = reroutes
        }
    }

    public private(set) var settings: Settings
    /// Moved on by each reload of the settings: a route prepared with older ones is not used (``PreparedRoute``).
    private(set) var settingsGeneration = 0
    let idPrefix: String
    var trip: Trip?
    /// The trip a new route replaced, kept until the service takes it (``takeReplacedTrip()``) and frees it after
    /// the input's writes (an answer run in place writes the new route's events first): freeing a route, its index,
    /// limits and controller took about 71,000 instructions, in the time a client waits for the new route. Holds at
    /// most one (a newer one frees the older).
    private(set) var replacedTrip: Trip?
    var generation = 0
    var calculations: [Int: Calculation] = [:]
    var nextSession = 1
    var nextRoute = 1
    /// The last fix the plausibility gate accepted.
    var lastFix: GNSSFix?
    /// Wall-clock time of the last accepted fix (its age in `status` and `navigate`, dead reckoning).
    var lastFixAt: Date?
    var fixGate = FixPlausibilityGate()
    /// The reason of the last rejected fix, while rejections continue (for the log).
    var lastRejection: FixRejection?
    /// The last navigating status line and what it says (``statusLine``).
    var navigatingStatus: (key: NavigatingStatus, text: String)?
    /// The trip state last published from a prediction, during an outage.
    var predicted: NavigatingState?
    /// Set when the source reported the end of its input (a replay): no outage to predict through.
    var sourceFinished = false
    public internal(set) var gnssHealth = GNSSHealth(status: .lost, detail: "waiting for the first fix")
    var gate: RerouteGate
    var lastRerouteDecision: String?
    /// The speed alert, decided fix by fix with or without a trip.
    var speedAlerts: SpeedAlertTracker
    /// Free drive: the road the vehicle is on without a trip, from matching its last fixes.
    var freeDrive: FreeDriveTracker
    /// The session of the free-drive match in flight (not a calculation session clients see).
    var freeDriveSession: Int?
    /// How many free-drive matches were asked for (their session numbers follow ``freeDriveSessionBase``).
    var nextFreeDriveRequest = 0
    /// The open offer of routes to choose from (alternatives of `navigate`, or a faster way).
    var offer: RouteOffer?
    /// Why the last offer closed, for a `choose_route` that comes after it.
    var lastOfferEnd: String?
    /// Seconds a reroute answer is expected to take (smoothed from measurements): the request starts from where
    /// the vehicle will be by then.
    public internal(set) var expectedRerouteLatency = 1.5
    /// What voice clients speak (`voice` command, kept across restarts by the service).
    public internal(set) var voiceMode: VoiceMode
    var effects: [Effect] = []

    /// `idPrefix` makes route ids unique across restarts (the service passes the start time). `resume` is a
    /// journal to pick up; with `confirmAgeOnFirstFix` its age is checked against the first fix's GNSS time.
    /// `voiceMode`: as kept from the last run.
    public init(
        settings: Settings, idPrefix: String, resume: TripJournalRecord? = nil, confirmAgeOnFirstFix: Bool = false, voiceMode: VoiceMode = .full
    ) {
        self.settings = settings
        self.voiceMode = voiceMode
        self.idPrefix = idPrefix
        gate = RerouteGate(settings: settings.reroute)
        speedAlerts = SpeedAlertTracker(rules: settings.speedAlert)
        freeDrive = FreeDriveTracker(rules: settings.freeDrive)
        if let resume { restore(resume, confirmAgeOnFirstFix: confirmAgeOnFirstFix) }
    }

    /// Effects accumulated since the last call, in order.
    public mutating func takeEffects() -> [Effect] {
        defer { effects.removeAll() }
        return effects
    }

    /// The trip the last new route replaced, if any, handed over once (the caller frees it when it is done).
    mutating func takeReplacedTrip() -> Trip? {
        defer { replacedTrip = nil }
        return replacedTrip
    }

    /// Keeps `old` for ``takeReplacedTrip()``.
    mutating func keepReplaced(_ old: Trip) {
        replacedTrip = old
    }

    /// New settings (SIGHUP). Controller settings apply from the next route.
    public mutating func update(settings: Settings) {
        let voiceBefore = voice
        self.settings = settings
        settingsGeneration += 1
        publishVoice(ifChangedFrom: voiceBefore)
        gate.settings = settings.reroute
        speedAlerts.rules = settings.speedAlert
        freeDrive.rules = settings.freeDrive
    }

    public var activeRouteId: String? { trip?.routeId }

    /// True while `trip` holds a trip. Asked through `inout` and one of the trip's plain fields with optional
    /// chaining, which reads the optional's case where it lies: `trip != nil`, matching `.some`, or a getter on the
    /// coordinator doing either, copied the whole trip to a temporary first (its controller, route, ledger: every
    /// reference retained and released), on every fix (seen in the release binary's disassembly).
    static func holdsTrip(_ trip: inout Trip?) -> Bool { trip?.passedBeforeRoute != nil }

    // MARK: - Publishing helpers

    /// Consuming: the event moves into the effects (taken by reference, it was copied there: a `trip_state`
    /// record and all it holds, on every fix).
    mutating func publish(_ event: consuming NavigationEvent, routeId: String? = nil) {
        effects.append(.publish(event, routeId: routeId ?? trip?.routeId))
    }

    mutating func log(_ level: Logger.Level, _ message: String) {
        effects.append(.log(level, message))
    }

    /// The id the next route will get.
    var nextRouteId: String { "\(idPrefix)-\(nextRoute)" }

    mutating func makeRouteId() -> String {
        defer { nextRoute += 1 }
        return nextRouteId
    }

    // MARK: - Restoring

    private mutating func restore(_ record: TripJournalRecord, confirmAgeOnFirstFix: Bool) {
        guard let controller = try? NavigationController(route: record.route, config: settings.controller) else {
            log(.warning, "journal route has no steps; not resuming")
            return
        }
        let options = (try? RouteOptions(fields: CommandFields(record.options.objectValue ?? [:]))) ?? RouteOptions()
        generation += 1
        // The trip's own list where the journal has it (stops changed on the way, and the numbering of
        // `waypoint_reached` go on); the route's waypoints after its origin in an older journal.
        var requested = Array(record.route.waypoints.dropFirst()), passed = 0
        if let waypoints = record.waypoints, let count = record.passedWaypoints {
            if (0...waypoints.count).contains(count), waypoints.count - count == requested.count {
                requested = waypoints
                passed = count
            } else {
                log(.warning, "journal: its \(waypoints.count) waypoints (\(count) passed) do not match its route's \(requested.count); resuming with the route's")
            }
        }
        trip = Trip(
            routeId: record.routeId, controller: controller, state: .idle, requested: requested,
            passedBeforeRoute: passed, options: options,
            resumeFrom: Resume(
                distanceAlong: record.distanceAlong,
                summary: TripSummary(
                    distanceTravelled: record.distanceTravelled ?? 0, snappedDistanceTravelled: 0, startedAt: record.startedAt,
                    endedAt: record.lastFixTime ?? record.startedAt),
                lastFixTime: record.lastFixTime, confirmAgeOnFirstFix: confirmAgeOnFirstFix && record.lastFixTime != nil),
            reroutes: record.reroutes ?? 0)
        log(.notice, "resuming trip \(record.routeId) at \(Int(record.distanceAlong)) m from the journal; waiting for a fix"
            + (confirmAgeOnFirstFix ? " (saved in an earlier boot: its age is checked against the fix's GNSS time)" : ""))
    }
}
