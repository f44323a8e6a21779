import Foundation
import NavigationCore
import RoadAhead
import Testing
import TestSupport

/// Speed alerts through the real navd: Koulutie on the test network (60 km/h, a 500 m school zone at 40 km/h,
/// 60 km/h again), routed by the real Valhalla, driven through navd's serial source on a pty at a steady speed,
/// with the flight recorder on. What the client sees, against where the car truly was, and the recording replayed
/// byte for byte. The expected levels come from the default rules (`SpeedAlertRules`), zone by zone.
@Suite(.serialized)
struct SpeedZoneDriveTests {
    struct Drive: Sendable, CustomTestStringConvertible {
        /// km/h.
        var speed: Double
        /// Fixes per second.
        var rate: Double
        var testDescription: String { "\(Int(speed)) km/h, \(Int(rate)) Hz" }
        var metersPerSecond: Double { speed / 3.6 }
    }

    @Test(arguments: [Drive(speed: 75, rate: 1), Drive(speed: 75, rate: 10), Drive(speed: 55, rate: 1)])
    func throughTheSchoolZone(_ drive: Drive) async throws {
        let network = try TestNetwork.load()
        let zone = network.schoolZone
        let rules = SpeedAlertRules()
        let start = try network.place("koulutieWest"), end = try network.place("koulutieEast")
        let route = try await network.route(.valhalla, from: start, heading: 90, to: end)
        let samples = FieldTrack(speed: drive.metersPerSecond, rate: drive.rate, error: .openSky, seed: 3).samples(along: route.geometry)
        let directory = "/tmp/navd-speed-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try NetworkDriveRun.drive(
            network, engine: .valhalla, samples: samples, to: end, epochsPerSecond: drive.rate >= 10 ? 100 : 20, recordingDirectory: directory)
        let context = "\(drive.testDescription)\n\(run.eventSummary)\n\(run.log.suffix(1500))"
        #expect(run.arrived, "never arrived: \(context)")

        // Where the car truly was (metres along its path) for each message, and the zone's edges on that path.
        let zoneStart = Geodesy.distance(start, zone.start), zoneEnd = Geodesy.distance(start, zone.end)
        func position(_ index: Int) -> Double? { run.sampleAt[index].map { run.samples[$0].distance } }
        // navd publishes a fix's events before its trip_state: an event is where the next trip_state says.
        func eventPosition(_ index: Int) -> Double? {
            (run.messages[index...].firstIndex { $0.type == "trip_state" }).flatMap(position)
        }
        // Levels expected zone by zone; a level needs the hold (and a fix or two) to be raised after a limit begins.
        let settle = rules.hold * drive.metersPerSecond + 2 * drive.metersPerSecond / drive.rate + 10
        let before = rules.level(speed: drive.speed, limit: zone.around)
        let inside = rules.level(speed: drive.speed, limit: zone.limit)
        let after = rules.level(speed: drive.speed, limit: zone.around)
        func levels(from: Double, to: Double) -> Set<String> {
            Set(run.messages.indices.compactMap { i -> String? in
                guard run.messages[i].type == "trip_state", run.messages[i]["state"]?.stringValue == "navigating", let at = position(i), at >= from, at <= to
                else { return nil }
                return run.messages[i]["speedAlert"]?["level"]?.stringValue ?? "absent"
            })
        }
        #expect(levels(from: settle, to: zoneStart - 20) == [before.rawValue], "before the school zone: \(context)")
        #expect(levels(from: zoneStart + settle, to: zoneEnd - 20) == [inside.rawValue], "in the school zone: \(context)")
        #expect(levels(from: zoneEnd + settle, to: Geodesy.distance(start, end) - 60) == [after.rawValue], "after the school zone: \(context)")
        // The limit each state carries is the zone's (away from the edges, where the snapped position decides).
        for i in run.messages.indices where run.messages[i].type == "trip_state" && run.messages[i]["state"]?.stringValue == "navigating" {
            guard let at = position(i), let limit = run.messages[i]["speedAlert"]?["limit"]?.doubleValue else { continue }
            if at > zoneStart + 20, at < zoneEnd - 20 { #expect(limit == zone.limit, "at \(Int(at)) m: limit \(limit)") }
            if at < zoneStart - 20 || at > zoneEnd + 20 { #expect(limit == zone.around, "at \(Int(at)) m: limit \(limit)") }
        }

        // The slow-down warning: before the zone, when the speed is over the lower limit's minor threshold, from
        // about the warning distance (speed-scaled, at least 100 m) ahead of it.
        let alerts = run.events("speed_alert")
        let warnings = alerts.filter { $0.message["lowerLimitAhead"]?["limit"]?.doubleValue == zone.limit }
        if drive.speed > rules.threshold(.minor, limit: zone.limit) {
            let first = try #require(warnings.first, "no slow-down warning: \(context)")
            let at = try #require(eventPosition(first.index))
            let warning = rules.warningDistance(speed: drive.metersPerSecond)
            #expect(at < zoneStart, "the warning came \(Int(at - zoneStart)) m inside the zone")
            #expect(zoneStart - at <= warning + 3 * 3, "warned \(Int(zoneStart - at)) m before the zone (warning distance \(Int(warning)) m)")
            #expect(zoneStart - at >= warning - drive.metersPerSecond / drive.rate - 3 * 3, "warned only \(Int(zoneStart - at)) m before the zone")
            let said = try #require(first.message["lowerLimitAhead"]?["distance"]?.doubleValue)
            #expect(abs(said - (zoneStart - at)) <= 3 * 3 + 1, "said \(said) m, truly \(Int(zoneStart - at)) m")
        } else {
            #expect(warnings.isEmpty, "a warning at a speed within the lower limit's tolerance: \(context)")
        }
        // Events only on changes, each with the level it changed to; the last clears it (the trip ended).
        let eventLevels = alerts.map { $0.message["level"]?.stringValue ?? "?" }
        #expect(eventLevels.last == "none", "\(eventLevels)")
        #expect(!alerts.contains { eventPosition($0.index).map { $0 < zoneStart } ?? true && $0.message["level"]?.stringValue == "major" && before != .major })

        // The flight recording replays byte for byte through the real navctl.
        let files = RecordingDaemonTests.recordingFiles(directory)
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("speed zones: \(drive.testDescription): levels \(before.rawValue) / \(inside.rawValue) / \(after.rawValue); events \(alerts.map { "\($0.message["level"]?.stringValue ?? "?")\($0.message["lowerLimitAhead"] == nil ? "" : "+slow down")@\(Int(eventPosition($0.index) ?? -1))m" }); \(replay.stdout.split(separator: "\n").first ?? "")")
    }
}
