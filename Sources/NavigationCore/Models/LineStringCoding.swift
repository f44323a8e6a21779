/// Encodes a list of coordinates the GeoJSON way, `[[lon, lat], ...]`, as route geometries are written.
public struct LineStringCoding: Codable, Hashable, Sendable {
    public var coordinates: [GeographicCoordinate]

    public init(_ coordinates: [GeographicCoordinate]) { self.coordinates = coordinates }

    public init(from decoder: any Decoder) throws {
        var outer = try decoder.unkeyedContainer()
        var result: [GeographicCoordinate] = []
        result.reserveCapacity(outer.count ?? 0)
        while !outer.isAtEnd {
            var pair = try outer.nestedUnkeyedContainer()
            let lon = try pair.decode(Double.self)
            let lat = try pair.decode(Double.self)
            result.append(GeographicCoordinate(latitude: lat, longitude: lon))
        }
        coordinates = result
    }

    public func encode(to encoder: any Encoder) throws {
        var outer = encoder.unkeyedContainer()
        for c in coordinates {
            var pair = outer.nestedUnkeyedContainer()
            try pair.encode(c.longitude)
            try pair.encode(c.latitude)
        }
    }
}
