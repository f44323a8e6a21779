import NavigationCore
import Testing
import TripPlanning

/// Stops added, removed and skipped on the way: the list still ahead, and the edits that must change nothing.
struct StopEditTests {
    /// Waypoints ahead named by their longitude, so that a list reads as numbers.
    static func ahead(_ count: Int) -> [Waypoint] {
        (0..<count).map { Waypoint(coordinate: GeographicCoordinate(latitude: 60.17, longitude: 24.9 + Double($0) / 1000)) }
    }
    static let stop = Waypoint(coordinate: GeographicCoordinate(latitude: 60.18, longitude: 25.0), properties: ["radius": .number(20)])

    static func names(_ list: [Waypoint]) -> [Int] {
        list.map { $0 == stop ? -1 : Int((($0.coordinate.longitude - 24.9) * 1000).rounded()) }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var edit: StopEdit
        var count: Int
        /// The list after the edit (-1: the added stop).
        var expected: [Int]
        var testDescription: String { "\(edit) on \(count)" }
    }

    static let cases: [Case] = [
        Case(edit: .add(stop, index: nil), count: 1, expected: [-1, 0]),
        Case(edit: .add(stop, index: nil), count: 3, expected: [0, 1, -1, 2]),
        Case(edit: .add(stop, index: 0), count: 3, expected: [-1, 0, 1, 2]),
        Case(edit: .add(stop, index: 3), count: 3, expected: [0, 1, 2, -1]),
        Case(edit: .remove(index: 0), count: 3, expected: [1, 2]),
        Case(edit: .remove(index: 2), count: 3, expected: [0, 1]),
        Case(edit: .skipNext, count: 2, expected: [1]),
    ]

    @Test(arguments: cases)
    func anEditGivesTheListToRouteThrough(_ example: Case) throws {
        #expect(Self.names(try example.edit.applied(to: Self.ahead(example.count))) == example.expected)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var edit: StopEdit
        var count: Int
        var says: String
        var testDescription: String { "\(edit) on \(count)" }
    }

    static let refusals: [Refusal] = [
        Refusal(edit: .add(stop, index: 4), count: 3, says: "'index' 4 is out of range: 3 waypoint(s) ahead, so 0...3"),
        Refusal(edit: .add(stop, index: -1), count: 3, says: "'index' -1 is out of range"),
        Refusal(edit: .add(stop, index: nil), count: StopEdit.waypointLimit, says: "at most 50"),
        Refusal(edit: .remove(index: 3), count: 3, says: "'index' 3 is out of range: 3 waypoint(s) ahead, so 0...2"),
        Refusal(edit: .remove(index: 0), count: 1, says: "cancel the trip instead"),
        Refusal(edit: .skipNext, count: 1, says: "the next waypoint is the destination"),
        Refusal(edit: .skipNext, count: 0, says: "no waypoint left"),
    ]

    @Test(arguments: refusals)
    func anEditThatCannotBeMadeSaysWhy(_ refusal: Refusal) {
        #expect {
            _ = try refusal.edit.applied(to: Self.ahead(refusal.count))
        } throws: { error in
            "\(error)".contains(refusal.says)
        }
    }

    /// Every edit on every small list: the waypoints it does not touch keep their order and their properties,
    /// and the list changes by exactly one.
    @Test(arguments: 1...6)
    func anEditTouchesOneWaypointAndKeepsTheOthersInOrder(count: Int) throws {
        let list = Self.ahead(count)
        for index in 0...count {
            let added = try StopEdit.add(Self.stop, index: index).applied(to: list)
            #expect(added.count == count + 1 && added[index] == Self.stop)
            #expect(added.filter { $0 != Self.stop } == list)
        }
        for index in 0..<count where count > 1 {
            let removed = try StopEdit.remove(index: index).applied(to: list)
            var expected = list
            expected.remove(at: index)
            #expect(removed == expected)
        }
        if count > 1 { #expect(try StopEdit.skipNext.applied(to: list) == Array(list.dropFirst())) }
    }
}
