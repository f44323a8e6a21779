import Foundation
import NavigationCore
import Testing

@Suite("navctl simulate and replay")
struct SimulateReplayCommandTests {
    static let route = NavctlProcess.fixture("helsinki_osrm_plain")

    static func temporaryFile(_ name: String, _ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navctl-\(UUID().uuidString)-\(name)")
        try Data(contents.utf8).write(to: url)
        return url
    }

    @Test func simulateWritesJSONLinesOfFixes() throws {
        let output = try NavctlProcess.run(["simulate", "--route", Self.route, "--speed", "12", "--rate", "2", "--noise", "4", "--seed", "9"])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        // 1469 m at 6 m per fix, plus the final fix at the destination.
        #expect(abs(lines.count - 246) <= 2)
        let fixes = try lines.map { try JSONDecoder().decode(UserLocation.self, from: Data($0.utf8)) }
        #expect(fixes[1].timestamp.timeIntervalSince(fixes[0].timestamp) == 0.5)
        #expect(fixes[0].speed?.metersPerSecond == 12)
        #expect(fixes.allSatisfy { $0.course != nil })
        // Same seed, same bytes; another seed, another track.
        let again = try NavctlProcess.run(["simulate", "--route", Self.route, "--speed", "12", "--rate", "2", "--noise", "4", "--seed", "9"])
        #expect(again.stdout == output.stdout)
        let other = try NavctlProcess.run(["simulate", "--route", Self.route, "--speed", "12", "--rate", "2", "--noise", "4", "--seed", "10"])
        #expect(other.stdout != output.stdout)
    }

    @Test func simulateWritesNMEAWithValidChecksums() throws {
        let output = try NavctlProcess.run(["simulate", "--route", Self.route, "--nmea", "--start", "2026-11-21T06:08:10Z"])
        #expect(output.status == 0)
        let sentences = output.stdout.split(separator: "\r\n").map(String.init)
        #expect(sentences.count > 100)
        #expect(sentences[0].hasPrefix("$GPRMC,060810.00,A,6010.1"))
        #expect(sentences[0].contains(",211126,"))
        #expect(sentences[1].hasPrefix("$GPGGA,060810.00,6010.1"))
        for sentence in sentences {
            let body = sentence.dropFirst().prefix { $0 != "*" }
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            #expect(sentence.hasSuffix("*" + String(format: "%02X", checksum)), "\(sentence)")
        }
    }

    @Test func replayRunsTheControllerAndIsReproducible() throws {
        let track = try NavctlProcess.run(["simulate", "--route", Self.route, "--noise", "3", "--seed", "2"])
        let file = try Self.temporaryFile("track.jsonl", track.stdout)
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = try NavctlProcess.run(["replay", "--route", Self.route, "--track", file.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        let records = replay.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(records.allSatisfy { $0 != nil })
        let first = try #require(records.first ?? nil)
        #expect(first["state"] as? String == "navigating")
        #expect(first["stepIndex"] as? Int == 0)
        for key in ["snappedLocation", "progress", "deviation", "visualInstruction", "time"] { #expect(first[key] != nil, "\(key)") }
        #expect((records.last ?? nil)?["state"] as? String == "complete")
        let again = try NavctlProcess.run(["replay", "--route", Self.route, "--track", file.path])
        #expect(again.stdout == replay.stdout)
    }

    /// A receiver's NMEA log with a 30 s tunnel and a teleported epoch: one line per fix, predicted lines through the
    /// gap, the teleport rejected on stderr and nothing else changed by it.
    @Test func replayOfAFieldDriveBridgesAGapAndRejectsATeleport() throws {
        let nmea = try NavctlProcess.run(["simulate", "--route", Self.route, "--nmea", "--speed", "10", "--start", "2026-11-21T06:08:10Z"])
        var epochs = stride(from: 0, to: nmea.stdout.split(separator: "\r\n").count - 1, by: 2).map { i in
            Array(nmea.stdout.split(separator: "\r\n")[i...(i + 1)]).map(String.init)
        }
        func withChecksum(_ sentence: String) -> String {
            let body = sentence.dropFirst().prefix { $0 != "*" }
            return "$\(body)*\(String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }))"
        }
        // Epoch 20 says the vehicle is 10° of latitude further south (1100 km).
        epochs[20] = epochs[20].map { withChecksum($0.replacingOccurrences(of: ",6010.", with: ",5010.")) }
        epochs.removeSubrange(50..<80)
        let file = try Self.temporaryFile("tunnel.nmea", epochs.flatMap { $0 }.map { $0 + "\r\n" }.joined())
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = try NavctlProcess.run(["replay", "--route", Self.route, "--track", file.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        let records = replay.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let real = records.filter { $0["predicted"] == nil }
        let predicted = records.filter { $0["predicted"] as? Bool == true }
        let times = real.compactMap { $0["time"] as? String }
        #expect(Set(times).count == times.count, "one line per fix")
        #expect(!times.contains("2026-11-21T06:08:30.000Z"), "the teleported epoch was navigated")
        #expect(replay.stderr.contains("rejected the fix at 2026-11-21T06:08:30.000Z"), "\(replay.stderr)")
        // The last fix before the gap is at 49 s, the next at 80 s: predictions at 51 s, 52 s, ... 79 s.
        #expect(predicted.count == 29, "one predicted state a second from 2 s into the 31 s gap: \(predicted.count)")
        #expect(records.allSatisfy { ($0["deviation"] as? [String: Any])?["kind"] as? String ?? "none" == "none" })
        #expect(records.last?["state"] as? String == "complete")
        let again = try NavctlProcess.run(["replay", "--route", Self.route, "--track", file.path])
        #expect(again.stdout == replay.stdout)
    }

    @Test func replayReadsGPXAndAConfiguration() throws {
        let routeJSON = try NavctlProcess.run(["route", "parse", "--json", Self.route])
        let routeFile = try Self.temporaryFile("route.json", routeJSON.stdout)
        let document = try JSONDecoder().decode(RouteDocument.self, from: Data(routeJSON.stdout.utf8))
        let points = RouteIndex(route: document.routes[0]).points
        let gpx = "<gpx><trk><trkseg>" + points.map { #"<trkpt lat="\#($0.latitude)" lon="\#($0.longitude)"/>"# }.joined() + "</trkseg></trk></gpx>"
        let track = try Self.temporaryFile("track.gpx", gpx)
        let config = try Self.temporaryFile("config.json", #"{"stepAdvance": "manual"}"#)
        defer { for f in [routeFile, track, config] { try? FileManager.default.removeItem(at: f) } }
        let replay = try NavctlProcess.run(["replay", "--route", routeFile.path, "--track", track.path, "--config", config.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        // With manual step advance nothing advances and the trip never completes.
        #expect(!replay.stdout.contains(#""state":"complete""#))
        #expect(!replay.stdout.contains(#""stepIndex":1,"#))
    }

    @Test func badInputIsOneClearLine() throws {
        let config = try Self.temporaryFile("config.json", #"{"stepAdvance": {"teleport": {}}}"#)
        let track = try Self.temporaryFile("track.jsonl", "{\"lat\":60.1,\"lon\":24.9,\"time\":\"2026-11-21T06:08:10Z\"}\n{\"lat\":\"x\"}\n")
        defer { for f in [config, track] { try? FileManager.default.removeItem(at: f) } }
        let badConfig = try NavctlProcess.run(["replay", "--route", Self.route, "--track", track.path, "--config", config.path])
        RouteCommandTests.expectOneLineError(badConfig, containing: "unknown 'teleport'")
        let badTrack = try NavctlProcess.run(["replay", "--route", Self.route, "--track", track.path])
        RouteCommandTests.expectOneLineError(badTrack, containing: "line 2")
        let badRoute = try NavctlProcess.run(["simulate", "--route", track.path])
        RouteCommandTests.expectOneLineError(badRoute, containing: "neither navctl route JSON nor an OSRM-format answer")
    }
}
