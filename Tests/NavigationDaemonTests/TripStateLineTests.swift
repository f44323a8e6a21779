import Foundation
@testable import NavigationCore
import NavigationProtocol
import Testing

/// A `trip_state` line, written by hand on every fix, is byte for byte the line of the generic path (the payload's
/// fields as a tree, written by `JSONLine`'s order): the envelope first, then the payload's fields sorted.
@Suite struct TripStateLineTests {
    static var navigating: TripStateRecord {
        var record = TripStateRecord(.idle, time: Date(timeIntervalSince1970: 1_795_241_290.25))
        record.state = "navigating"
        record.rawLocation = .init(lat: 60.1655741, lon: 24.9406, course: 87.4, speed: 12.34)
        record.snappedLocation = .init(lat: 60.16557, lon: 24.94061, course: nil, speed: nil)
        record.stepIndex = 3
        record.remainingSteps = 9
        record.remainingWaypoints = 1
        record.progress = TripProgress(distanceToNextManeuver: 120.5, distanceRemaining: 3456.78, durationRemaining: 420)
        record.deviation = .init(kind: "none", distance: 0)
        record.roadName = "Bulevardi"
        record.visualInstruction = VisualInstruction(
            primary: VisualInstructionContent(
                text: "Turn right onto \"Mannerheimintie\"", maneuverType: .turn, maneuverModifier: .right, exitNumbers: ["12A"],
                lanes: [LaneInfo(active: true, directions: ["straight", "right"], activeDirection: "right")]),
            triggerDistanceBeforeManeuver: 200)
        record.speedLimit = .init(value: 40, unit: "km/h")
        record.speedAlert = SpeedAlert(level: .minor, limit: 40, unit: "km/h", speed: 47.5)
        record.arrival = .init(
            time: "2026-11-26T10:15:00Z", durationRemaining: 431.5, pace: 1.03,
            waypoints: [.init(index: 1, time: "2026-11-26T10:15:00Z", durationRemaining: 431.5)])
        record.roadAhead = [RoadObjectAhead(kind: "tunnel", distance: 800, length: 1200, name: "Keskustatunneli")]
        record.distanceTravelled = 1234.56
        return record
    }

    @Test(arguments: [
        (UInt64(0), nil), (1, "r-1"), (42, "route \"quoted\"\n"), (1 << 53, "日本"),
    ] as [(UInt64, String?)])
    func theLineIsTheGenericPathsLine(seq: UInt64, routeId: String?) {
        for record in [Self.navigating, TripStateRecord(.idle, time: Date(timeIntervalSince1970: 0))] {
            let message = EventMessage(seq: seq, routeId: routeId, event: .tripState(record))
            let generic = ServerMessage.event(.tripState, seq: seq, routeId: routeId, fields: message.event.fields).line
            #expect(String(decoding: message.line, as: UTF8.self) == String(decoding: generic, as: UTF8.self))
        }
    }
}
