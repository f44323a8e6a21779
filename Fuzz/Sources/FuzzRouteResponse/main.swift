import FuzzDriver
import Foundation
import NavigationCore
import RouteAdapters

let parsers = [OSRMResponseParser(polylinePrecision: 5), OSRMResponseParser(polylinePrecision: 6)]

/// A routing server's answer through the OSRM-family parser (OSRM, Valhalla's OSRM output, GraphHopper's
/// navigate endpoint). A parsed route must hold coordinates on the globe and non-negative finite distances, and
/// the controller either takes it or says why; a crash is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouteResponse(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let body = Data(inputBytes(data, count))
    for parser in parsers {
        guard let routes = try? parser.parseRoutes(from: body) else { continue }
        for route in routes {
            for point in route.geometry {
                precondition(abs(point.latitude) <= 90 && abs(point.longitude) <= 180, "off the globe: \(point)")
            }
            precondition(route.distance.isFinite && route.distance >= 0, "distance \(route.distance)")
            for step in route.steps {
                precondition(step.distance.isFinite && step.distance >= 0, "step distance \(step.distance)")
            }
            _ = try? NavigationController(route: route)
        }
    }
    return 0
}


// SwiftPM links this file's top-level code as main; it hands the input function to libFuzzer.
runFuzzer { fuzzRouteResponse($0, $1) }
