/// A point on the WGS 84 ellipsoid.
///
/// Encoded in JSON as `{"lat": 60.17, "lon": 24.94}`. Inside route geometries the GeoJSON order
/// `[lon, lat]` is used instead (see ``LineStringCoding``).
public struct GeographicCoordinate: Hashable, Sendable, Codable {
    /// Latitude in degrees, positive north, in -90...90.
    public var latitude: Double
    /// Longitude in degrees, positive east, in -180...180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and inside the world's ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    private enum CodingKeys: String, CodingKey {
        case latitude = "lat"
        case longitude = "lon"
    }
}

extension GeographicCoordinate: CustomStringConvertible {
    /// `lat,lon` with 6 decimals (about 0.1 m), the form navctl accepts on its command line.
    public var description: String {
        "\(formatFixed(latitude, decimals: 6)),\(formatFixed(longitude, decimals: 6))"
    }
}

/// A latitude/longitude rectangle that does not cross the antimeridian.
public struct BoundingBox: Hashable, Sendable, Codable {
    /// South-west corner (smallest latitude and longitude), degrees.
    public var southWest: GeographicCoordinate
    /// North-east corner (largest latitude and longitude), degrees.
    public var northEast: GeographicCoordinate

    public init(southWest: GeographicCoordinate, northEast: GeographicCoordinate) {
        self.southWest = southWest
        self.northEast = northEast
    }

    /// The smallest box containing every coordinate, or nil for an empty sequence.
    public init?<S: Sequence>(enclosing coordinates: S) where S.Element == GeographicCoordinate {
        var iterator = coordinates.makeIterator()
        guard let first = iterator.next() else { return nil }
        var minLat = first.latitude, maxLat = first.latitude
        var minLon = first.longitude, maxLon = first.longitude
        while let c = iterator.next() {
            minLat = min(minLat, c.latitude); maxLat = max(maxLat, c.latitude)
            minLon = min(minLon, c.longitude); maxLon = max(maxLon, c.longitude)
        }
        self.init(
            southWest: GeographicCoordinate(latitude: minLat, longitude: minLon),
            northEast: GeographicCoordinate(latitude: maxLat, longitude: maxLon))
    }

    public func contains(_ coordinate: GeographicCoordinate) -> Bool {
        (southWest.latitude...northEast.latitude).contains(coordinate.latitude)
            && (southWest.longitude...northEast.longitude).contains(coordinate.longitude)
    }
}

/// Formats a number with a fixed count of decimals without Foundation's locale-dependent formatters.
func formatFixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    // Past 2^53 a Double has no fraction left to write, and Int64(_:) would trap past 9.2e18.
    guard scaled < 9e15 else { return String(value) }
    let integerPart = Int64(scaled / scale)
    var fraction = String(Int64(scaled) - integerPart * Int64(scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    let sign = value < 0 && scaled != 0 ? "-" : ""
    return decimals == 0 ? "\(sign)\(integerPart)" : "\(sign)\(integerPart).\(fraction)"
}
