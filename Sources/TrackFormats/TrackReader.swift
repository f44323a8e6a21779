import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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
        // Foundation's XMLParser traps on some malformed UTF-8 inside a tag (found by fuzzing; FoundationXML in
        // Swift 6.3): check the encoding first. GPX files are UTF-8.
        guard String(validating: data, as: UTF8.self) != nil else {
            let offset = Self.firstInvalidUTF8Offset(data)
            throw .invalidGPX("not UTF-8 text (byte \(offset) is not); GPX files must be UTF-8")
        }
        let delegate = GPXDelegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else {
            throw .invalidGPX(delegate.error ?? parser.parserError.map { "\($0)" } ?? "unreadable XML")
        }
        if let error = delegate.error { throw .invalidGPX(error) }
        // Some XML parsers accept a document that stops inside an element; a cut-off file is not a whole track.
        if delegate.openElements > 0 { throw .invalidGPX("the file ends inside an element (truncated?)") }
        // A file with a track uses it; otherwise its route, otherwise its waypoints.
        for kind in ["trkpt", "rtept", "wpt"] {
            let points = delegate.points.filter { $0.kind == kind }.map(\.point)
            if !points.isEmpty { return points }
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
        String(decoding: data.prefix(40), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
    }
}

/// Collects trkpt / rtept / wpt elements with their `time` child.
private final class GPXDelegate: NSObject, XMLParserDelegate {
    var points: [(kind: String, point: TrackPoint)] = []
    var error: String?
    private var current: (kind: String, point: TrackPoint)?
    private var text = ""
    private var inTime = false
    /// Elements started and not yet ended.
    private(set) var openElements = 0

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        openElements += 1
        let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
        switch name {
        case "trkpt", "rtept", "wpt":
            guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) else {
                error = "<\(name)> at line \(parser.lineNumber) needs numeric lat and lon attributes"
                parser.abortParsing()
                return
            }
            let coordinate = GeographicCoordinate(latitude: lat, longitude: lon)
            guard coordinate.isValid else {
                error = "<\(name)> at line \(parser.lineNumber) is outside the world"
                parser.abortParsing()
                return
            }
            current = (name, TrackPoint(coordinate: coordinate))
        case "time" where current != nil:
            inTime = true
            text = ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inTime { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        openElements -= 1
        let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
        switch name {
        case "time" where inTime:
            inTime = false
            current?.point.timestamp = ISO8601Timestamp.parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case "trkpt", "rtept", "wpt":
            if let current { points.append(current) }
            current = nil
        default:
            break
        }
    }
}
