import Foundation
import NavigationCore
import NMEA
import RouteAdapters
import RouteClient
import Testing

/// Checks the order of the events a client saw during a drive that left the route once or more.
func expectDriveEventOrder(_ messages: [JSONValue], sourceLabel: String) {
    let types = messages.compactMap(\.type)
    func firstIndex(_ predicate: (JSONValue) -> Bool, after start: Int = 0) -> Int? {
        messages.indices.first { $0 >= start && predicate(messages[$0]) }
    }
    #expect(types.first == "hello", "\(sourceLabel): first message is \(types.first ?? "none")")
    guard let initialRoute = firstIndex({ $0.type == "route" && $0["reason"]?.stringValue == "initial" }) else {
        Issue.record("\(sourceLabel): no initial route; saw \(Set(types))")
        return
    }
    let initialRouteId = messages[initialRoute]["routeId"]?.stringValue
    guard let deviation = firstIndex({ $0.type == "deviation" && $0["offRoute"]?.boolValue == true }, after: initialRoute) else {
        Issue.record("\(sourceLabel): no deviation event")
        return
    }
    // Instructions of the first route came in step order, each exactly once.
    let firstRouteInstructions = messages[initialRoute..<deviation].filter { $0.type == "instruction" }
    let steps = firstRouteInstructions.compactMap { $0["stepIndex"]?.doubleValue }
    #expect(!steps.isEmpty, "\(sourceLabel): no instructions before the deviation")
    #expect(steps == steps.sorted(), "\(sourceLabel): instructions out of step order: \(steps)")
    let keys = firstRouteInstructions.map { "\($0["kind"]!)|\($0["stepIndex"]!)|\($0["instruction"]!)" }
    #expect(Set(keys).count == keys.count, "\(sourceLabel): an instruction was sent twice")
    #expect(messages[deviation]["routeId"]?.stringValue == initialRouteId)
    guard
        let inProgress = firstIndex(
            { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "reroute" && $0["status"]?.stringValue == "in_progress" },
            after: deviation),
        let succeeded = firstIndex(
            { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "reroute" && $0["status"]?.stringValue == "succeeded"
                && $0["applied"]?.boolValue == true }, after: inProgress),
        let retracted = firstIndex({ $0.type == "instruction_retracted" }, after: succeeded),
        let reroute = firstIndex({ $0.type == "route" && $0["reason"]?.stringValue == "reroute" }, after: retracted)
    else {
        Issue.record("\(sourceLabel): missing reroute events after the deviation; saw \(types[deviation...].filter { $0 != "trip_state" })")
        return
    }
    #expect(messages[retracted]["routeId"]?.stringValue == initialRouteId, "retraction belongs to the old route")
    let newRouteId = messages[reroute]["routeId"]?.stringValue
    #expect(newRouteId != nil && newRouteId != initialRouteId)
    #expect(messages[succeeded]["newRouteId"]?.stringValue == newRouteId)
    guard let arrived = firstIndex({ $0.type == "arrived" }, after: reroute) else {
        Issue.record("\(sourceLabel): never arrived; last events \(types.suffix(8))")
        return
    }
    let complete = firstIndex({ $0.type == "trip_state" && $0["state"]?.stringValue == "complete" }, after: arrived)
    #expect(complete != nil, "\(sourceLabel): no complete trip_state after arrived")
    // Sequence numbers increase; a gap can only be a replaced trip_state (a client that read slowly).
    let seqs = messages.compactMap { $0["seq"]?.doubleValue }
    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 > $0 }, "\(sourceLabel): seq not increasing")
    _ = (inProgress, sourceLabel)
}
