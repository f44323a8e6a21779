import FoundationEssentials

/// Which HTTP redirects navd follows when it asks a routing server (`RouteHTTPExecutor` applies it).
///
/// A redirect is followed only on the same server: the same scheme, host and port, or the same host moved from
/// http to https. One to another host would send the request, and any key in its URL or body, to a server
/// nobody configured; one from https to http would send it in clear. At most ``maximumHops`` are followed.
public enum RedirectPolicy {
    /// Redirects followed for one request at most.
    public static let maximumHops = 3
    /// The statuses that redirect (with a `Location` header).
    public static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    public enum Decision: Hashable, Sendable {
        /// Follow to this absolute URL.
        case follow(String)
        /// Do not follow; why, in words.
        case refuse(String)
    }

    /// What to do with a redirect from `current` (an absolute URL) to `location` (as the server wrote it).
    public static func decide(from current: String, location: String) -> Decision {
        guard let base = URL(string: current), let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let from = URLComponents(url: base, resolvingAgainstBaseURL: false),
            let to = URLComponents(url: target, resolvingAgainstBaseURL: false)
        else { return .refuse("a redirect to '\(HTTPRequestSpec.redacted(location))', which is not a URL") }
        let fromScheme = from.scheme?.lowercased() ?? "", toScheme = to.scheme?.lowercased() ?? ""
        let fromHost = from.host?.lowercased() ?? "", toHost = to.host?.lowercased() ?? ""
        guard toScheme == "http" || toScheme == "https" else {
            return .refuse("a redirect to \(HTTPRequestSpec.server(of: target.absoluteString)), which is not http or https")
        }
        guard fromHost == toHost, !toHost.isEmpty else {
            return .refuse("a redirect to another server (\(HTTPRequestSpec.server(of: target.absoluteString)))")
        }
        if fromScheme == "https", toScheme == "http" { return .refuse("a redirect from https to http") }
        let samePort = effectivePort(from) == effectivePort(to)
        guard fromScheme == toScheme ? samePort : to.port == nil else {
            return .refuse("a redirect to another server (\(HTTPRequestSpec.server(of: target.absoluteString)))")
        }
        return .follow(target.absoluteString)
    }

    static func effectivePort(_ components: URLComponents) -> Int {
        components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
