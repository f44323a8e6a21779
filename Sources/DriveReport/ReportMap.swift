import FoundationEssentials
import Glibc
import NavigationCore

/// The drive drawn as SVG from the recording alone (no map tiles): every route, the raw and snapped tracks,
/// deviations, reroutes, step advances, stops, start and destination. Coordinates are projected
/// equirectangularly around the drive's middle latitude, north up, metres to pixels at one scale.
struct ReportMap {
    let width = 960.0
    let height = 640.0
    let margin = 28.0
    private let minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    private let cosLat: Double
    /// Pixels per degree of latitude.
    private let scale: Double
    private let offsetX: Double, offsetY: Double

    static let routeColors = ["#2563eb", "#f59e0b", "#10b981", "#8b5cf6", "#ec4899", "#14b8a6"]

    init(_ log: DriveLog) {
        var points = log.routes.flatMap(\.geometry) + log.fixes.map(\.coordinate) + log.states.compactMap(\.snapped)
        if points.isEmpty { points = [GeographicCoordinate(latitude: 0, longitude: 0)] }
        minLat = points.map(\.latitude).min()!
        maxLat = points.map(\.latitude).max()!
        minLon = points.map(\.longitude).min()!
        maxLon = points.map(\.longitude).max()!
        cosLat = cos((minLat + maxLat) / 2 * .pi / 180)
        let spanX = max((maxLon - minLon) * cosLat, 1e-6), spanY = max(maxLat - minLat, 1e-6)
        scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        offsetX = (width - spanX * scale) / 2
        offsetY = (height - spanY * scale) / 2
    }

    func x(_ c: GeographicCoordinate) -> Double { offsetX + (c.longitude - minLon) * cosLat * scale }
    func y(_ c: GeographicCoordinate) -> Double { offsetY + (maxLat - c.latitude) * scale }

    func point(_ c: GeographicCoordinate) -> String { "\(HTML.number(x(c))),\(HTML.number(y(c)))" }

    func polyline(_ line: [GeographicCoordinate], cssClass: String, color: String, title: String) -> String {
        guard line.count > 1 else { return "" }
        return #"<polyline class="\#(cssClass)" stroke="\#(color)" points="\#(line.map(point).joined(separator: " "))"><title>\#(HTML.escape(title))</title></polyline>"#
    }

    func marker(_ c: GeographicCoordinate, cssClass: String, shape: String, title: String) -> String {
        let (px, py) = (HTML.number(x(c)), HTML.number(y(c)))
        let body: String
        switch shape {
        case "diamond": body = #"<rect x="\#(px)" y="\#(py)" width="12" height="12" transform="rotate(45 \#(px) \#(py)) translate(-6 -6)"/>"#
        case "square": body = #"<rect x="\#(HTML.number(x(c) - 6))" y="\#(HTML.number(y(c) - 6))" width="12" height="12"/>"#
        case "small": body = #"<circle cx="\#(px)" cy="\#(py)" r="3.5"/>"#
        default: body = #"<circle cx="\#(px)" cy="\#(py)" r="7"/>"#
        }
        return #"<g class="\#(cssClass)"><title>\#(HTML.escape(title))</title>\#(body)</g>"#
    }

    /// A scale bar of a round number of metres, about a fifth of the width.
    func scaleBar() -> String {
        let metresPerPixel = 111_320.0 / scale
        let target = width / 5 * metresPerPixel
        let magnitude = pow(10, floor(log10(target)))
        let metres = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let pixels = metres / metresPerPixel
        let label = metres >= 1000 ? "\(HTML.number(metres / 1000)) km" : "\(CheckedNumber.clampedWhole(metres, rounding: .towardZero)) m"
        let y0 = height - 14
        return #"<g class="scale"><line x1="16" y1="\#(HTML.number(y0))" x2="\#(HTML.number(16 + pixels))" y2="\#(HTML.number(y0))"/><text x="16" y="\#(HTML.number(y0 - 6))">\#(label)</text></g>"#
    }

    func svg(_ log: DriveLog) -> String {
        var parts: [String] = []
        for (index, route) in log.routes.enumerated() {
            let color = Self.routeColors[index % Self.routeColors.count]
            parts.append(polyline(
                route.geometry, cssClass: "route route-\(route.reason)", color: color,
                title: "route \(route.routeId) (\(route.reason)): \(HumanReadable.distance(route.distance))"))
        }
        parts.append(polyline(log.fixes.map(\.coordinate), cssClass: "raw-track", color: "#9ca3af", title: "raw track: \(log.fixes.count) fixes"))
        parts.append(polyline(log.states.filter(\.navigating).compactMap(\.snapped), cssClass: "snapped-track", color: "#111827", title: "snapped track"))
        for event in log.stepAdvances { if let c = event.location { parts.append(marker(c, cssClass: "step-advance", shape: "small", title: event.text)) } }
        for route in log.routes where route.reason == "reroute" {
            if let first = route.geometry.first { parts.append(marker(first, cssClass: "reroute", shape: "diamond", title: "reroute: \(route.routeId)")) }
        }
        for event in log.deviations { if let c = event.location { parts.append(marker(c, cssClass: "deviation", shape: "circle", title: event.text)) } }
        let waypoints = log.routes.first?.waypoints ?? []
        if let start = waypoints.first { parts.append(marker(start, cssClass: "start", shape: "circle", title: "start")) }
        for stop in waypoints.dropFirst().dropLast() { parts.append(marker(stop, cssClass: "waypoint", shape: "square", title: "stop")) }
        if let destination = log.routes.last?.waypoints.last { parts.append(marker(destination, cssClass: "destination", shape: "square", title: "destination")) }
        parts.append(scaleBar())
        return #"<svg id="map" viewBox="0 0 \#(CheckedNumber.clampedWhole(width, rounding: .towardZero)) \#(CheckedNumber.clampedWhole(height, rounding: .towardZero))" role="img" aria-label="map of the drive">"#
            + #"<rect class="background" width="100%" height="100%"/>"# + parts.joined() + "</svg>"
    }
}
