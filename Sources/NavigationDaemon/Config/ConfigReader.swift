import FoundationEssentials
import Glibc
import LocationSources
import NavigationCore
import RoadAhead
import RouteAdapters
import Guidance
import TripPlanning

/// Walks the parsed TOML, section by section, collecting every error with its key path.
struct ConfigReader {
    let file: String
    let root: JSONValue
    var errors: [ConfigError] = []

    init(file: String, root: JSONValue) {
        self.file = file
        self.root = root
    }

    mutating func readConfig() -> NavdConfig {
        var config = NavdConfig()
        let sections = ["gnss", "routing", "controller", "reroute", "socket", "journal", "recording", "logging", "performance", "speed_alert", "road_ahead", "free_drive", "guidance", "web"]
        let top = root.objectValue ?? [:]
        reportUnknown(top, known: sections, prefix: "")
        readGNSS(top["gnss"], into: &config.gnss)
        readRouting(top["routing"], into: &config.routing)
        readController(top["controller"], into: &config)
        readReroute(top["reroute"], into: &config.reroute)
        readSocket(top["socket"], into: &config.socket)
        readJournal(top["journal"], into: &config.journal)
        readRecording(top["recording"], into: &config.recording)
        readLogging(top["logging"], into: &config.logging)
        readPerformance(top["performance"], into: &config.performance)
        readSpeedAlert(top["speed_alert"], into: &config.speedAlert)
        readRoadAhead(top["road_ahead"], into: &config.roadAhead)
        readFreeDrive(top["free_drive"], into: &config.freeDrive)
        readGuidance(top["guidance"], into: &config.guidance)
        readWeb(top["web"], into: &config.web)
        return config
    }

    // MARK: - Sections

    private mutating func readGNSS(_ value: JSONValue?, into gnss: inout NavdConfig.GNSS) {
        guard let table = section(value, "gnss") else { return }
        reportUnknown(
            table, known: ["source", "gpsd", "device", "serial", "baud", "replay", "replay_speed", "watchdog_timeout", "dead_reckoning", "degraded_accuracy", "simulate"],
            prefix: "gnss.")
        choice(table, "source", section: "gnss", into: &gnss.source)
        string(table, "gpsd", section: "gnss", into: &gnss.gpsd)
        string(table, "device", section: "gnss", into: &gnss.device)
        string(table, "serial", section: "gnss", into: &gnss.serial)
        integer(table, "baud", section: "gnss", range: 0...4_000_000, into: &gnss.baud)
        string(table, "replay", section: "gnss", into: &gnss.replay)
        number(table, "replay_speed", section: "gnss", range: 0.01...10_000, into: &gnss.replaySpeed)
        number(table, "watchdog_timeout", section: "gnss", range: 0.5...3600, into: &gnss.watchdogTimeout)
        number(table, "dead_reckoning", section: "gnss", range: 0...600, into: &gnss.deadReckoning)
        number(table, "degraded_accuracy", section: "gnss", range: 1...10_000, into: &gnss.degradedAccuracy)
        if gnss.source == .gpsd, GpsdSource.address(gnss.gpsd) == nil {
            fail("gnss.gpsd", "'\(gnss.gpsd)' is not HOST:PORT")
        }
        if gnss.source == .replay, gnss.replay.isEmpty { fail("gnss.replay", "required when gnss.source = \"replay\"") }
        if gnss.source == .serial, gnss.serial.isEmpty { fail("gnss.serial", "required when gnss.source = \"serial\" (\"auto\" or a device path)") }
        if let simulate = section(table["simulate"], "gnss.simulate") {
            reportUnknown(simulate, known: ["start", "speed", "rate", "time_scale", "noise", "missed_turn"], prefix: "gnss.simulate.")
            if let start = simulate["start"] {
                if let lat = CheckedNumber.measure(start["lat"], in: -90...90), let lon = CheckedNumber.measure(start["lon"], in: -180...180) {
                    gnss.simulateStart = GeographicCoordinate(latitude: lat, longitude: lon)
                } else {
                    fail("gnss.simulate.start", "must be { lat = …, lon = … } in degrees")
                }
            }
            number(simulate, "speed", section: "gnss.simulate", range: 0.1...100, into: &gnss.simulateSpeed)
            number(simulate, "rate", section: "gnss.simulate", range: 0.1...50, into: &gnss.simulateRate)
            number(simulate, "time_scale", section: "gnss.simulate", range: 0.1...1000, into: &gnss.simulateTimeScale)
            number(simulate, "noise", section: "gnss.simulate", range: 0...100, into: &gnss.simulateNoise)
            integer(simulate, "missed_turn", section: "gnss.simulate", range: 0...1000, into: &gnss.simulateMissedTurn)
        }
    }

    private mutating func readRouting(_ value: JSONValue?, into routing: inout NavdConfig.Routing) {
        guard let table = section(value, "routing") else { return }
        reportUnknown(
            table,
            known: [
                "engine", "url", "profile", "options", "connect_timeout", "timeout", "ca_file", "max_attempts", "retry_delay", "refresh_interval",
                "faster_route", "faster_route_interval", "faster_route_min_saving", "faster_route_min_fraction", "faster_route_maneuver_window",
                "choose_timeout", "fallback",
            ],
            prefix: "routing.")
        choice(table, "engine", section: "routing", into: &routing.engine)
        string(table, "url", section: "routing", into: &routing.url)
        checkURL(routing.url, key: "routing.url")
        string(table, "profile", section: "routing", into: &routing.profile)
        if let options = table["options"] {
            if let object = options.objectValue { routing.options = object } else { fail("routing.options", "must be a table") }
        }
        number(table, "connect_timeout", section: "routing", range: 0.1...300, into: &routing.connectTimeout)
        number(table, "timeout", section: "routing", range: 0.1...600, into: &routing.timeout)
        string(table, "ca_file", section: "routing", into: &routing.caFile)
        if !routing.caFile.isEmpty, !routing.caFile.hasPrefix("/") {
            fail("routing.ca_file", "must be an absolute path, not \(routing.caFile)")
            routing.caFile = ""
        }
        integer(table, "max_attempts", section: "routing", range: 1...100, into: &routing.maxAttempts)
        number(table, "retry_delay", section: "routing", range: 0...600, into: &routing.retryDelay)
        number(table, "refresh_interval", section: "routing", range: 0...86_400, into: &routing.refreshInterval)
        if routing.refreshInterval > 0, routing.refreshInterval < 10 {
            fail("routing.refresh_interval", "must be 0 (off) or at least 10 seconds, not \(routing.refreshInterval)")
            routing.refreshInterval = NavdConfig.Routing().refreshInterval
        }
        choice(table, "faster_route", section: "routing", into: &routing.fasterRoute.mode)
        number(table, "faster_route_interval", section: "routing", range: 10...86_400, into: &routing.fasterRoute.interval)
        number(table, "faster_route_min_saving", section: "routing", range: 0...86_400, into: &routing.fasterRoute.minimumSaving)
        number(table, "faster_route_min_fraction", section: "routing", range: 0...1, into: &routing.fasterRoute.minimumFraction)
        number(table, "faster_route_maneuver_window", section: "routing", range: 0...600, into: &routing.fasterRoute.maneuverWindow)
        number(table, "choose_timeout", section: "routing", range: 1...3600, into: &routing.chooseTimeout)
        if let fallbacks = table["fallback"] {
            guard let entries = fallbacks.arrayValue else { return fail("routing.fallback", "must be an array of tables ([[routing.fallback]])") }
            routing.fallbacks = entries.enumerated().compactMap { index, entry in
                readFallback(entry, key: "routing.fallback[\(index)]", defaultAttempts: routing.maxAttempts)
            }
        }
    }

    private mutating func readFallback(_ value: JSONValue, key: String, defaultAttempts: Int) -> NavdConfig.Routing.Fallback? {
        guard let table = section(value, key) else { return nil }
        reportUnknown(table, known: ["engine", "url", "profile", "options", "max_attempts"], prefix: key + ".")
        guard table["engine"] != nil else {
            fail("\(key).engine", "required: one of \(NavdConfig.Routing.Engine.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            return nil
        }
        guard table["url"] != nil else {
            fail("\(key).url", "required: the engine's http(s) URL")
            return nil
        }
        var fallback = NavdConfig.Routing.Fallback(engine: .valhalla, url: "", maxAttempts: defaultAttempts)
        choice(table, "engine", section: key, into: &fallback.engine)
        string(table, "url", section: key, into: &fallback.url)
        checkURL(fallback.url, key: "\(key).url")
        string(table, "profile", section: key, into: &fallback.profile)
        if let options = table["options"] {
            if let object = options.objectValue { fallback.options = object } else { fail("\(key).options", "must be a table") }
        }
        integer(table, "max_attempts", section: key, range: 1...100, into: &fallback.maxAttempts)
        return fallback
    }

    /// A routing URL must be http(s) with a host. The message shows it without credentials or query values.
    private mutating func checkURL(_ text: String, key: String) {
        let url = URL(string: text)
        if !["http", "https"].contains(url?.scheme ?? "") || url?.host == nil {
            fail(key, "'\(url?.host == nil ? text : HTTPRequestSpec.redacted(text))' is not an http(s) URL")
        }
    }

    private mutating func readController(_ value: JSONValue?, into config: inout NavdConfig) {
        guard let value else { return }
        guard value.objectValue != nil else { return fail("controller", "must be a table") }
        do {
            let data = try JSONEncoder().encode(value)
            config.controller = try JSONDecoder().decode(NavigationControllerConfig.self, from: data)
        } catch let error as DecodingError {
            fail("controller", describeDecodingError(error) + " (keys as in docs/controller.md)")
        } catch {
            fail("controller", "\(error)")
        }
    }

    private mutating func readReroute(_ value: JSONValue?, into reroute: inout NavdConfig.Reroute) {
        guard let table = section(value, "reroute") else { return }
        reportUnknown(
            table,
            known: ["policy", "accept", "cooldown", "minimum_movement", "loop_count", "loop_window", "loop_backoff", "first_fix_timeout"],
            prefix: "reroute.")
        choice(table, "policy", section: "reroute", into: &reroute.policy)
        choice(table, "accept", section: "reroute", into: &reroute.accept)
        number(table, "cooldown", section: "reroute", range: 0...3600, into: &reroute.cooldown)
        number(table, "minimum_movement", section: "reroute", range: 0...10_000, into: &reroute.minimumMovement)
        integer(table, "loop_count", section: "reroute", range: 2...1000, into: &reroute.loopCount)
        number(table, "loop_window", section: "reroute", range: 1...86_400, into: &reroute.loopWindow)
        number(table, "loop_backoff", section: "reroute", range: 0...86_400, into: &reroute.loopBackoff)
        number(table, "first_fix_timeout", section: "reroute", range: 0...3600, into: &reroute.firstFixTimeout)
    }

    private mutating func readSocket(_ value: JSONValue?, into socket: inout NavdConfig.Socket) {
        guard let table = section(value, "socket") else { return }
        reportUnknown(
            table, known: ["path", "mode", "group", "control_users", "control_groups", "max_line_length", "client_queue_limit", "max_clients"],
            prefix: "socket.")
        string(table, "path", section: "socket", into: &socket.path)
        if socket.path.isEmpty || socket.path.utf8.count > 107 { fail("socket.path", "must be a path of 1 to 107 bytes") }
        if let mode = table["mode"] {
            if let text = mode.stringValue, let parsed = UInt16(text, radix: 8), parsed <= 0o777 {
                socket.mode = parsed
            } else {
                fail("socket.mode", "must be an octal string such as \"0660\"")
            }
        }
        string(table, "group", section: "socket", into: &socket.group)
        stringList(table, "control_users", section: "socket", into: &socket.controlUsers)
        stringList(table, "control_groups", section: "socket", into: &socket.controlGroups)
        integer(table, "max_line_length", section: "socket", range: 1024...16 << 20, into: &socket.maxLineLength)
        integer(table, "client_queue_limit", section: "socket", range: 8...1_000_000, into: &socket.clientQueueLimit)
        integer(table, "max_clients", section: "socket", range: 1...10_000, into: &socket.maxClients)
    }

    private mutating func readJournal(_ value: JSONValue?, into journal: inout NavdConfig.Journal) {
        guard let table = section(value, "journal") else { return }
        reportUnknown(table, known: ["path", "interval", "max_age"], prefix: "journal.")
        string(table, "path", section: "journal", into: &journal.path)
        number(table, "interval", section: "journal", range: 0.1...3600, into: &journal.interval)
        number(table, "max_age", section: "journal", range: 0...7 * 86_400, into: &journal.maxAge)
    }

    private mutating func readRoadAhead(_ value: JSONValue?, into roadAhead: inout NavdConfig.RoadAhead) {
        guard let table = section(value, "road_ahead") else { return }
        reportUnknown(table, known: ["horizon", "max_objects"], prefix: "road_ahead.")
        number(table, "horizon", section: "road_ahead", range: 0...1_000_000, into: &roadAhead.horizon)
        integer(table, "max_objects", section: "road_ahead", range: 0...100, into: &roadAhead.maxObjects)
    }

    private mutating func readGuidance(_ value: JSONValue?, into guidance: inout NavdConfig.Guidance) {
        guard let table = section(value, "guidance") else { return }
        reportUnknown(table, known: ["language", "units"], prefix: "guidance.")
        string(table, "language", section: "guidance", into: &guidance.language)
        if let tag = LanguageTag(guidance.language) {
            // One spelling for the engines: `de-DE`, not `de_de`.
            guidance.language = tag.description
        } else {
            fail("guidance.language", "'\(guidance.language)' is not a BCP 47 language tag (e.g. \"de-DE\", \"fi\")")
            guidance.language = NavdConfig.Guidance().language
        }
        choice(table, "units", section: "guidance", into: &guidance.units)
    }

    private mutating func readWeb(_ value: JSONValue?, into web: inout NavdConfig.Web) {
        guard let table = section(value, "web") else { return }
        reportUnknown(table, known: ["listen", "allow_remote", "origins", "token_file", "destinations"], prefix: "web.")
        string(table, "listen", section: "web", into: &web.listen)
        flag(table, "allow_remote", section: "web", into: &web.allowRemote)
        stringList(table, "origins", section: "web", into: &web.origins)
        string(table, "token_file", section: "web", into: &web.tokenFile)
        if let list = table["destinations"] {
            guard let entries = list.arrayValue else { return fail("web.destinations", "must be an array of tables ([[web.destinations]])") }
            guard entries.count <= NavdConfig.Web.destinationsLimit else {
                return fail("web.destinations", "has \(entries.count) entries; at most \(NavdConfig.Web.destinationsLimit)")
            }
            web.destinations = entries.enumerated().compactMap { index, entry in readDestination(entry, key: "web.destinations[\(index)]") }
        }
        guard !web.listen.isEmpty else { return }
        if web.address == nil {
            fail("web.listen", "'\(web.listen.prefix(80))' is not host:port (e.g. \"127.0.0.1:7070\")")
        } else if !web.isLoopback, !web.allowRemote {
            fail("web.listen", "'\(web.listen)' is not a loopback address; set web.allow_remote = true to serve other computers")
        }
        for origin in web.origins where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
            fail("web.origins", "'\(origin.prefix(80))' is not an origin (http://host:port)")
        }
    }

    /// One `[[web.destinations]]`: `name` (1 to 80 characters), `lat` and `lon` (degrees).
    private mutating func readDestination(_ value: JSONValue, key: String) -> NavdConfig.Web.Destination? {
        guard let table = section(value, key) else { return nil }
        reportUnknown(table, known: ["name", "lat", "lon"], prefix: key + ".")
        var destination = NavdConfig.Web.Destination(name: "", lat: .nan, lon: .nan)
        string(table, "name", section: key, into: &destination.name)
        number(table, "lat", section: key, range: -90...90, into: &destination.lat)
        number(table, "lon", section: key, range: -180...180, into: &destination.lon)
        guard (1...80).contains(destination.name.count) else {
            fail("\(key).name", "required: 1 to 80 characters")
            return nil
        }
        guard destination.lat.isFinite, destination.lon.isFinite else {
            fail("\(key)", "needs lat and lon (degrees)")
            return nil
        }
        return destination
    }

    private mutating func readFreeDrive(_ value: JSONValue?, into rules: inout FreeDriveRules) {
        guard let table = section(value, "free_drive") else { return }
        reportUnknown(table, known: ["enabled", "interval", "window", "minimum_movement", "max_age"], prefix: "free_drive.")
        flag(table, "enabled", section: "free_drive", into: &rules.enabled)
        number(table, "interval", section: "free_drive", range: 1...3600, into: &rules.interval)
        number(table, "window", section: "free_drive", range: 50...5000, into: &rules.window)
        number(table, "minimum_movement", section: "free_drive", range: 0...10_000, into: &rules.minimumMovement)
        number(table, "max_age", section: "free_drive", range: 1...3600, into: &rules.maximumAge)
    }

    private mutating func readSpeedAlert(_ value: JSONValue?, into rules: inout SpeedAlertRules) {
        guard let table = section(value, "speed_alert") else { return }
        let keys = [
            "enabled", "band_limit", "minor_over", "minor_over_percent", "major_over", "major_over_percent", "hold", "clear_margin",
            "ahead_seconds", "ahead_minimum",
        ]
        reportUnknown(table, known: keys, prefix: "speed_alert.")
        flag(table, "enabled", section: "speed_alert", into: &rules.enabled)
        // Speeds in the limit's own unit (km/h or mph), as a sign shows them.
        number(table, "band_limit", section: "speed_alert", range: 0...500, into: &rules.bandLimit)
        number(table, "minor_over", section: "speed_alert", range: 0...200, into: &rules.minorOver)
        number(table, "minor_over_percent", section: "speed_alert", range: 0...200, into: &rules.minorOverPercent)
        number(table, "major_over", section: "speed_alert", range: 0...200, into: &rules.majorOver)
        number(table, "major_over_percent", section: "speed_alert", range: 0...200, into: &rules.majorOverPercent)
        number(table, "hold", section: "speed_alert", range: 0...60, into: &rules.hold)
        number(table, "clear_margin", section: "speed_alert", range: 0...100, into: &rules.clearMargin)
        number(table, "ahead_seconds", section: "speed_alert", range: 0...60, into: &rules.aheadSeconds)
        number(table, "ahead_minimum", section: "speed_alert", range: 0...5000, into: &rules.aheadMinimum)
        if rules.majorOver < rules.minorOver {
            fail("speed_alert.major_over", "\(rules.majorOver) is less than speed_alert.minor_over (\(rules.minorOver))")
        }
        if rules.majorOverPercent < rules.minorOverPercent {
            fail("speed_alert.major_over_percent", "\(rules.majorOverPercent) is less than speed_alert.minor_over_percent (\(rules.minorOverPercent))")
        }
    }

    private mutating func readRecording(_ value: JSONValue?, into recording: inout NavdConfig.Recording) {
        guard let table = section(value, "recording") else { return }
        reportUnknown(table, known: ["enabled", "directory", "max_file_mb", "max_total_mb"], prefix: "recording.")
        flag(table, "enabled", section: "recording", into: &recording.enabled)
        string(table, "directory", section: "recording", into: &recording.directory)
        number(table, "max_file_mb", section: "recording", range: 1...4096, into: &recording.maxFileMegabytes)
        number(table, "max_total_mb", section: "recording", range: 1...1_000_000, into: &recording.maxTotalMegabytes)
        if recording.directory.isEmpty { fail("recording.directory", "must name a directory") }
        if recording.maxTotalMegabytes < recording.maxFileMegabytes {
            fail("recording.max_total_mb", "\(recording.maxTotalMegabytes) is less than recording.max_file_mb (\(recording.maxFileMegabytes))")
        }
    }

    private mutating func readPerformance(_ value: JSONValue?, into performance: inout NavdConfig.Performance) {
        guard let table = section(value, "performance") else { return }
        reportUnknown(table, known: ["hold_cpus_awake"], prefix: "performance.")
        flag(table, "hold_cpus_awake", section: "performance", into: &performance.holdCPUsAwake)
    }

    private mutating func readLogging(_ value: JSONValue?, into logging: inout NavdConfig.Logging) {
        guard let table = section(value, "logging") else { return }
        reportUnknown(table, known: ["level", "format"], prefix: "logging.")
        string(table, "level", section: "logging", into: &logging.level)
        if LogLevelName.parse(logging.level) == nil {
            fail("logging.level", "'\(logging.level)' is not one of \(LogLevelName.names.joined(separator: ", "))")
        }
        choice(table, "format", section: "logging", into: &logging.format)
    }

    // MARK: - Typed reads

    private mutating func fail(_ key: String, _ message: String) {
        errors.append(ConfigError(file: file, key: key, message: message))
    }

    private mutating func section(_ value: JSONValue?, _ name: String) -> [String: JSONValue]? {
        guard let value else { return nil }
        guard let object = value.objectValue else {
            fail(name, "must be a table ([\(name)])")
            return nil
        }
        return object
    }

    private mutating func reportUnknown(_ table: [String: JSONValue], known: [String], prefix: String) {
        for key in table.keys.sorted() where !known.contains(key) {
            fail(prefix + key, "unknown key (known: \(known.joined(separator: ", ")))")
        }
    }

    private mutating func flag(_ table: [String: JSONValue], _ key: String, section: String, into target: inout Bool) {
        guard let value = table[key] else { return }
        guard let flag = value.boolValue else { return fail("\(section).\(key)", "must be true or false") }
        target = flag
    }

    private mutating func string(_ table: [String: JSONValue], _ key: String, section: String, into target: inout String) {
        guard let value = table[key] else { return }
        guard let text = value.stringValue else { return fail("\(section).\(key)", "must be a string") }
        target = text
    }

    private mutating func stringList(_ table: [String: JSONValue], _ key: String, section: String, into target: inout [String]) {
        guard let value = table[key] else { return }
        guard let items = value.arrayValue else { return fail("\(section).\(key)", "must be an array of strings") }
        var result: [String] = []
        for item in items {
            if let text = item.stringValue {
                result.append(text)
            } else if let id = CheckedNumber.whole(item, in: PhysicalRange.systemID) {
                result.append(String(id))
            } else {
                // 2^63 as an id trapped converting to Int, and killed a navigating navd on SIGHUP.
                return fail("\(section).\(key)", "must be an array of names or numeric ids from 0 to \(PhysicalRange.systemID.upperBound), not \(item)")
            }
        }
        target = result
    }

    private mutating func number(_ table: [String: JSONValue], _ key: String, section: String, range: ClosedRange<Double>, into target: inout Double) {
        guard let value = table[key] else { return }
        guard let number = value.doubleValue else { return fail("\(section).\(key)", "must be a number") }
        guard let checked = CheckedNumber.measure(number, in: range) else {
            return fail("\(section).\(key)", "\(number) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        target = checked
    }

    private mutating func integer(_ table: [String: JSONValue], _ key: String, section: String, range: ClosedRange<Int>, into target: inout Int) {
        guard let value = table[key] else { return }
        guard let number = value.doubleValue, number == number.rounded() else { return fail("\(section).\(key)", "must be a whole number") }
        guard let checked = CheckedNumber.whole(number, in: range) else {
            return fail("\(section).\(key)", "\(Int(exactly: number).map(String.init) ?? "\(number)") is outside \(range.lowerBound)…\(range.upperBound)")
        }
        target = checked
    }

    private mutating func choice<T: RawRepresentable & CaseIterable>(
        _ table: [String: JSONValue], _ key: String, section: String, into target: inout T
    ) where T.RawValue == String {
        guard let value = table[key] else { return }
        guard let text = value.stringValue, let parsed = T(rawValue: text) else {
            return fail("\(section).\(key)", "must be one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        target = parsed
    }
}
