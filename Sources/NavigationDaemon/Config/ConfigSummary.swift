/// A few lines saying what a configuration will do (`navd check-config`).
public enum ConfigSummary {
    public static func describe(_ config: NavdConfig) -> String {
        let gnss: String
        switch config.gnss.source {
        case .gpsd: gnss = "gpsd at \(config.gnss.gpsd)" + (config.gnss.device.isEmpty ? "" : ", device \(config.gnss.device)")
        case .serial: gnss = "serial \(config.gnss.serial) at " + (config.gnss.baud == 0 ? "a detected baud rate" : "\(config.gnss.baud) baud")
        case .replay: gnss = "replay of \(config.gnss.replay) at \(config.gnss.replaySpeed)x"
        case .simulate: gnss = "simulated receiver at \(config.gnss.simulateSpeed) m/s"
        }
        return [
            "gnss:     \(gnss)",
            "routing:  \(config.routing.engine.rawValue) at \(config.routing.url), profile \(config.routing.effectiveProfile), up to \(config.routing.maxAttempts) attempts",
            "reroute:  \(config.reroute.policy.rawValue), accept \(config.reroute.accept.rawValue), cooldown \(config.reroute.cooldown) s",
            "socket:   \(config.socket.path) mode \(String(config.socket.mode, radix: 8))" + (config.socket.group.isEmpty ? "" : " group \(config.socket.group)"),
            "journal:  " + (config.journal.path.isEmpty ? "off" : "\(config.journal.path), every \(config.journal.interval) s"),
            "logging:  \(config.logging.level), \(config.logging.format.rawValue)",
        ].joined(separator: "\n")
    }
}
