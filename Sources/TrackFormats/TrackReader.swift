import FoundationEssentials
import Glibc
import NavigationCore

/// One point of a recorded track.
public struct TrackPoint: Hashable, Sendable {
    public var coordinate: GeographicCoordinate
    /// When the point was recorded, if the file says.
    public var timestamp: Date?

    public init(coordinate: GeographicCoordinate, timestamp: Date? = nil) {
        self.coordinate = coordinate
        self.timestamp = timestamp
    }
}

/// Why a track file could not be read.
public enum TrackReadError: Error, Hashable, Sendable, CustomStringConvertible {
    case unrecognizedFormat(String)
    case invalidGPX(String)
    case invalidJSON(String)
    case empty

    public var description: String {
        switch self {
        case .unrecognizedFormat(let detail): "not a track file (expected GPX or JSON): \(detail)"
        case .invalidGPX(let detail): "invalid GPX: \(detail)"
        case .invalidJSON(let detail): "invalid JSON track: \(detail)"
        case .empty: "the track has no points"
        }
    }
}

/// Reads tracks from GPX (track, route or waypoint points) or JSON: a list of `[lon, lat]` pairs, a list
/// of `{"lat":..,"lon":..}` objects (with an optional ISO 8601 `time`), or a GeoJSON LineString.
public enum TrackReader {
    public static func read(_ data: Data) throws(TrackReadError) -> [TrackPoint] {
        guard let first = data.first(where: { $0 > 32 }) else { throw .empty }
        let points: [TrackPoint]
        switch first {
        case UInt8(ascii: "<"): points = try readGPX(data)
        case UInt8(ascii: "["), UInt8(ascii: "{"): points = try readJSON(data)
        default: throw .unrecognizedFormat(textPrefix(data))
        }
        guard !points.isEmpty else { throw .empty }
        return points
    }

    static func readJSON(_ data: Data) throws(TrackReadError) -> [TrackPoint] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .invalidJSON("\(error)")
        }
        var items: [JSONValue]
        switch value {
        case .array(let array): items = array
        case .object(let object):
            guard let coordinates = object["coordinates"]?.arrayValue ?? object["geometry"]?["coordinates"]?.arrayValue else {
                throw .invalidJSON("an object must be a GeoJSON LineString with 'coordinates'")
            }
            items = coordinates
        default: throw .invalidJSON("expected a list of coordinates")
        }
        var points: [TrackPoint] = []
        for (index, item) in items.enumerated() {
            switch item {
            case .array(let pair) where pair.count >= 2:
                guard let lon = pair[0].doubleValue, let lat = pair[1].doubleValue else {
                    throw .invalidJSON("point \(index): [lon, lat] must be numbers")
                }
                points.append(TrackPoint(coordinate: GeographicCoordinate(latitude: lat, longitude: lon)))
            case .object(let object):
                guard let lat = object["lat"]?.doubleValue, let lon = object["lon"]?.doubleValue else {
                    throw .invalidJSON("point \(index): needs numeric 'lat' and 'lon'")
                }
                let time = (object["time"] ?? object["timestamp"])?.stringValue.flatMap(ISO8601Timestamp.parse)
                points.append(TrackPoint(coordinate: GeographicCoordinate(latitude: lat, longitude: lon), timestamp: time))
            default:
                throw .invalidJSON("point \(index): expected [lon, lat] or {\"lat\":..,\"lon\":..}")
            }
            guard points[points.count - 1].coordinate.isValid else {
                throw .invalidJSON("point \(index) is outside the world")
            }
        }
        return points
    }

    static func readGPX(_ data: Data) throws(TrackReadError) -> [TrackPoint] {
        // GPX files are UTF-8; a malformed sequence is named by its offset.
        guard String(validating: data, as: UTF8.self) != nil else {
            throw .invalidGPX("not UTF-8 text (byte \(Self.firstInvalidUTF8Offset(data)) is not); GPX files must be UTF-8")
        }
        var points: [(kind: String, point: TrackPoint)] = []
        var current: (kind: String, point: TrackPoint)?
        var timeText: String?
        var scanner = XMLScanner(Array(data))
        do throws(XMLScanner.Failure) {
            try scanner.scan { (event, offset) throws(XMLScanner.Failure) in
                switch event {
                case .start(let name, let attributes) where ["trkpt", "rtept", "wpt"].contains(name):
                    guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) else {
                        throw XMLScanner.Failure(message: "<\(name)> needs numeric lat and lon attributes", offset: offset)
                    }
                    let coordinate = GeographicCoordinate(latitude: lat, longitude: lon)
                    guard coordinate.isValid else { throw XMLScanner.Failure(message: "<\(name)> is outside the world", offset: offset) }
                    current = (name, TrackPoint(coordinate: coordinate))
                case .start("time", _) where current != nil:
                    timeText = ""
                case .text(let text) where timeText != nil:
                    timeText! += text
                case .end("time") where timeText != nil:
                    current?.point.timestamp = ISO8601Timestamp.parse(timeText!.trimmingWhitespace)
                    timeText = nil
                case .end(let name) where ["trkpt", "rtept", "wpt"].contains(name):
                    if let point = current { points.append(point) }
                    current = nil
                default:
                    break
                }
            }
        } catch {
            throw .invalidGPX("\(error.message) (line \(error.line))")
        }
        // A file with a track uses it; otherwise its route, otherwise its waypoints.
        for kind in ["trkpt", "rtept", "wpt"] {
            let found = points.filter { $0.kind == kind }.map(\.point)
            if !found.isEmpty { return found }
        }
        return []
    }

    /// Offset of the first byte that starts a malformed UTF-8 sequence.
    static func firstInvalidUTF8Offset(_ data: Data) -> Int {
        var offset = 0
        var iterator = data.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }

    static func textPrefix(_ data: Data) -> String {
        String(decoding: data.prefix(40), as: UTF8.self).replacing("\n", with: " ")
    }
}
