import Foundation
import NavigationCore
import NavigationProtocol
import NMEA
import RouteAdapters
import RouteClient
import Testing

/// Checks the order of the events a client saw during a drive that left the route once or more. The lines are
/// decoded with the protocol's own typed values (`ServerLine`): a line that does not decode fails the check.
func expectDriveEventOrder(_ lines: [String], sourceLabel: String) {
    var messages: [ServerLine] = []
    for line in lines {
        do {
            messages.append(try ServerLine(line: Array(line.utf8)))
        } catch {
            Issue.record("\(sourceLabel): a line does not decode: \(error): \(line.prefix(200))")
        }
    }
    func event(_ index: Int) -> EventMessage? {
        if case .event(let message) = messages[index] { return message }
        return nil
    }
    func firstIndex(after start: Int = 0, _ predicate: (EventMessage) -> Bool) -> Int? {
        messages.indices.first { $0 >= start && event($0).map(predicate) == true }
    }
    func name(_ line: ServerLine) -> String {
        switch line {
        case .hello: "hello"
        case .reply: "reply"
        case .error: "error"
        case .bye: "bye"
        case .event(let message): message.event.type.rawValue
        }
    }
    guard case .hello = messages.first else {
        Issue.record("\(sourceLabel): first message is \(messages.first.map(name) ?? "none")")
        return
    }
    guard let initialRoute = firstIndex({ if case .route(let route) = $0.event { route.reason == .initial } else { false } }) else {
        Issue.record("\(sourceLabel): no initial route; saw \(Set(messages.map(name)))")
        return
    }
    let initialRouteId = event(initialRoute)?.routeId
    guard let deviation = firstIndex(after: initialRoute, { if case .deviation(let d) = $0.event { d.offRoute } else { false } }) else {
        Issue.record("\(sourceLabel): no deviation event")
        return
    }
    // Instructions of the first route came in step order, each exactly once.
    let firstRouteInstructions: [InstructionEvent] = (initialRoute..<deviation).compactMap {
        if case .instruction(let instruction) = event($0)?.event { instruction } else { nil }
    }
    let steps = firstRouteInstructions.map(\.stepIndex)
    #expect(!steps.isEmpty, "\(sourceLabel): no instructions before the deviation")
    #expect(steps == steps.sorted(), "\(sourceLabel): instructions out of step order: \(steps)")
    #expect(Set(firstRouteInstructions).count == firstRouteInstructions.count, "\(sourceLabel): an instruction was sent twice")
    #expect(event(deviation)?.routeId == initialRouteId)
    func calculation(_ status: RouteCalculationEvent.Status, applied: Bool? = nil) -> (EventMessage) -> Bool {
        { message in
            guard case .routeCalculation(let c) = message.event else { return false }
            return c.purpose == .reroute && c.status == status && (applied == nil || c.applied == applied)
        }
    }
    guard
        let inProgress = firstIndex(after: deviation, calculation(.inProgress)),
        let succeeded = firstIndex(after: inProgress, calculation(.succeeded, applied: true)),
        let retracted = firstIndex(after: succeeded, { if case .instructionRetracted = $0.event { true } else { false } }),
        let reroute = firstIndex(after: retracted, { if case .route(let route) = $0.event { route.reason == .reroute } else { false } })
    else {
        Issue.record("\(sourceLabel): missing reroute events after the deviation; saw \(messages[deviation...].map(name).filter { $0 != "trip_state" })")
        return
    }
    #expect(event(retracted)?.routeId == initialRouteId, "retraction belongs to the old route")
    let newRouteId = event(reroute)?.routeId
    #expect(newRouteId != nil && newRouteId != initialRouteId)
    if case .routeCalculation(let c) = event(succeeded)?.event { #expect(c.newRouteId == newRouteId) }
    guard let arrived = firstIndex(after: reroute, { if case .arrived = $0.event { true } else { false } }) else {
        Issue.record("\(sourceLabel): never arrived; last events \(messages.suffix(8).map(name))")
        return
    }
    let complete = firstIndex(after: arrived, { if case .tripState(let state) = $0.event { state.state == "complete" } else { false } })
    #expect(complete != nil, "\(sourceLabel): no complete trip_state after arrived")
    // Sequence numbers increase; a gap can only be a replaced trip_state (a client that read slowly).
    let seqs = messages.indices.compactMap { event($0)?.seq }
    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 > $0 }, "\(sourceLabel): seq not increasing")
}
