import Foundation
import Testing

@Suite("navctl gnss")
struct GNSSCommandTests {
    static let corpus = NavctlProcess.repoRoot.appendingPathComponent("Tests/NMEATests/Fixtures/nmea-corpus").path

    @Test func replaysAnNMEALogAsJSONLines() throws {
        let output = try NavctlProcess.run(["gnss", "--nmea", "\(Self.corpus)/ublox-zed-f9p-nmea.log", "--fast", "--json", "--no-rollover-correction"])
        #expect(output.status == 0, "\(output.stderr)")
        let records = output.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let fixes = records.filter { $0["fix"] as? Bool == true }
        #expect(fixes.count >= 29)
        let last = try #require(fixes.last)
        for key in ["lat", "lon", "accuracy", "time", "mode", "satellitesUsed", "hdop", "age"] { #expect(last[key] != nil, "\(key)") }
        #expect((last["time"] as? String)?.hasPrefix("2019-04-12") == true)
        #expect(output.stderr.contains("gnss: end of input"))
    }

    @Test func showsFixesAsText() throws {
        let output = try NavctlProcess.run(["gnss", "--nmea", "\(Self.corpus)/ublox-8.log", "--fast", "--count", "3"])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n")
        // One line per epoch: three epochs a second apart, the receiver standing still.
        #expect(lines.count == 3)
        #expect(lines.map { $0.prefix(24) } == ["2017-01-10T00:09:41.000Z", "2017-01-10T00:09:42.000Z", "2017-01-10T00:09:43.000Z"])
        #expect(lines.allSatisfy { ($0.contains("44.06889") || $0.contains("44.06890")) && $0.contains("-121.31427") && $0.contains("±") })
    }

    @Test func listsSerialPorts() throws {
        let output = try NavctlProcess.run(["gnss", "--list-ports", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        for line in output.stdout.split(separator: "\n") {
            let port = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect((port["path"] as? String)?.hasPrefix("/dev/") == true)
        }
    }

    @Test func reportsAnUnreachableGpsdAndKeepsTrying() throws {
        let output = try NavctlProcess.run(["gnss", "--gpsd", "127.0.0.1:9", "--duration", "1.2"])
        #expect(output.status == 0)
        #expect(output.stderr.contains("gnss: cannot connect to gpsd at 127.0.0.1:9"))
        // libgps's own reason, not a negative code read as an errno ("Unknown error -6").
        #expect(output.stderr.contains("can't connect to host/port pair") && !output.stderr.contains("Unknown error"), "\(output.stderr)")
        #expect(output.stderr.contains("retrying"))
    }

    @Test func reportsAMissingSerialDevice() throws {
        let output = try NavctlProcess.run(["gnss", "--serial", "/dev/ttyNAVD-missing", "--duration", "1"])
        #expect(output.status == 0)
        #expect(output.stderr.contains("serial device /dev/ttyNAVD-missing does not exist"))
    }

    @Test(arguments: [
        (["gnss"], "exactly one of"),
        (["gnss", "--nmea", "a", "--gpx", "b"], "exactly one of"),
        (["gnss", "--gpsd", "host:port"], "HOST:PORT"),
        (["gnss", "--list-ports", "--nmea", "x"], "takes no source"),
    ])
    func badArgumentsAreRefused(arguments: [String], message: String) throws {
        let output = try NavctlProcess.run(arguments)
        #expect(output.status != 0)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func replayReadsAnNMEALog() throws {
        let route = NavctlProcess.fixture("helsinki_osrm_plain")
        let nmea = try NavctlProcess.run(["simulate", "--route", route, "--nmea", "--noise", "2"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("navctl-\(UUID().uuidString).nmea")
        try Data(nmea.stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = try NavctlProcess.run(["replay", "--route", route, "--track", file.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.split(separator: "\n").last?.contains(#""state":"complete""#) == true)
    }
}
