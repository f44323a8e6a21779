/// A route's JSON text written by hand (``JSONTextWritable``): byte for byte what ``JSONTextEncoder`` writes through
/// the types' `encode(to:)` (RouteTextTests compares the two), without the `Encodable` machinery. A `route` event
/// carries the whole route; through the generic containers its text was a quarter of the navigation loop's time
/// per `navigate` (`perf`, docs/performance.md), and a 1000 km route's took tens of milliseconds.
extension Route: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("boundingBox", boundingBox)
            object.member("distance", distance)
            object.member("duration", duration)
            object.member("geometry", LineStringCoding(geometry))
            object.member("notices", notices.isEmpty ? nil : notices)
            object.member("steps", steps)
            object.member("waypoints", waypoints)
        }
    }
}

extension Route {
    /// About the size of the route's JSON text, bytes, for room made at once rather than copied as the text grows:
    /// a real answer's route takes about 170 bytes per point of its geometry (the point, the step's point again,
    /// the segment's annotation).
    public var estimatedTextBytes: Int { geometry.count * 192 + steps.count * 512 }
}

extension RouteStep: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("annotations", annotations)
            object.member("destinations", destinations)
            object.member("distance", distance)
            object.member("drivingSide", drivingSide?.rawValue)
            object.member("duration", duration)
            object.member("exits", exits)
            object.member("features", features.isEmpty ? nil : features)
            object.member("geometry", LineStringCoding(geometry))
            object.member("incidents", incidents)
            object.member("instruction", instruction)
            object.member("legIndex", legIndex)
            object.member("maneuver", maneuver)
            // Always present (null when unnamed), as `encode(to:)` has it.
            object.memberOrNull("roadName", roadName)
            object.member("roadRef", roadRef)
            object.member("roundaboutExitNumber", roundaboutExitNumber)
            object.member("spokenInstructions", spokenInstructions)
            object.member("visualInstructions", visualInstructions)
        }
    }
}

extension Maneuver: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("bearingAfter", bearingAfter)
            object.member("bearingBefore", bearingBefore)
            object.member("location", location)
            object.member("modifier", modifier?.name)
            object.member("type", type.name)
        }
    }
}

extension GeographicCoordinate: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("lat", latitude)
            object.member("lon", longitude)
        }
    }
}

extension BoundingBox: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("northEast", northEast)
            object.member("southWest", southWest)
        }
    }
}

extension Waypoint: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("kind", kind.rawValue)
            object.member("lat", coordinate.latitude)
            object.member("lon", coordinate.longitude)
            object.member("properties", object: properties.isEmpty ? nil : properties)
            object.member("snapDistance", snapDistance)
        }
    }
}

extension Incident: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("description", description)
            object.member("geometryIndexEnd", geometryIndexEnd)
            object.member("geometryIndexStart", geometryIndexStart)
            object.member("id", id)
            object.member("impact", impact)
            object.member("properties", object: properties)
            object.member("type", type)
        }
    }
}

extension RoadFeature: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("classes", classes)
            object.member("country", country)
            object.member("location", location)
            object.member("restStop", restStop)
            object.member("tollCollection", tollCollection)
            object.member("tunnelName", tunnelName)
        }
    }
}

extension RoadFeature.RestStop: JSONTextWritable {
    public func writeJSON(into out: inout JSONOutput) {
        JSONObjectWriter.write(into: &out) { object in
            object.member("name", name)
            object.member("type", type)
        }
    }
}

extension LineStringCoding: JSONTextWritable {
    /// `[[lon,lat],...]`, GeoJSON's order, with no container per point.
    public func writeJSON(into out: inout JSONOutput) {
        out.append(UInt8(ascii: "["))
        for (index, coordinate) in coordinates.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            JSONText.appendNumber(coordinate.longitude, into: &out)
            out.append(UInt8(ascii: ","))
            JSONText.appendNumber(coordinate.latitude, into: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
    }
}
