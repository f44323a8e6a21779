import FoundationEssentials
import Glibc

/// Distances and directions on the Earth, modelled as a sphere of the mean radius.
///
/// Spherical formulas are within 0.5% of the ellipsoid, far below GNSS error over the lengths navd works with.
public enum Geodesy {
    /// Mean Earth radius (IUGG), metres.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance between two points, metres (haversine formula).
    public static func distance(_ a: GeographicCoordinate, _ b: GeographicCoordinate) -> Double {
        distance(a, b, cosLatitudes: (cosLatitude(of: a), cosLatitude(of: b)))
    }

    /// ``distance(_:_:)`` with the cosines of the two latitudes (``cosLatitude(of:)``) worked out by the caller: a
    /// walk along a polyline has each point's from the segment before (a cosine a segment, the same value).
    public static func distance(_ a: GeographicCoordinate, _ b: GeographicCoordinate, cosLatitudes: (a: Double, b: Double)) -> Double {
        let lat1 = radians(a.latitude), lat2 = radians(b.latitude)
        let dLat = lat2 - lat1
        let dLon = radians(b.longitude - a.longitude)
        let h = sin(dLat / 2) * sin(dLat / 2) + cosLatitudes.a * cosLatitudes.b * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// The cosine of `point`'s latitude, as ``distance(_:_:cosLatitudes:)`` takes it.
    public static func cosLatitude(of point: GeographicCoordinate) -> Double { cos(radians(point.latitude)) }

    /// Initial bearing from `a` towards `b`, degrees clockwise from true north in 0..<360.
    public static func bearing(from a: GeographicCoordinate, to b: GeographicCoordinate) -> Double {
        let lat1 = radians(a.latitude), lat2 = radians(b.latitude)
        let dLon = radians(b.longitude - a.longitude)
        let y = sin(dLon) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
        return normalizedDegrees(degrees(atan2(y, x)))
    }

    /// The point reached by travelling `distance` metres from `origin` on the initial `bearing` (degrees).
    public static func destination(from origin: GeographicCoordinate, distance: Double, bearing: Double) -> GeographicCoordinate {
        let delta = distance / earthRadius
        let theta = radians(bearing)
        let lat1 = radians(origin.latitude), lon1 = radians(origin.longitude)
        let lat2 = asin(sin(lat1) * cos(delta) + cos(lat1) * sin(delta) * cos(theta))
        let lon2 = lon1 + atan2(sin(theta) * sin(delta) * cos(lat1), cos(delta) - sin(lat1) * sin(lat2))
        var longitude = degrees(lon2)
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return GeographicCoordinate(latitude: degrees(lat2), longitude: longitude)
    }

    /// Length of a polyline, metres.
    public static func length(of line: [GeographicCoordinate]) -> Double {
        guard line.count > 1 else { return 0 }
        var total = 0.0
        var previousCos = cosLatitude(of: line[0])
        for i in 1..<line.count {
            let cosine = cosLatitude(of: line[i])
            total += distance(line[i - 1], line[i], cosLatitudes: (previousCos, cosine))
            previousCos = cosine
        }
        return total
    }

    /// Smallest angle between two bearings, degrees in 0...180.
    public static func angleBetween(_ a: Double, _ b: Double) -> Double {
        let d = abs(normalizedDegrees(a) - normalizedDegrees(b))
        return d > 180 ? 360 - d : d
    }

    /// The closest point to `point` on the segment from `a` to `b`.
    ///
    /// Uses a local equirectangular projection around `point`: exact enough for segments up to tens of
    /// kilometres, and cheap (no inverse trigonometry).
    public static func closestPoint(on a: GeographicCoordinate, _ b: GeographicCoordinate, to point: GeographicCoordinate)
        -> SegmentProjection
    {
        closestPoint(on: a, b, to: point, metersPerDegreeLongitude: metersPerDegreeLongitude(at: point.latitude))
    }

    /// Metres per degree of longitude at `latitude` (degrees), on the sphere of ``earthRadius``.
    public static func metersPerDegreeLongitude(at latitude: Double) -> Double {
        earthRadius * .pi / 180 * cos(radians(latitude))
    }

    /// ``closestPoint(on:_:to:)`` with `point`'s ``metersPerDegreeLongitude(at:)`` worked out by the caller, once
    /// for the many segments of a window (a cosine each, the same value every time).
    public static func closestPoint(
        on a: GeographicCoordinate, _ b: GeographicCoordinate, to point: GeographicCoordinate, metersPerDegreeLongitude metersPerDegreeLon: Double
    ) -> SegmentProjection {
        let metersPerDegreeLat = earthRadius * .pi / 180
        let ax = (a.longitude - point.longitude) * metersPerDegreeLon, ay = (a.latitude - point.latitude) * metersPerDegreeLat
        let bx = (b.longitude - point.longitude) * metersPerDegreeLon, by = (b.latitude - point.latitude) * metersPerDegreeLat
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(ax * dx + ay * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let px = ax + t * dx, py = ay + t * dy
        let snapped = GeographicCoordinate(
            latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude))
        return SegmentProjection(coordinate: snapped, fraction: t, distance: (px * px + py * py).squareRoot())
    }

    /// Normalizes an angle to 0..<360 degrees.
    public static func normalizedDegrees(_ value: Double) -> Double {
        let r = value.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }

    public static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
    public static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
}

/// Where a point projects onto a segment.
public struct SegmentProjection: Hashable, Sendable {
    /// The closest point on the segment.
    public var coordinate: GeographicCoordinate
    /// Position along the segment: 0 at its start, 1 at its end.
    public var fraction: Double
    /// Distance from the point to the segment, metres.
    public var distance: Double
}
