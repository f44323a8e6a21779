import FuzzDriver
import NMEA
import NavigationCore

/// Every reading the assembler emits must be a fix navd can use: coordinates on the globe, finite
/// non-negative accuracy, speed and course when present. Anything else crashes (a finding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEA(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(data, count)
    var assembler = NMEAEpochAssembler()
    // Two chunkings of the same stream: whole, then split at the middle (a read boundary inside a sentence).
    var readings = assembler.append(bytes)
    readings += assembler.flush()
    var split = NMEAEpochAssembler()
    readings += split.append(bytes[..<(count / 2)])
    readings += split.append(bytes[(count / 2)...])
    readings += split.finish()
    for reading in readings {
        // Every time a reading carries can be written (an exponent in a time field trapped here).
        switch reading {
        case .fix(let fix): _ = ISO8601Timestamp.format(fix.location.timestamp)
        case .noFix(_, let time): _ = time.map(ISO8601Timestamp.format)
        }
        guard case .fix(let fix) = reading else { continue }
        let location = fix.location
        // Numbers inside their physical ranges (NMEAFieldRules): an HDOP of 1e300 used to become a fix.
        if let hdop = fix.quality.hdop { precondition(PhysicalRange.hdop.contains(hdop), "hdop \(hdop)") }
        if let altitude = fix.quality.altitude { precondition(PhysicalRange.altitude.contains(altitude), "altitude \(altitude)") }
        precondition(location.horizontalAccuracy <= 1_000_000, "accuracy \(location.horizontalAccuracy)")
        if let speed = location.speed?.metersPerSecond { precondition(speed <= PhysicalRange.speed.upperBound * 1.001, "speed \(speed)") }
        precondition(abs(location.coordinate.latitude) <= 90 && abs(location.coordinate.longitude) <= 180, "off the globe: \(location)")
        precondition(location.horizontalAccuracy.isFinite && location.horizontalAccuracy >= 0, "accuracy \(location.horizontalAccuracy)")
        if let speed = location.speed?.metersPerSecond { precondition(speed.isFinite && speed >= 0, "speed \(speed)") }
        if let course = location.course { precondition(course.degrees.isFinite && (0..<360).contains(course.degrees), "course \(course)") }
    }
    return 0
}


// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzNMEA($0, $1) }
