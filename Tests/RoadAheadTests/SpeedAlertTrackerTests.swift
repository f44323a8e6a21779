import Foundation
import NavigationCore
import RoadAhead
import Testing

/// The speed alert, fix by fix in fix time (no clock): bands, hold, hysteresis, mph, the slow-down warning, and no
/// alert from a speed the receiver does not vouch for.
struct SpeedAlertTrackerTests {
    static let start = Date(timeIntervalSince1970: 1_795_241_290)
    static let kmh = SpeedUnit.kilometersPerHour, mph = SpeedUnit.milesPerHour

    /// Feeds one observation a second at `speeds` (in the limit's unit) on a road limited to `limit`; the levels.
    static func levels(_ speeds: [Double], limit: Double, unit: SpeedUnit = kmh, rules: SpeedAlertRules = SpeedAlertRules()) -> [SpeedAlert.Level] {
        var tracker = SpeedAlertTracker(rules: rules)
        return speeds.enumerated().map { i, speed in
            tracker.update(SpeedObservation(time: start.addingTimeInterval(Double(i)), speed: speed * unit.metersPerSecond, limit: (limit, unit)))
            return tracker.alert.level
        }
    }

    /// The tolerance bands: an amount below 100 (in the limit's unit), a percentage at and above it.
    @Test(arguments: [
        (50.0, 60.0, SpeedAlert.Level.none), (50, 60.5, .minor), (50, 70, .minor), (50, 70.5, .major),
        (80, 90.4, .minor), (100, 110, .none), (100, 110.5, .minor), (120, 132, .none), (120, 132.5, .minor), (120, 144.5, .major),
    ])
    func bands(limit: Double, speed: Double, level: SpeedAlert.Level) {
        #expect(Self.levels(Array(repeating: speed, count: 5), limit: limit).last == level)
    }

    /// The limit ends with the trip that gave it: the level and the warning drop at once (one change), and the
    /// next limit is judged afresh, with the hold.
    @Test func aLimitThatEndsClearsTheAlertAndTheHoldStartsAgain() {
        var tracker = SpeedAlertTracker()
        for i in 0..<4 { tracker.update(SpeedObservation(time: Self.start.addingTimeInterval(Double(i)), speed: 80 / 3.6, limit: (50, Self.kmh))) }
        #expect(tracker.alert.level == .major)
        let changed = tracker.limitEnded()
        #expect(changed)
        #expect(tracker.alert.level == .none && tracker.alert.limit == nil && tracker.alert.lowerLimitAhead == nil)
        let again = tracker.limitEnded()
        #expect(!again)
        tracker.update(SpeedObservation(time: Self.start.addingTimeInterval(4), speed: 80 / 3.6, limit: (50, Self.kmh)))
        #expect(tracker.alert.level == .none)
        tracker.update(SpeedObservation(time: Self.start.addingTimeInterval(6), speed: 80 / 3.6, limit: (50, Self.kmh)))
        #expect(tracker.alert.level == .major)
    }

    /// A moment over the limit (overtaking, a Doppler spike) raises nothing: the level needs the hold (2 s by
    /// default: three fixes a second apart).
    @Test func aMomentOverTheLimitRaisesNothing() {
        #expect(Self.levels([50, 65, 65, 50, 65, 50], limit: 50).allSatisfy { $0 == .none })
        #expect(Self.levels([50, 65, 65, 65, 50], limit: 50) == [.none, .none, .none, .minor, .none])
        // Straight to major: the major hold counts from when the speed went over the major threshold.
        #expect(Self.levels([50, 75, 75, 75], limit: 50) == [.none, .none, .none, .major])
        #expect(Self.levels([62, 62, 75, 75, 75], limit: 50) == [.none, .none, .minor, .minor, .major])
    }

    /// Hysteresis: a speed hovering at the threshold does not flap; the level clears 3 (the limit's unit) under it,
    /// one level at a time.
    @Test func hoveringAtTheThresholdDoesNotFlap() {
        let levels = Self.levels([62, 62, 62, 59.5, 60.5, 59, 60.8, 57.5, 56.9, 62], limit: 50)
        #expect(levels == [.none, .none, .minor, .minor, .minor, .minor, .minor, .minor, .none, .none])
        let down = Self.levels([75, 75, 75, 68, 66.9, 58, 56.9], limit: 50)
        #expect(down == [.none, .none, .major, .major, .minor, .minor, .none])
    }

    /// A road posted in mph: the speed, limit and tolerances in mph.
    @Test func aLimitInMilesPerHour() {
        var tracker = SpeedAlertTracker()
        for i in 0..<4 {
            tracker.update(SpeedObservation(time: Self.start.addingTimeInterval(Double(i)), speed: 41 * Self.mph.metersPerSecond, limit: (30, Self.mph)))
        }
        #expect(tracker.alert.level == .minor)
        #expect(tracker.alert.unit == "mph" && tracker.alert.limit == 30 && tracker.alert.speed == 41)
    }

    /// No speed the receiver vouches for (no fix, no Doppler speed, a predicted state) or no known limit: level
    /// `none` at once, and the hold starts again afterwards.
    @Test(arguments: [true, false])
    func noVouchedSpeedOrNoLimitIsNoAlert(dropSpeed: Bool) {
        var tracker = SpeedAlertTracker()
        var changes: [Bool] = []
        for i in 0..<8 {
            let blind = i == 4
            let speed: Double? = blind && dropSpeed ? nil : 80 * Self.kmh.metersPerSecond
            let limit: (Double, SpeedUnit)? = blind && !dropSpeed ? nil : (50, Self.kmh)
            changes.append(tracker.update(SpeedObservation(time: Self.start.addingTimeInterval(Double(i)), speed: speed, limit: limit)))
            #expect(tracker.alert.level == (i == 2 || i == 3 || i >= 7 ? .major : .none), "second \(i)")
        }
        #expect(changes == [false, false, true, false, true, false, false, true])
    }

    @Test func disabledRulesNeverAlert() {
        var rules = SpeedAlertRules()
        rules.enabled = false
        #expect(Self.levels(Array(repeating: 120, count: 10), limit: 50, rules: rules).allSatisfy { $0 == .none })
    }

    /// The slow-down warning: on while a lower limit ahead is within reach and the speed is over its minor
    /// threshold; no hold; off when the speed comes down or the limit is passed. Its start and end are changes.
    @Test func theSlowDownWarning() {
        var tracker = SpeedAlertTracker()
        func observe(_ second: Double, speed: Double, ahead: Double?) -> Bool {
            tracker.update(
                SpeedObservation(
                    time: Self.start.addingTimeInterval(second), speed: speed * Self.kmh.metersPerSecond, limit: (60, Self.kmh),
                    ahead: ahead.map { (40, Self.kmh, $0) }))
        }
        #expect(observe(0, speed: 60, ahead: nil) == false)
        #expect(observe(1, speed: 60, ahead: 120) == true)
        #expect(tracker.alert.lowerLimitAhead == SpeedAlert.LimitAhead(limit: 40, unit: "km/h", distance: 120))
        #expect(tracker.alert.level == .none, "not over the limit in force")
        #expect(observe(2, speed: 58, ahead: 104) == false, "a new distance is no change")
        #expect(tracker.alert.lowerLimitAhead?.distance == 104)
        #expect(observe(3, speed: 48, ahead: 90) == true, "slowed to within the lower limit's tolerance")
        #expect(tracker.alert.lowerLimitAhead == nil)
        // A higher limit ahead is no warning.
        var up = SpeedAlertTracker()
        up.update(SpeedObservation(time: Self.start, speed: 70 * Self.kmh.metersPerSecond, limit: (60, Self.kmh), ahead: (80, Self.kmh, 50)))
        #expect(up.alert.lowerLimitAhead == nil)
    }

    @Test(arguments: [(0.0, 100.0), (10, 100), (20, 100), (27.8, 139)])
    func theWarningDistanceScalesWithSpeed(speed: Double, distance: Double) {
        #expect(abs(SpeedAlertRules().warningDistance(speed: speed) - distance) < 0.01)
    }
}
