import Foundation
import NavigationCore
import Testing

/// Whole trips as JSON Lines (one `TripStateRecord` per fix), compared byte for byte with reviewed snapshots in
/// Snapshots/. After an intended change of behaviour, re-record with
/// `NAVD_RECORD_SNAPSHOTS=1 swift test --filter TripSnapshotTests` and review the diff before committing.
@Suite("Trip snapshots")
struct TripSnapshotTests {
    static let directory = TestRoutes.repoRoot.appendingPathComponent("Tests/NavigationControllerTests/Snapshots")
    static let recording = ProcessInfo.processInfo.environment["NAVD_RECORD_SNAPSHOTS"] == "1"

    static func trip(_ name: String) throws -> String {
        let route = try TestRoutes.fixture(name)
        let controller = try NavigationController(route: route)
        let fixes = LocationSimulator(speed: 10, sampleRate: 1, noise: 3, seed: 5).simulate(along: controller.index.points)
        var drive = Drive(controller)
        drive.run(fixes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try drive.states.enumerated().map { i, state in
            String(decoding: try encoder.encode(TripStateRecord(state, time: fixes[i].timestamp)), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }

    @Test(arguments: TestRoutes.fixtureNames)
    func tripMatchesItsSnapshot(name: String) throws {
        let actual = try Self.trip(name)
        let file = Self.directory.appendingPathComponent("\(name).jsonl")
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return
        }
        let expected = try #require(
            try? String(contentsOf: file, encoding: .utf8), "no snapshot \(file.lastPathComponent): record it with NAVD_RECORD_SNAPSHOTS=1")
        guard actual != expected else { return }
        let a = actual.split(separator: "\n"), e = expected.split(separator: "\n")
        let line = Array(zip(a, e)).firstIndex { $0 != $1 } ?? min(a.count, e.count)
        Issue.record(
            """
            \(name): the trip differs from its snapshot at line \(line + 1) (\(a.count) lines now, \(e.count) recorded).
            recorded: \(line < e.count ? String(e[line]) : "(end)")
            now:      \(line < a.count ? String(a[line]) : "(end)")
            If the change is intended, re-record with NAVD_RECORD_SNAPSHOTS=1 and review the diff.
            """)
    }

    @Test func snapshotsEndInCompletion() throws {
        for name in TestRoutes.fixtureNames {
            let last = try Self.trip(name).split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.contains(#""state":"complete""#), "\(name)")
        }
    }
}
