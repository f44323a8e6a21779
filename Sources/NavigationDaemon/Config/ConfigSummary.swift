import RouteAdapters

/// A few lines saying what a configuration will do (`navd check-config`). URLs are shown without credentials
/// or query values.
public enum ConfigSummary {
    public static func describe(_ config: NavdConfig) -> String {
        let gnss: String
        switch config.gnss.source {
        case .gpsd: gnss = "gpsd at \(config.gnss.gpsd)" + (config.gnss.device.isEmpty ? "" : ", device \(config.gnss.device)")
        case .serial: gnss = "serial \(config.gnss.serial) at " + (config.gnss.baud == 0 ? "a detected baud rate" : "\(config.gnss.baud) baud")
        case .replay: gnss = "replay of \(config.gnss.replay) at \(config.gnss.replaySpeed)x"
        case .simulate: gnss = "simulated receiver at \(config.gnss.simulateSpeed) m/s"
        }
        let routing = config.routing
        var lines = ["gnss:     \(gnss)", "routing:  " + engine(routing.engine, routing.url, routing.effectiveProfile, routing.maxAttempts)]
        for fallback in routing.fallbacks {
            lines.append("fallback: " + engine(fallback.engine, fallback.url, fallback.effectiveProfile, fallback.maxAttempts))
        }
        let socket = config.socket
        lines += [
            "reroute:  \(config.reroute.policy.rawValue), accept \(config.reroute.accept.rawValue), cooldown \(config.reroute.cooldown) s",
            "socket:   \(socket.path) mode \(String(socket.mode, radix: 8))" + (socket.group.isEmpty ? "" : " group \(socket.group)"),
            "journal:  " + (config.journal.path.isEmpty ? "off" : "\(config.journal.path), every \(config.journal.interval) s"),
            "recording: " + (config.recording.enabled ? "every run, in \(config.recording.directory)" : "on request (navctl record start), in \(config.recording.directory)"),
            "logging:  \(config.logging.level), \(config.logging.format.rawValue)",
        ]
        return lines.joined(separator: "\n")
    }

    private static func engine(_ kind: NavdConfig.Routing.Engine, _ url: String, _ profile: String, _ attempts: Int) -> String {
        "\(kind.rawValue) at \(HTTPRequestSpec.redacted(url)), profile \(profile), up to \(attempts) attempts"
    }
}
