import FuzzDriver
import Foundation
import NavigationCore
import TrackFormats

/// A track file through every reader navctl and navd use: GPX or JSON points, recorded fixes (JSON Lines),
/// a gpsd JSON log. Whatever they return must be on the globe.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrack(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Data(inputBytes(data, count))
    var coordinates: [GeographicCoordinate] = []
    if let points = try? TrackReader.read(bytes) { coordinates += points.map(\.coordinate) }
    if let fixes = try? LocationTrackReader.read(bytes) { coordinates += fixes.map(\.coordinate) }
    if let readings = try? GpsdJSONLogReader.read(bytes) { coordinates += readings.compactMap(\.fix?.location.coordinate) }
    for point in coordinates {
        precondition(abs(point.latitude) <= 90 && abs(point.longitude) <= 180, "off the globe: \(point)")
    }
    return 0
}


// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzTrack($0, $1) }
