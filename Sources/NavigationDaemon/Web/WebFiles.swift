/// The dashboard's files (Web/Dashboard), embedded in the binary: nothing is fetched from elsewhere.
enum WebFiles {
    static let all: [String: (type: String, bytes: [UInt8])] = [
        "/": ("text/html; charset=utf-8", PackageResources.index_html),
        "/app.js": ("text/javascript; charset=utf-8", PackageResources.app_js),
        "/style.css": ("text/css; charset=utf-8", PackageResources.style_css),
    ]
}
