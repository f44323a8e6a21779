import Foundation
import Testing

/// gpsfake playing an NMEA log into its own gpsd, started for a test.
///
/// gpsfake plays its log from the moment it starts, whether or not anyone listens, and its gpsd opens the pty
/// (flushing what was written to it) only when a client watches. So a client is started only once gpsfake's gpsd
/// accepts connections: a client started before would wait out its reconnect backoff (navd's: 0.5 s, 1 s, 2 s,
/// ...) while the log plays to no one, and a cold first start of gpsfake on a busy machine takes seconds.
public enum GpsFake {
    /// Starts gpsfake on 127.0.0.1:`port` playing `log` once (`once`) or over and over, `cycle` seconds between
    /// sentences, and returns once its gpsd accepts connections (up to 30 s; an issue is recorded when it never
    /// does).
    public static func start(_ log: URL, port: Int, once: Bool = true, cycle: String) throws -> ExternalProcess {
        let fake = try ExternalProcess("gpsfake", (once ? ["-1"] : []) + ["-q", "-P", String(port), "-c", cycle, log.path])
        #expect(waitForTCPListener(port: port, timeout: 30), "gpsfake's gpsd never listened: \(fake.output.suffix(500))")
        return fake
    }
}
