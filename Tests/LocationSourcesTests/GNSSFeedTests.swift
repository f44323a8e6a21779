import Foundation
@testable import LocationSources
import NavigationCore
import Synchronization
import Testing

/// The feed's handlers stay as they were set, however many readings pass (found by the soak: each reading wrapped
/// the handler in one more thunk, and after about 37 000 fixes one call overflowed the serial reader's stack).
@Suite("GNSS feed")
struct GNSSFeedTests {
    /// The address of a local in the handler's frame: how deep the stack is when the handler runs.
    static func stackDepthMarker() -> UInt {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    static func reading(_ index: Int) -> GNSSReading {
        .fix(
            GNSSFix(
                location: UserLocation(
                    coordinate: GeographicCoordinate(latitude: 60.17, longitude: 24.94), horizontalAccuracy: 4,
                    timestamp: Date(timeIntervalSince1970: 1_795_241_290 + Double(index))),
                quality: GNSSQuality(mode: .threeDimensional)))
    }

    @Test func aReadingHandlerRunsAtTheSameDepthAfterThousandsOfReadings() {
        let feed = GNSSFeed()
        let depths = Mutex<[UInt]>([])
        feed.forwardReadings { _ in depths.withLock { $0.append(Self.stackDepthMarker()) } }
        for index in 0..<5000 { feed.yield(Self.reading(index)) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 5000)
        // Before the fix the 5000th call ran about a megabyte deeper than the first.
        #expect(seen.allSatisfy { $0 == seen[0] }, "the handler ran \(Int(seen[0]) - Int(seen.min() ?? 0)) bytes deeper after 5000 readings")
    }

    @Test func aRawObserverRunsAtTheSameDepthAfterThousandsOfInputs() {
        let feed = GNSSFeed()
        let depths = Mutex<[UInt]>([])
        feed.observeRaw { _ in depths.withLock { $0.append(Self.stackDepthMarker()) } }
        for _ in 0..<5000 { feed.yieldRaw(.serialBytes(Array("$GPRMC\r\n".utf8))) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 5000)
        #expect(seen.allSatisfy { $0 == seen[0] }, "the observer ran \(Int(seen[0]) - Int(seen.min() ?? 0)) bytes deeper after 5000 inputs")
        feed.observeRaw(nil)
        feed.yieldRaw(.serialBytes([1]))
        #expect(depths.withLock { $0.count } == 5000, "an observer taken away is not called")
    }

    /// The watchdog sleeps until the last fix would be `timeout` old, not in polls; it reports once, then waits.
    @Test(arguments: [
        // now, last fix, reported, timeout -> silent for, wait
        (100.0, 100.0, false, 5.0, nil, 5.001),
        (100.0, 99.9, false, 5.0, nil, 4.901),
        (104.0, 100.0, false, 5.0, nil, 1.001),
        (105.0, 100.0, false, 5.0, nil, 0.001),  // exactly the timeout: not yet
        (105.5, 100.0, false, 5.0, 5.5, 5.0),
        (200.0, 100.0, true, 5.0, nil, 5.0),  // reported already: nothing more until a fix
        (100.0, 100.0, false, 0.0, nil, 0.001),  // never a wait of 0
        (101.0, 100.0, true, 0.0, nil, 0.001),
    ] as [(Double, Double, Bool, Double, Double?, Double)])
    func silenceCheck(now: Double, lastFix: Double, reported: Bool, timeout: Double, silentFor: Double?, wait: Double) {
        let check = SilenceCheck(now: now, lastFix: lastFix, reported: reported, timeout: timeout)
        #expect(check.silentFor == silentFor)
        #expect(abs(check.wait - wait) < 1e-9, "wait \(check.wait)")
    }

    /// With the real clock: silence is reported once after the timeout, a fix reports the receiver back, and the
    /// next silence is reported again.
    @Test func silenceIsReportedOnceAndAgainAfterAFix() async throws {
        let feed = GNSSFeed()
        let watchdog = Task { await feed.watchSilence(timeout: 0.3) }
        // Bounded: a watchdog that never reports ends the statuses (and fails the test) after 10 s.
        let bound = Task { try? await Task.sleep(for: .seconds(10)); feed.finish() }
        defer { watchdog.cancel(); bound.cancel() }
        var statuses = feed.statuses.makeAsyncIterator()
        let started = ContinuousClock.now
        guard case .receiverLost(let silent)? = await statuses.next() else { Issue.record("no receiverLost"); return }
        #expect(silent > 0.3)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        feed.yield(Self.reading(1))
        #expect(await statuses.next() == .receiverBack)
        guard case .receiverLost? = await statuses.next() else { Issue.record("no second receiverLost"); return }
        feed.finish()
    }
}
