import Foundation
import LocationSources
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
}
