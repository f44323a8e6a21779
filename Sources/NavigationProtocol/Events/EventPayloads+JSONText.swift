import NavigationCore

/// The payloads of the events a route brings, written by hand: `route`, `route_calculation`, `instruction` and
/// `instruction_retracted` come together after every calculation (and instructions at every step), and through the
/// generic `Encodable` containers they were half of a route's event text on the loop; `route_alternatives` and
/// `faster_route` carry whole routes' geometry. The same bytes as
/// ``JSONTextEncoder`` writes for them (EventTextTests compares the two on random payloads). Members in ascending
/// key order.
protocol EventPayloadWritable {
    /// The payload's members, for a caller that has opened the object (the event line puts its envelope first).
    /// Returns false, having written nothing, when only the generic path writes this payload as it is.
    func writeMembers(into object: inout JSONObjectWriter) -> Bool
}

extension RouteEvent: EventPayloadWritable {
    func writeMembers(into object: inout JSONObjectWriter) -> Bool {
        object.member("distance", distance)
        object.member("duration", duration)
        object.member("reason", reason.rawValue)
        if let routeText { object.member("route", routeText) } else { object.member("route", route) }
        object.member("session", session)
        object.member("steps", steps)
        return true
    }
}

extension RouteCalculationEvent: EventPayloadWritable {
    func writeMembers(into object: inout JSONObjectWriter) -> Bool {
        object.member("applied", applied)
        object.member("attempt", attempt)
        object.member("attempts", attempts)
        object.member("engine", engine)
        object.member("error", error)
        object.member("failedEngines", failedEngines)
        object.member("fallbackTo", fallbackTo)
        object.member("newRouteId", newRouteId)
        object.member("purpose", purpose.rawValue)
        object.member("reason", reason)
        object.member("retryIn", retryIn)
        object.member("session", session)
        object.member("status", status.rawValue)
        object.member("waiting", waiting?.rawValue)
        return true
    }
}

extension InstructionEvent: EventPayloadWritable {
    func writeMembers(into object: inout JSONObjectWriter) -> Bool {
        // Both set is not an event navd makes; the generic path says what it writes for it.
        if visual != nil, spoken != nil { return false }
        if let visual { object.member("instruction", visual) }
        if let spoken { object.member("instruction", spoken) }
        object.member("kind", kind.rawValue)
        object.member("stepIndex", stepIndex)
        object.member("utteranceId", utteranceId)
        return true
    }
}

extension InstructionRetractedEvent: EventPayloadWritable {
    func writeMembers(into object: inout JSONObjectWriter) -> Bool {
        object.member("instructions", instructions)
        object.member("reason", reason.rawValue)
        return true
    }
}

extension InstructionRetractedEvent.Retracted: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("kind", kind.rawValue)
            object.member("stepIndex", stepIndex)
            object.member("utteranceId", utteranceId)
        }
    }
}

extension EngineIdentity: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("name", name)
            object.member("server", server)
        }
    }
}

extension CalculationError: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("code", code)
            object.member("message", message)
            object.member("retryable", retryable)
        }
    }
}

extension RouteCalculationEvent.FailedEngine: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("error", error)
            object.member("name", name)
            object.member("server", server)
        }
    }
}

/// A route offered to choose from: its geometry is most of a `route_alternatives` or `faster_route` line (three
/// 1000 km routes took the loop about 42 ms through the generic containers).
extension RouteOption: JSONTextWritable {
    /// About the size of its text, bytes, for room made at once rather than copied as it grows (a point such as
    /// `[24.938412,60.169521],` is 22 bytes; 40 leaves room to spare).
    var estimatedTextBytes: Int { 256 + geometry.coordinates.count * 40 }

    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("distance", distance)
            object.member("distanceDelta", distanceDelta)
            object.member("duration", duration)
            object.member("durationDelta", durationDelta)
            object.member("geometry", geometry)
            object.member("index", index)
            object.member("mainRoads", mainRoads)
            object.member("motorways", motorways)
            object.member("tolls", tolls)
        }
    }
}

extension RouteAlternativesEvent: EventPayloadWritable {
    func writeMembers(into object: inout JSONObjectWriter) -> Bool {
        object.member("chooseBefore", chooseBefore)
        object.member("chosen", chosen)
        object.member("routes", routes)
        object.member("session", session)
        object.member("status", status.rawValue)
        return true
    }
}

extension FasterRouteEvent: EventPayloadWritable {
    func writeMembers(into object: inout JSONObjectWriter) -> Bool {
        object.member("chooseBefore", chooseBefore)
        object.member("route", route)
        object.member("saving", saving)
        object.member("savingFraction", savingFraction)
        object.member("session", session)
        object.member("status", status.rawValue)
        return true
    }
}
