import Foundation
import NavigationCore
import Testing
import TestSupport

/// Fault injection, the process and its disk: SIGKILL at seeded points of a trip, a journal damaged every way
/// a power cut or a bad card damages it, a journal directory that cannot be written, a disk that fills up.
@Suite(.serialized)
struct ProcessFaultTests {
    /// SIGKILL at a seeded point of the drive: the restarted navd resumes the same route and arrives.
    @Test(arguments: [11, 23, 37] as [UInt64])
    func sigkillAtASeededPointResumesTheSameRouteToArrival(seed: UInt64) async throws {
        let killed = try await KilledMidTrip.make(seed: seed)
        let (drive, pty, navd, routeId, killAt) = (killed.drive, killed.pty, killed.navd, killed.routeId, killed.killAt)
        #expect(FileManager.default.fileExists(atPath: navd.journalPath), "no journal after SIGKILL at fix \(killAt)")
        try navd.start()
        let client = try navd.connect()
        let hello = try #require(client.next(timeout: 5))
        #expect(hello["state"]?["routeId"]?.stringValue == routeId, "seed \(seed), killed at fix \(killAt): \(hello)")
        for sentences in try DeviatingDrive.onPlannedRoute(drive, from: killAt) {
            pty.write(sentences)
            client.drain(for: 0.05)
        }
        let arrived = client.received.first { $0.type == "arrived" } ?? client.waitFor(timeout: 10) { $0.type == "arrived" }
        #expect(arrived?["routeId"]?.stringValue == routeId, "seed \(seed): no arrival on \(routeId):\n\(navd.log.suffix(2000))")
        #expect(!client.received.contains { $0.type == "route" && $0["reason"]?.stringValue == "reroute" }, "a resumed trip rerouted")
        print("process fault SIGKILL seed \(seed): killed at fix \(killAt) of \(drive.fixes.count); resumed \(routeId) and arrived")
    }

    struct Damage: CustomTestStringConvertible, Sendable {
        var name: String
        var damage: @Sendable (Data) -> Data
        var testDescription: String { name }
    }

    static let damages: [Damage] = [
        Damage(name: "truncated mid-record") { $0.prefix($0.count / 2) },
        Damage(name: "empty") { _ in Data() },
        Damage(name: "zeroed (a power cut on a card that had allocated the blocks)") { Data(count: $0.count) },
        Damage(name: "garbage") { data in
            var generator = SeededRandomNumberGenerator(seed: 5)
            return Data((0..<data.count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        },
        Damage(name: "valid JSON of the wrong shape") { _ in Data(#"{"version":1,"routeId":["r1"],"route":"none"}"#.utf8) },
        Damage(name: "a journal from another version") { data in
            Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: #""version":1"#, with: #""version":99"#).utf8)
        },
    ]

    /// A real journal (written by navd on a drive; the fuzzer's seed) damaged: moved aside, said once, no trip.
    @Test(arguments: damages)
    func aDamagedJournalIsMovedAsideAndNavdStartsWithoutATrip(_ damage: Damage) throws {
        let real = try Data(contentsOf: NavdInstance.repoRoot.appendingPathComponent("Fuzz/Corpus/FuzzJournal/trip.json"))
        let navd = try NavdInstance(sections: LifecycleTests.simulatedConfig(valhalla: try Engines.valhallaURL()))
        try damage.damage(real).write(to: URL(fileURLWithPath: navd.journalPath))
        try navd.start()
        let client = try navd.connect()
        let hello = client.next(timeout: 5)
        #expect(hello?["state"]?["phase"]?.stringValue == "idle", "\(damage.name): \(String(describing: hello))")
        #expect(navd.log.components(separatedBy: "moved aside").count == 2, "\(damage.name): \(navd.log)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: navd.directory.path).filter { $0.hasPrefix("trip.json.corrupt-") }
        #expect(aside.count == 1, "\(damage.name)")
        #expect(client.command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply")
    }

    /// A tmpfs of `kilobytes`, mounted for one test (navd runs as root in tests: only a read-only or full file
    /// system stops it writing).
    final class SmallDisk {
        let path = "/tmp/navd-disk-\(UUID().uuidString.prefix(8))"

        init(kilobytes: Int, readOnly: Bool) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mount = try ExternalProcess("mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k\(readOnly ? ",ro" : "")", "tmpfs", path])
            #expect(mount.waitForExit(timeout: 10) == 0, "cannot mount a tmpfs: \(mount.output)")
        }

        /// Fills the disk but for `leaving` bytes.
        func fill(leaving: Int) throws {
            var stats = statvfs()
            statvfs(path, &stats)
            let free = Int(stats.f_bavail) * Int(stats.f_bsize)
            try Data(count: max(0, free - leaving)).write(to: URL(fileURLWithPath: path + "/filler"))
        }

        func empty() { try? FileManager.default.removeItem(atPath: path + "/filler") }

        deinit {
            let umount = try? ExternalProcess("umount", ["-l", path])
            _ = umount?.waitForExit(timeout: 10)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Runs a trip for `seconds` and returns the client's messages.
    static func navigate(_ navd: NavdInstance, seconds: Double) throws -> SocketClient {
        try navd.start()
        let client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        _ = client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")
        #expect(client.waitFor(timeout: 15) { $0.type == "route" } != nil)
        client.drain(for: seconds)
        return client
    }

    @Test func aJournalDirectoryThatCannotBeWrittenIsSaidOnceAndNavigationGoesOn() throws {
        let disk = try SmallDisk(kilobytes: 256, readOnly: true)
        let navd = try NavdInstance(
            sections: LifecycleTests.simulatedConfig(valhalla: try Engines.valhallaURL(), timeScale: 2), journal: disk.path + "/trip.json")
        let client = try Self.navigate(navd, seconds: 6)  // six journal intervals
        let complaints = navd.log.components(separatedBy: "cannot save the trip journal").count - 1
        #expect(complaints == 1, "said \(complaints) times:\n\(navd.log.suffix(2000))")
        #expect(navd.log.contains("Read-only file system"))
        let states = client.received.filter { $0.type == "trip_state" && $0["state"]?.stringValue == "navigating" }
        #expect(states.count >= 6, "navigation stalled: \(states.count) states")
        #expect(navd.process?.isRunning == true)
        print("process fault read-only journal directory: said \(complaints) time(s) over 6 s; \(states.count) states published")
    }

    @Test func aDiskThatFillsUpIsSaidOnceAndSavingResumesWhenThereIsRoomAgain() throws {
        let disk = try SmallDisk(kilobytes: 256, readOnly: false)
        let navd = try NavdInstance(
            sections: LifecycleTests.simulatedConfig(valhalla: try Engines.valhallaURL(), timeScale: 2), journal: disk.path + "/trip.json")
        let client = try Self.navigate(navd, seconds: 2)
        #expect(FileManager.default.fileExists(atPath: navd.journalPath), "no journal before the disk filled")
        try disk.fill(leaving: 1024)  // less than one journal
        client.drain(for: 5)
        let complaints = navd.log.components(separatedBy: "cannot save the trip journal").count - 1
        #expect(complaints == 1, "said \(complaints) times:\n\(navd.log.suffix(2000))")
        #expect(navd.log.contains("No space left on device"))
        // The last good journal survives a failed save (atomic replace): a restart now would still resume.
        let journal = try Data(contentsOf: URL(fileURLWithPath: navd.journalPath))
        #expect((try? JSONSerialization.jsonObject(with: journal)) != nil, "a failed save damaged the journal")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: disk.path)).contains { $0.contains(".tmp-") }, "a temporary file was left")
        disk.empty()
        client.drain(for: 2.5)
        #expect(navd.log.contains("saved again"), "\(navd.log.suffix(1500))")
        #expect(client.received.filter { $0.type == "trip_state" }.count > 10)
        print("process fault disk full: said once; the journal survived; saving resumed once there was room")
    }

    /// The flight recorder and the trip journal share a disk: the recorder keeps 64 MB free
    /// (FlightRecorder.freeSpaceReserve) and ends its recording there, so the journal keeps saving.
    @Test func theRecorderLeavesTheJournalRoomOnAFillingDisk() throws {
        let disk = try SmallDisk(kilobytes: 80 * 1024, readOnly: false)
        try disk.fill(leaving: (64 << 20) + 16_384)
        let navd = try NavdInstance(
            sections: LifecycleTests.simulatedConfig(valhalla: try Engines.valhallaURL(), timeScale: 2)
                + "\n[recording]\nenabled = true\ndirectory = \"\(disk.path)/recordings\"\n",
            journal: disk.path + "/trip.json")
        let client = try Self.navigate(navd, seconds: 8)
        #expect(navd.log.contains("the disk keeps 64 MB free for the trip journal"), "\(navd.log.suffix(2000))")
        #expect(!navd.log.contains("cannot save the trip journal"), "\(navd.log.suffix(2000))")
        let journal = try Data(contentsOf: URL(fileURLWithPath: navd.journalPath))
        #expect((try? JSONSerialization.jsonObject(with: journal)) != nil)
        let recordings = try FileManager.default.contentsOfDirectory(atPath: disk.path + "/recordings").filter { $0.hasSuffix(".jsonl") }.sorted()
        let last = try String(contentsOfFile: disk.path + "/recordings/" + (recordings.last ?? ""), encoding: .utf8).split(separator: "\n").last
        #expect(last?.contains(#""reason":"disk_full""#) == true, "\(String(describing: last))")
        #expect(client.received.filter { $0.type == "trip_state" }.count > 10)
        #expect(navd.process?.isRunning == true)
    }
}
