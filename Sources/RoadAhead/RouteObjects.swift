import NavigationCore

/// The road objects of one route with where they are along it (metres, as ``RouteIndex`` measures), built once per
/// route from the steps' ``RoadFeature``s and incidents: stretches (tunnels, toll roads, ferries, motorways) and
/// points (toll booths and gantries, rest and service areas, motorway entries and exits, border crossings).
public struct RouteObjects: Sendable {
    public struct Object: Hashable, Sendable {
        /// ``RoadObjectAhead/kind``.
        public var kind: String
        /// Metres along the route where it begins and ends (equal for a point).
        public var start: Double
        public var end: Double
        public var isStretch: Bool
        public var name: String?
        public var detail: String?
    }

    /// In order of `start`.
    public let objects: [Object]
    /// The tunnels, in order: what dead reckoning through an outage goes by.
    public let tunnels: [Object]

    public init(route: Route, index: RouteIndex) {
        var objects: [Object] = []
        let stretchKinds: [(featureClass: String, kind: String)] = [("tunnel", "tunnel"), ("toll", "toll_road"), ("ferry", "ferry"), ("motorway", "motorway")]
        var open: [String: (start: Double, name: String?)] = [:]
        var country: String?
        func close(_ kind: String, at along: Double) {
            guard let run = open.removeValue(forKey: kind) else { return }
            if along > run.start { objects.append(Object(kind: kind, start: run.start, end: along, isStretch: true, name: run.name)) }
            if kind == "motorway", along < index.totalDistance - 1 {
                objects.append(Object(kind: "motorway_exit", start: along, end: along, isStretch: false))
            }
        }
        for (s, step) in route.steps.enumerated() where s < index.stepStart.count {
            for feature in step.features {
                let along = Self.along(feature.location, in: step, from: index.stepStart[s])
                for (featureClass, kind) in stretchKinds {
                    let on = feature.classes.contains(featureClass)
                    if on, open[kind] == nil {
                        open[kind] = (along, featureClass == "tunnel" ? feature.tunnelName : nil)
                        if kind == "motorway", along > 1 { objects.append(Object(kind: "motorway_entry", start: along, end: along, isStretch: false)) }
                    } else if !on {
                        close(kind, at: along)
                    }
                }
                if let toll = feature.tollCollection, ["toll_booth", "toll_gantry"].contains(toll) {
                    objects.append(Object(kind: toll, start: along, end: along, isStretch: false))
                }
                if let stop = feature.restStop, ["rest_area", "service_area"].contains(stop.type) {
                    objects.append(Object(kind: stop.type, start: along, end: along, isStretch: false, name: stop.name))
                }
                if let here = feature.country {
                    if let before = country, before != here {
                        objects.append(Object(kind: "border_crossing", start: along, end: along, isStretch: false, detail: "\(before) → \(here)"))
                    }
                    country = here
                }
            }
            for incident in step.incidents {
                let first = max(0, min(incident.geometryIndexStart, step.geometry.count - 1))
                let last = max(first, min(incident.geometryIndexEnd, step.geometry.count - 1))
                let start = index.stepStart[s] + Geodesy.length(of: Array(step.geometry[...first]))
                let end = index.stepStart[s] + Geodesy.length(of: Array(step.geometry[...last]))
                objects.append(Object(kind: "incident", start: start, end: end, isStretch: end > start, name: incident.description, detail: incident.type))
            }
        }
        for (_, kind) in stretchKinds { close(kind, at: index.totalDistance) }
        self.objects = objects.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        tunnels = self.objects.filter { $0.kind == "tunnel" }
    }

    /// Metres along the route of a feature's location: the closest point of its step's geometry (features sit on
    /// the step's points), measured from the step's start.
    static func along(_ location: GeographicCoordinate, in step: RouteStep, from stepStart: Double) -> Double {
        var best = (distance: Double.infinity, along: 0.0)
        var along = 0.0
        for (i, point) in step.geometry.enumerated() {
            if i > 0 { along += Geodesy.distance(step.geometry[i - 1], point) }
            let distance = Geodesy.distance(point, location)
            if distance < best.distance { best = (distance, along) }
        }
        return stepStart + best.along
    }

    /// What lies ahead of `along` metres within `horizon` metres, nearest first, at most `limit`: the stretches the
    /// vehicle is in (distance 0, the length still ahead) and those and the points that begin within the horizon.
    public func ahead(of along: Double, within horizon: Double, limit: Int = 10) -> [RoadObjectAhead] {
        var result: [RoadObjectAhead] = []
        for object in objects {
            if object.start > along + horizon { break }
            if object.isStretch ? object.end <= along : object.start < along { continue }
            let distance = max(0, object.start - along)
            let length = object.isStretch ? object.end - max(object.start, along) : nil
            result.append(
                RoadObjectAhead(
                    kind: object.kind, distance: Self.rounded(distance), length: length.map(Self.rounded), name: object.name, detail: object.detail))
        }
        return Array(result.sorted { $0.distance < $1.distance }.prefix(max(0, limit)))
    }

    /// The tunnel the vehicle is in at `along`, or that begins within `within` metres ahead of it.
    public func tunnel(at along: Double, orWithin within: Double = 0) -> Object? {
        tunnels.first { $0.end > along && $0.start <= along + within }
    }

    /// Decimetres are plenty for a distance shown to a driver.
    static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
