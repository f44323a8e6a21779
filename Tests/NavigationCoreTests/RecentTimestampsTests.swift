import FoundationEssentials
import NavigationCore
import PropertyBased
import Testing

/// A trip's arrival times keep their last few texts; each text must be the one formatting the time gives.
@Suite struct RecentTimestampsTests {
    /// Times drawn from more distinct seconds than are kept (evictions), repeated in any order, among them the
    /// edges of the formattable years and a negative zero.
    @Test func eachTextIsTheFormattedTime() async {
        let pool: [Double] = [0, -0.0, 1, 2, 3, 60, 3599, 86_400, 817_000_000, 817_000_001, -1, -63_113_904_000, 252_423_993_599]
        await propertyCheck(count: 500, input: Gen.int(in: 0...(pool.count - 1)).array(of: 1...40)) { picks in
            var recent = RecentTimestamps()
            for pick in picks {
                let seconds = pool[pick]
                #expect(recent.text(secondsSinceReference: seconds) == ISO8601Timestamp.format(Date(timeIntervalSinceReferenceDate: seconds)))
            }
        }
    }
}
