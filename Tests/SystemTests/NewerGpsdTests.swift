import Foundation
import NavigationCore
import NMEA
import Testing
import TestSupport

/// navd's libgps shim against Debian 13's gpsd (3.25, a newer libgps API than Debian 12's 3.22): compiled with
/// warnings as errors in a debootstrapped trixie root, then run against that root's gpsd reading NMEA from the
/// host over TCP.
@Suite("the libgps shim on newer gpsd", .serialized)
struct NewerGpsdTests {
    static let shim = SystemFixtures.sources.appendingPathComponent("CGPSShim")

    @Test("the shim compiles against Debian 13's libgps and reads gpsd 3.25's fixes")
    func shimOnTrixie() throws {
        let start = GeographicCoordinate(latitude: 60.1699, longitude: 24.9384)
        let end = GeographicCoordinate(latitude: 60.1730, longitude: 24.9460)
        let fixes = LocationSimulator(speed: 12, sampleRate: 1, startTime: Date(timeIntervalSince1970: 1_795_241_290), reportedAccuracy: 4)
            .simulate(along: [start, end])
        try #require(fixes.count > 20)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("navd-trixie-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sentences = fixes.flatMap { NMEAWriter.sentences(for: $0) }.joined(separator: "\n") + "\n"
        try sentences.write(to: scratch.appendingPathComponent("drive.nmea"), atomically: true, encoding: .utf8)

        // The receiver: a TCP NMEA source on the host that gpsd connects to, paced at 10 sentences a second from
        // the start of each connection (gpsd may connect more than once). The script is a file: socat's address
        // syntax would mangle quotes and backslashes.
        let pace = scratch.appendingPathComponent("pace.sh")
        try "while IFS= read -r line; do printf '%s\\r\\n' \"$line\"; sleep 0.1; done <\(scratch.path)/drive.nmea\n"
            .write(to: pace, atomically: true, encoding: .utf8)
        let feedPort = freePort()
        let feed = try ExternalProcess("socat", ["-U", "TCP-LISTEN:\(feedPort),bind=127.0.0.1,reuseaddr,fork", "EXEC:/bin/sh \(pace.path)"])
        defer { feed.stop() }
        let gpsdPort = freePort()
        let wanted = 8
        let output = try RootCommand.run(
            in: "trixie",
            binds: [Self.shim.path: "/shim", SystemFixtures.fixtures.path: "/check"],
            """
            set -e
            cc -std=gnu11 -Wall -Wextra -Werror -I/shim/include -o /tmp/check /shim/navd_gps.c /check/gpsd_shim_check.c \
                $(pkg-config --cflags --libs libgps)
            gpsd -N -n -S \(gpsdPort) tcp://127.0.0.1:\(feedPort) >/tmp/gpsd.log 2>&1 &
            status=0
            /tmp/check 127.0.0.1 \(gpsdPort) \(wanted) 60 || status=$?
            kill $! 2>/dev/null || true
            [ $status -eq 0 ] || { echo "gpsd said:"; cat /tmp/gpsd.log; }
            exit $status
            """)
        #expect(output.succeeded, "\(output)")
        let lines = output.text.split(separator: "\n")
        let api = try #require(lines.first { $0.hasPrefix("api ") }?.dropFirst(4).split(separator: ".").first.flatMap { Int($0) }, "\(output)")
        #expect(api > 11, "trixie's libgps API major is \(api); this test is meant to prove a newer one")
        let reported = lines.filter { $0.hasPrefix("fix ") }.map { $0.split(separator: " ") }
        #expect(reported.count == wanted, "\(output)")
        let sentByTime = Dictionary(fixes.map { (Int64($0.timestamp.timeIntervalSince1970.rounded(.down)), $0) }) { first, _ in first }
        for fields in reported {
            let latitude = try #require(Double(fields[1])), longitude = try #require(Double(fields[2]))
            let time = try #require(Int64(fields[3])), mode = try #require(Int(fields[4]))
            let sent = try #require(sentByTime[time], "gpsd reported a fix at \(time) that was never sent")
            #expect(abs(sent.coordinate.latitude - latitude) < 2e-6 && abs(sent.coordinate.longitude - longitude) < 2e-6, "\(fields) vs \(sent)")
            #expect(mode >= 2, "fix mode \(mode)")
        }
    }
}
