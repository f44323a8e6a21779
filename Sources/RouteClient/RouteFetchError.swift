import RouteAdapters

/// Why fetching routes from a server failed: which server, what happened, and whether trying again may help.
public struct RouteFetchError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The request could not be built (bad base URL, bad coordinate).
        case invalidRequest
        /// No connection: refused, unreachable.
        case connectionFailed
        /// Connected, but the connection broke before the answer was complete (reset, closed mid-answer).
        case connectionLost
        /// No complete answer within the configured time.
        case timedOut
        /// The caller cancelled the request.
        case cancelled
        /// The server answered with an HTTP error status and no routing-engine error in the body.
        case httpStatus(Int)
        /// The answer was larger than the configured limit.
        case responseTooLarge(limit: Int)
        /// The routing engine said it cannot route (NoRoute, a Valhalla error code, ...).
        case engineRefused
        /// The answer could not be turned into routes.
        case invalidResponse
        /// A custom route provider threw.
        case providerFailed
    }

    /// `scheme://host:port` of the server, or "custom provider".
    public var server: String
    public var kind: Kind
    /// What went wrong, in words: the engine's message, an excerpt of the body, the parse error.
    public var detail: String

    public init(server: String, kind: Kind, detail: String) {
        self.server = server
        self.kind = kind
        self.detail = detail
    }

    /// The wire code clients see in `route_calculation` errors (docs/protocol.md).
    public var code: String {
        switch kind {
        case .invalidRequest: "invalid_request"
        case .connectionFailed: "connection_failed"
        case .connectionLost: "connection_lost"
        case .timedOut: "timed_out"
        case .cancelled: "cancelled"
        case .httpStatus(let status): "http_\(status)"
        case .responseTooLarge: "response_too_large"
        case .engineRefused: "engine_refused"
        case .invalidResponse: "invalid_response"
        case .providerFailed: "provider_failed"
        }
    }

    /// True for failures that may pass (connection refused, timeout, HTTP 5xx, 429): worth retrying with backoff.
    public var isRetryable: Bool {
        switch kind {
        case .connectionFailed, .connectionLost, .timedOut: true
        case .httpStatus(let status): status >= 500 || status == 429 || status == 408
        default: false
        }
    }

    public var description: String {
        switch kind {
        case .invalidRequest: "cannot build a request for \(server): \(detail)"
        case .connectionFailed: "cannot connect to routing server \(server): \(detail)"
        case .connectionLost: "the connection to routing server \(server) broke before its answer was complete: \(detail)"
        case .timedOut: "routing server \(server) did not answer in time (\(detail))"
        case .cancelled: "the request to \(server) was cancelled"
        case .httpStatus(let status): "routing server \(server) answered HTTP \(status): \(detail)"
        case .responseTooLarge(let limit): "routing server \(server) sent more than \(limit) bytes; refused"
        case .engineRefused: "routing server \(server): \(detail)"
        case .invalidResponse: "routing server \(server) sent an unusable answer: \(detail)"
        case .providerFailed: "the custom route provider failed: \(detail)"
        }
    }
}
