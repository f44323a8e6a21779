import FoundationEssentials
import Glibc
import NavigationCore
import RoadAhead
import RouteAdapters
import Guidance
import TripPlanning

/// navd's configuration (docs/configuration.md). Every value has a default, so an empty file is valid.
public struct NavdConfig: Sendable {
    public var gnss = GNSS()
    public var routing = Routing()
    public var guidance = Guidance()
    public var web = Web()
    public var controller = NavigationControllerConfig()
    public var reroute = Reroute()
    public var socket = Socket()
    public var journal = Journal()
    public var recording = Recording()
    public var logging = Logging()
    public var performance = Performance()
    /// When a speed alert is raised (`[speed_alert]`).
    public var speedAlert = SpeedAlertRules()
    public var roadAhead = RoadAhead()
    /// Matching the vehicle to the road network without a trip (`[free_drive]`).
    public var freeDrive = FreeDriveRules()

    /// What `trip_state.roadAhead` lists (`[road_ahead]`).
    public struct RoadAhead: Sendable, Equatable {
        public init() {}
        /// Metres ahead within which road objects are listed.
        public var horizon = 5000.0
        /// The most objects listed at once (nearest first).
        public var maxObjects = 10
    }

    public init() {}

    public struct GNSS: Sendable, Equatable {
        public init() {}
        public enum Source: String, Sendable, CaseIterable { case gpsd, serial, replay, simulate }
        public var source: Source = .gpsd
        /// gpsd's address, `HOST:PORT`.
        public var gpsd = "127.0.0.1:2947"
        /// For gpsd: watch only this device (its path as gpsd knows it); empty watches all.
        public var device = ""
        /// For serial: `auto` or a device path.
        public var serial = "auto"
        /// For serial: bits per second; 0 detects.
        public var baud = 0
        /// For replay: an NMEA, gpsd JSON, GPX or JSON Lines track.
        public var replay = ""
        /// For replay: 1 is real time, 10 is ten times faster.
        public var replaySpeed = 1.0
        /// Seconds without a reading from the source (any source) before GNSS is reported `lost`.
        public var watchdogTimeout = 5.0
        /// Seconds of a GNSS outage during which progress is predicted along the route (0: never).
        public var deadReckoning = 60.0
        /// A fix whose 68% accuracy radius is worse than this (metres) makes GNSS `degraded`.
        public var degradedAccuracy = 25.0
        /// For simulate: where the simulated vehicle waits before the first route.
        public var simulateStart = GeographicCoordinate(latitude: 60.1699, longitude: 24.9384)
        /// For simulate: metres per second along the route.
        public var simulateSpeed = 12.0
        /// For simulate: fixes per second of simulated time.
        public var simulateRate = 1.0
        /// For simulate: simulated seconds per wall-clock second.
        public var simulateTimeScale = 1.0
        /// For simulate: 1-sigma position noise, metres.
        public var simulateNoise = 0.0
        /// The simulated driver misses the maneuver of this step of the first route (0: never).
        public var simulateMissedTurn = 0
    }

    public struct Routing: Sendable, Equatable {
        public init() {}
        public typealias Engine = RoutingEngine
        public var engine: Engine = .valhalla
        public var url = "http://127.0.0.1:8002"
        /// Valhalla costing, OSRM profile or GraphHopper profile. Empty: the engine's car profile.
        public var profile = ""
        /// Engine-specific request keys merged into every request (Valhalla body keys, OSRM query parameters).
        public var options: [String: JSONValue] = [:]
        /// Seconds to establish a connection.
        public var connectTimeout = 5.0
        /// Seconds for a whole request.
        public var timeout = 30.0
        /// A PEM file of certificate authorities trusted for https engines besides the system's (a fleet's own
        /// CA); empty: the system's only.
        public var caFile = ""
        /// Attempts per calculation before it fails (retryable errors only).
        public var maxAttempts = 4
        /// Seconds before the first retry; doubles up to 8 s.
        public var retryDelay = 1.0
        /// Seconds (fix time) between refreshes of the route ahead (re-costed on the same way); 0: never.
        public var refreshInterval = 300.0
        /// Looking for a faster way during a trip (`faster_route`, `faster_route_*`).
        public var fasterRoute = FasterRouteRules()
        /// Seconds a client has to `choose_route` among alternatives or a faster way offered.
        public var chooseTimeout = 30.0
        /// Further engines (`[[routing.fallback]]`), tried in order when the one before fails with a retryable
        /// error after its own attempts.
        public var fallbacks: [Fallback] = []

        public var effectiveProfile: String { engine.profile(profile) }

        /// Whether navd may speak TLS to an engine: an https URL (the engine's or a fallback's) or a CA file. Only
        /// then does navd load the system's trust store at start (about 140 certificates, parsed and sorted: time
        /// and memory a vehicle talking to its own engine over http does not need).
        public var usesTLS: Bool {
            !caFile.isEmpty || ([url] + fallbacks.map(\.url)).contains { $0.hasPrefix("https:") }
        }

        /// One fallback engine.
        public struct Fallback: Sendable, Equatable {
            public var engine: Engine
            public var url: String
            /// Empty: the engine's car profile.
            public var profile = ""
            public var options: [String: JSONValue] = [:]
            /// Attempts on this engine before the next one is tried.
            public var maxAttempts: Int

            public init(engine: Engine, url: String, profile: String = "", options: [String: JSONValue] = [:], maxAttempts: Int = 1) {
                self.engine = engine
                self.url = url
                self.profile = profile
                self.options = options
                self.maxAttempts = maxAttempts
            }

            public var effectiveProfile: String { engine.profile(profile) }
        }
    }

    public struct Reroute: Sendable, Equatable {
        public init() {}
        public enum Policy: String, Sendable, CaseIterable {
            /// Reroute when the vehicle leaves the route.
            case automatic
            /// Publish deviation events, never reroute.
            case reportOnly = "report_only"
            /// Neither report nor reroute.
            case off
        }
        public enum Acceptance: String, Sendable, CaseIterable {
            /// Use a new route only if the vehicle is still off the old one when it arrives.
            case ifStillOffRoute = "if_still_off_route"
            /// Always switch to the new route.
            case always
        }
        public var policy: Policy = .automatic
        public var accept: Acceptance = .ifStillOffRoute
        /// Seconds (of fix time) after a reroute request before another may start.
        public var cooldown = 10.0
        /// Metres the vehicle must move after a reroute request before another may start.
        public var minimumMovement = 30.0
        /// This many reroutes applied within `loopWindow` seconds is a loop.
        public var loopCount = 4
        /// Seconds; see `loopCount`.
        public var loopWindow = 300.0
        /// Seconds without rerouting after a loop is detected.
        public var loopBackoff = 120.0
        /// Seconds a `navigate` waits for the first GNSS fix before failing.
        public var firstFixTimeout = 60.0
    }

    public struct Socket: Sendable, Equatable {
        public init() {}
        public var path = "/run/navd/navd.sock"
        /// File mode of the socket, octal.
        public var mode: UInt16 = 0o660
        /// Group owning the socket; empty keeps navd's group.
        public var group = ""
        /// Users (names or numeric ids) who may send control commands. navd's own user and root always may.
        public var controlUsers: [String] = []
        /// Members of these groups may send control commands.
        public var controlGroups: [String] = []
        /// Longest accepted line, bytes.
        public var maxLineLength = 65536
        /// Messages queued for one client before it counts as too slow and is disconnected.
        public var clientQueueLimit = 512
        /// Most clients connected at once.
        public var maxClients = 64
    }

    public struct Journal: Sendable, Equatable {
        public init() {}
        /// Empty disables the journal.
        public var path = "/var/lib/navd/trip.json"
        /// Seconds between periodic saves while navigating.
        public var interval = 5.0
        /// A journal older than this (seconds) is not resumed.
        public var maxAge = 3600.0
    }

    /// The flight recorder (docs/recording.md).
    public struct Recording: Sendable, Equatable {
        public init() {}
        /// Record every run from navd's start (`navctl record start|stop` works either way).
        public var enabled = false
        /// Where recordings are written.
        public var directory = "/var/lib/navd/recordings"
        /// Megabytes one file may grow to; a longer drive continues in a next part file.
        public var maxFileMegabytes = 64.0
        /// Megabytes all recordings in `directory` may take; the oldest files are deleted beyond it.
        public var maxTotalMegabytes = 1024.0
    }

    public struct Performance: Sendable, Equatable {
        public init() {}
        /// Hold idle CPUs awake (Linux's CPU latency request, /dev/cpu_dma_latency, at 0 µs) in the few
        /// milliseconds before a fix or a local engine's route answer is due; read at start.
        public var holdCPUsAwake = true
    }

    public struct Logging: Sendable, Equatable {
        public init() {}
        public enum Format: String, Sendable, CaseIterable {
            /// `<6>message key=value`: journald reads the priority.
            case journald
            /// `2026-11-21T10:00:00Z info message key=value`.
            case plain
        }
        public var level = "info"
        public var format: Format = .journald
    }
}

extension NavdConfig {
    /// `[guidance]`: the driver's language and units.
    public struct Guidance: Sendable, Equatable {
        public enum Units: String, Sendable, CaseIterable {
            /// The units usual in the language tag's region (miles in the US and the UK).
            case auto
            case metric, imperial
        }

        /// A BCP 47 tag: the engines' instructions and navd's own texts are in this language. English without a
        /// region by default, so that `auto` units are metric unless the region says miles.
        public var language = "en"
        public var units = Units.auto

        public init() {}

        /// Miles rather than kilometres, from `units` (and for `auto`, the language tag's region).
        public var imperial: Bool {
            switch units {
            case .metric: false
            case .imperial: true
            case .auto: UnitSystem.usual(in: LanguageTag(language)?.region) != .metric
            }
        }

        /// What the engines are asked to write instructions in.
        public var instructionLocale: InstructionLocale { InstructionLocale(language: language, imperial: imperial) }
    }
}

extension NavdConfig {
    /// `[web]`: the socket protocol over WebSocket and the dashboard, for browsers on the vehicle's computer. Off
    /// unless `listen` is set.
    public struct Web: Sendable, Equatable {
        /// `host:port` ("127.0.0.1:7070"); empty: off. An address other than a loopback one only with
        /// `allow_remote = true`: the dashboard is for this computer's own screen.
        public var listen = ""
        public var allowRemote = false
        /// Origins besides the page's own that may open `/ws` (a kiosk's name for this computer).
        public var origins: [String] = []
        /// A file holding the control token (readable by its group only); empty: nobody controls navd over the web.
        public var tokenFile = ""
        /// Places the dashboard offers as destinations (`[[web.destinations]]`), served as `/destinations.json`.
        public var destinations: [Destination] = []

        /// A named place; degrees.
        public struct Destination: Sendable, Equatable, Codable {
            public var name: String
            public var lat: Double
            public var lon: Double
        }

        /// Most `[[web.destinations]]` entries.
        public static let destinationsLimit = 100

        public init() {}

        /// `listen` split into host and port, when set and well formed.
        public var address: (host: String, port: Int)? {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (1...65535).contains(port) else {
                return nil
            }
            var host = String(listen[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return host.isEmpty ? nil : (host, port)
        }

        /// 127.0.0.0/8, ::1 or localhost.
        public var isLoopback: Bool {
            guard let host = address?.host else { return false }
            return host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }
}
