/// The `trip_state` payload written by hand: the same bytes as ``JSONTextEncoder`` writes for it (TripStateTextTests
/// compares the two on thousands of records), for the line navd writes on every fix. Members in ascending key order.
extension TripStateRecord: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { writeMembers(into: &$0) }
    }

    /// The record's members, for a caller that has opened the object (the event line puts its envelope first).
    public func writeMembers(into object: inout JSONObjectWriter) {
        object.member("approach", approach)
        object.member("arrival", arrival)
        object.member("congestion", congestion)
        object.member("deviation", deviation)
        object.member("distanceTravelled", distanceTravelled)
        object.member("freeDrive", freeDrive)
        object.member("predicted", predicted)
        object.member("progress", progress)
        object.member("rawLocation", rawLocation)
        object.member("remainingSteps", remainingSteps)
        object.member("remainingWaypoints", remainingWaypoints)
        object.member("roadAhead", roadAhead)
        object.member("roadName", roadName)
        object.member("snappedLocation", snappedLocation)
        object.member("speedAlert", speedAlert)
        object.member("speedLimit", speedLimit)
        object.member("spokenInstruction", spokenInstruction)
        object.member("state", state)
        object.member("stepIndex", stepIndex)
        object.member("time", time)
        object.member("visualInstruction", visualInstruction)
    }
}

extension TripStateRecord.Point: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("course", course)
            object.member("lat", lat)
            object.member("lon", lon)
            object.member("speed", speed)
        }
    }
}

extension TripStateRecord.Deviation: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("distance", distance)
            object.member("kind", kind)
        }
    }
}

extension TripStateRecord.Approach: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("bearing", bearing)
            object.member("distance", distance)
            object.member("lat", lat)
            object.member("lon", lon)
            object.member("originSnapDistance", originSnapDistance)
            object.member("roadName", roadName)
        }
    }
}

extension TripStateRecord.SpeedLimit: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("unit", unit)
            object.member("value", value)
        }
    }
}

extension TripStateRecord.FreeDrive: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("detail", detail)
            object.member("status", status)
        }
    }
}

extension TripStateRecord.Arrival: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("durationRemaining", durationRemaining)
            object.member("pace", pace)
            object.member("time", time)
            object.member("waypoints", waypoints)
        }
    }
}

extension TripStateRecord.Arrival.Waypoint: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("durationRemaining", durationRemaining)
            object.member("index", index)
            object.member("time", time)
        }
    }
}

extension TripProgress: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("distanceRemaining", distanceRemaining)
            object.member("distanceToNextManeuver", distanceToNextManeuver)
            object.member("durationRemaining", durationRemaining)
        }
    }
}

extension VisualInstruction: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("primary", primary)
            object.member("secondary", secondary)
            object.member("sub", sub)
            object.member("triggerDistanceBeforeManeuver", triggerDistanceBeforeManeuver)
        }
    }
}

extension VisualInstructionContent: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("exitNumbers", exitNumbers)
            object.member("lanes", lanes)
            object.member("maneuverModifier", maneuverModifier?.name)
            object.member("maneuverType", maneuverType?.name)
            object.member("roundaboutExitDegrees", roundaboutExitDegrees)
            object.member("text", text)
        }
    }
}

extension LaneInfo: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("active", active)
            object.member("activeDirection", activeDirection)
            object.member("directions", directions)
        }
    }
}

extension SpokenInstruction: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("ssml", ssml)
            object.member("text", text)
            object.member("triggerDistanceBeforeManeuver", triggerDistanceBeforeManeuver)
            object.member("utteranceId", utteranceId)
        }
    }
}

extension SpeedAlert: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("level", level.rawValue)
            object.member("limit", limit)
            object.member("lowerLimitAhead", lowerLimitAhead)
            object.member("speed", speed)
            object.member("unit", unit)
        }
    }
}

extension SpeedAlert.LimitAhead: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("distance", distance)
            object.member("limit", limit)
            object.member("unit", unit)
        }
    }
}

extension RoadObjectAhead: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("detail", detail)
            object.member("distance", distance)
            object.member("kind", kind)
            object.member("length", length)
            object.member("name", name)
        }
    }
}
