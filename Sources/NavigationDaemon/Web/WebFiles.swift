import NavigationCore
import NavigationProtocol

/// The dashboard's files (Web/Dashboard), embedded in the binary: nothing is fetched from elsewhere. With them,
/// `/destinations.json`: the places `[[web.destinations]]` names, for the page's destination list.
enum WebFiles {
    typealias File = (type: String, bytes: [UInt8])

    static func all(destinations: [NavdConfig.Web.Destination]) -> [String: File] {
        let list = JSONValue.array(destinations.map { .object(["name": .string($0.name), "lat": .number($0.lat), "lon": .number($0.lon)]) })
        return [
            "/": ("text/html; charset=utf-8", PackageResources.index_html),
            "/app.js": ("text/javascript; charset=utf-8", PackageResources.app_js),
            "/style.css": ("text/css; charset=utf-8", PackageResources.style_css),
            "/icon.svg": ("image/svg+xml", PackageResources.icon_svg),
            "/destinations.json": ("application/json", JSONLine.serialize(["destinations": list])),
        ]
    }
}
