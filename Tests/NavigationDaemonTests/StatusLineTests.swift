import Foundation
import NavigationCore
import NavigationDaemon
import Testing

/// The status line systemd shows (`STATUS=`), read after every input: written again only when what it says changes,
/// and always what the trip's state says.
struct StatusLineTests {
    @Test func theStatusLineSaysTheDistanceLeftAndTheDeviationAfterEveryFix() throws {
        var (harness, route, fixes) = try CoordinatorHarness.navigating(drivenTo: 2)
        // On the route, then 150 m to its side (off the route), then back on it.
        let aside = CoordinatorHarness.fixes(along: route, offset: 150, startingAt: Double(fixes.count))
        let drive = Array(fixes[3..<40]) + Array(aside[40..<70]) + Array(fixes[70..<120]).map { fix in
            var later = fix
            later.timestamp = fix.timestamp.addingTimeInterval(Double(fixes.count))
            return later
        }
        var seen: Set<String> = []
        for fix in drive {
            let effects = harness.feed(fix)
            guard let state = effects.events(.tripState).last, let left = state["progress"]?["distanceRemaining"]?.doubleValue else { continue }
            let offRoute = state["deviation"]?["kind"] == "off_route"
            let expected = "navigating, \(HumanReadable.distance(left)) left" + (offRoute ? " (off route)" : "")
            #expect(harness.coordinator.statusLine == expected)
            #expect(harness.coordinator.statusLine == expected, "read twice, the same")
            seen.insert(expected)
        }
        #expect(seen.count > 10, "the distance left changes along the drive: \(seen.sorted())")
        #expect(seen.contains { $0.hasSuffix("(off route)") }, "the drive went off the route")
    }

    /// The rounding the status line compares is the text's own: equal roundings, equal texts; each tier's edges.
    @Test(arguments: [
        (-5.0, "0 m"), (2.4, "0 m"), (2.5, "5 m"), (99.9, "100 m"), (100, "100 m"), (994.9, "990 m"), (995, "1.0 km"),
        (1_050, "1.1 km"), (9_949, "9.9 km"), (9_950, "10 km"), (1e300, "\(1 << 53) km"), (.infinity, "?"), (.nan, "?"),
    ])
    func roundedDistancesAreTheirText(meters: Double, expected: String) {
        #expect(HumanReadable.distance(meters) == expected)
        #expect(HumanReadable.RoundedDistance(meters).description == expected)
    }
}
