/// Google's encoded polyline algorithm, at any precision (5 and 6 are the ones engines use).
///
/// OSRM and Valhalla's OSRM format use precision 6 (`polyline6`); Google and older OSRM use 5.
public enum Polyline {
    public enum DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A byte outside the alphabet (`?` through `~`) at the given offset.
        case invalidCharacter(offset: Int)
        /// The string ends in the middle of a value, or after a latitude without its longitude.
        case truncated
        /// A value longer than any real coordinate can be.
        case valueTooLarge(offset: Int)

        public var description: String {
            switch self {
            case .invalidCharacter(let offset): "invalid character at offset \(offset) in the encoded polyline"
            case .truncated: "the encoded polyline ends in the middle of a coordinate"
            case .valueTooLarge(let offset): "a value at offset \(offset) in the encoded polyline is too large to be a coordinate"
            }
        }
    }

    /// Encodes coordinates with `precision` decimal digits.
    public static func encode(_ coordinates: [GeographicCoordinate], precision: Int = 6) -> String {
        let factor = power10(precision)
        var output: [UInt8] = []
        output.reserveCapacity(coordinates.count * 8)
        var previousLat: Int64 = 0
        var previousLon: Int64 = 0
        for c in coordinates {
            // Held to ±2^53 so that a coordinate off the globe cannot trap (callers check coordinates first).
            let lat = Int64(CheckedNumber.clampedWhole(c.latitude * factor))
            let lon = Int64(CheckedNumber.clampedWhole(c.longitude * factor))
            appendValue(lat - previousLat, to: &output)
            appendValue(lon - previousLon, to: &output)
            previousLat = lat
            previousLon = lon
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes an encoded polyline. Never traps: malformed input throws ``DecodingError``.
    /// The coordinates are not range-checked here; callers decide what out-of-world points mean.
    public static func decode(_ encoded: String, precision: Int = 6) throws(DecodingError) -> [GeographicCoordinate] {
        let factor = power10(precision)
        var result: [GeographicCoordinate] = []
        var lat: Int64 = 0
        var lon: Int64 = 0
        var utf8 = Array(encoded.utf8)[...]
        var offset = 0
        result.reserveCapacity(utf8.count / 8)
        while !utf8.isEmpty {
            let dLat = try nextValue(&utf8, &offset)
            guard !utf8.isEmpty else { throw .truncated }
            let dLon = try nextValue(&utf8, &offset)
            // Deltas are bounded by nextValue, so these sums cannot overflow for any realistic count of points;
            // wrapping arithmetic keeps hostile input from trapping regardless.
            lat = lat &+ dLat
            lon = lon &+ dLon
            result.append(GeographicCoordinate(latitude: Double(lat) / factor, longitude: Double(lon) / factor))
        }
        return result
    }

    private static func nextValue(_ bytes: inout ArraySlice<UInt8>, _ offset: inout Int) throws(DecodingError) -> Int64 {
        var result: Int64 = 0
        var shift: Int64 = 0
        while true {
            guard let byte = bytes.popFirst() else { throw .truncated }
            guard byte >= 63, byte <= 126 else { throw .invalidCharacter(offset: offset) }
            offset += 1
            let chunk = Int64(byte - 63)
            // 7 chunks carry 35 bits: far more than ±180° at precision 7 needs.
            guard shift <= 30 else { throw .valueTooLarge(offset: offset - 1) }
            result |= (chunk & 0x1f) << shift
            shift += 5
            if chunk < 0x20 { break }
        }
        return (result & 1) != 0 ? ~(result >> 1) : (result >> 1)
    }

    private static func appendValue(_ value: Int64, to output: inout [UInt8]) {
        var v = value < 0 ? ~(value << 1) : (value << 1)
        while v >= 0x20 {
            output.append(UInt8((0x20 | (v & 0x1f)) + 63))
            v >>= 5
        }
        output.append(UInt8(v + 63))
    }

    private static func power10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, exponent) { result *= 10 }
        return result
    }
}
