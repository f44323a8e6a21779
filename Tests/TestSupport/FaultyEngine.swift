import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A routing server on 127.0.0.1 that misbehaves on demand: in front of a real engine it forwards requests
/// (`.forward`), or answers with one of the faults a routing server shows in the field. A real TCP server on
/// its own thread, so navd's real HTTP client meets real sockets.
public final class FaultyEngine: @unchecked Sendable {
    public enum Behaviour: String, Sendable, CaseIterable {
        /// Forward the request to the real engine and relay its answer.
        case forward
        /// Forward the request and relay the answer no sooner than `forwardDelay` seconds after the request came:
        /// an engine that takes that long (a remote provider, a loaded server).
        case slowForward
        /// HTTP 500 with a JSON body.
        case internalError
        /// HTTP 200 with an HTML page (a captive portal, a proxy's error page).
        case htmlWith200
        /// HTTP 200 with the real answer cut to its first half (a correct Content-Length for the half).
        case truncatedJSON
        /// The real answer's head and first half, announcing the whole length, then the connection closes.
        case cutMidAnswer
        /// Answer after `slowDelay` seconds (longer than navd's timeout).
        case slow
        /// The response head announcing 100 000 bytes and 13 bytes of body, then silence with the connection
        /// open (until the client closes it, or 30 s): a stalled server, which used to hold a reroute in flight for
        /// the rest of the trip.
        case stalledBody
        /// Valhalla's answer when it cannot route: HTTP 400, `error_code` 442.
        case noRoute
        /// HTTP 401 with a page quoting the request line, API key and all (as some hosted services do).
        case unauthorizedQuotingTheRequest
        /// The real answer with traffic: every duration and weight `trafficFactor` times longer (speeds shorter),
        /// every segment `heavy`, and a `construction` incident on the middle of each leg's geometry.
        case heavyTraffic
        /// The real answer with a jam on the road named `jamRoad`: each of its steps `jamFactor` times slower (and
        /// its leg and route by as much), every other road as the engine said.
        case jam
    }

    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)" }
    /// Where `.forward` sends requests: `host:port` of the real engine.
    public let upstreamPort: Int
    public var slowDelay: Double = 3
    /// How long `.slowForward` takes at least, seconds.
    public var forwardDelay: Double = 0.02
    /// How much longer everything takes in `.heavyTraffic`.
    public var trafficFactor: Double = 1.5
    /// The road `.jam` slows down, and how much.
    public var jamRoad = ""
    public var jamFactor: Double = 3
    private let state = Mutex<(behaviour: Behaviour, requests: Int)>((.forward, 0))
    private let paths = Mutex<[String]>([])
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)

    /// `upstream`: the real engine's base URL (http://127.0.0.1:PORT).
    public init(upstream: String) throws {
        guard let port = URLComponents(string: upstream)?.port else { throw FaultyEngineError("no port in \(upstream)") }
        upstreamPort = port
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw FaultyEngineError("cannot listen: \(String(cString: strerror(errno)))")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptUntilStopped() }
        thread.name = "faulty engine"
        thread.start()
    }

    deinit { stop() }

    public func stop() {
        if stopped.exchange(true, ordering: .relaxed) { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// What the next requests meet.
    public var behaviour: Behaviour {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    /// Requests received so far.
    public var requests: Int { state.withLock { $0.requests } }

    /// The request lines received so far (`POST /route`, `GET /route/v1/...`), without their query.
    public var requestLines: [String] { paths.withLock { $0 } }

    private func acceptUntilStopped() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let behaviour = state.withLock { state -> Behaviour in
                state.requests += 1
                return state.behaviour
            }
            let connection = Thread { [self] in
                serve(client, behaviour)
                close(client)
            }
            connection.start()
        }
    }

    private func serve(_ client: Int32, _ behaviour: Behaviour) {
        guard let request = Self.readRequest(client) else { return }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        paths.withLock { $0.append(String(line.split(separator: "?").first ?? "")) }
        switch behaviour {
        case .forward:
            Self.send(client, forward(request))
        case .slowForward:
            let due = Date().addingTimeInterval(forwardDelay)
            let answer = forward(request)
            Thread.sleep(until: due)
            Self.send(client, answer)
        case .internalError:
            Self.send(client, Self.response(status: "500 Internal Server Error", type: "application/json", body: Array(#"{"error":"worker crashed"}"#.utf8)))
        case .htmlWith200:
            let page = "<!DOCTYPE html><html><head><title>Hotel Wi-Fi login</title></head><body>Please sign in</body></html>"
            Self.send(client, Self.response(status: "200 OK", type: "text/html", body: Array(page.utf8)))
        case .truncatedJSON:
            let body = Self.body(of: forward(request))
            Self.send(client, Self.response(status: "200 OK", type: "application/json", body: Array(body.prefix(body.count / 2))))
        case .cutMidAnswer:
            let body = Self.body(of: forward(request))
            var head = Self.response(status: "200 OK", type: "application/json", body: body)
            head.removeLast(body.count - body.count / 2)
            Self.send(client, head)
        case .slow:
            Thread.sleep(forTimeInterval: slowDelay)
            Self.send(client, forward(request))
        case .stalledBody:
            var head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n".utf8)
            head += Array(#"{"code":"Ok",""#.utf8)
            Self.send(client, head)
            // Hold the connection until the client gives up: recv returns 0 when it closes.
            var pollEntry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            var buffer = [UInt8](repeating: 0, count: 1024)
            for _ in 0..<300 where !stopped.load(ordering: .relaxed) {
                if poll(&pollEntry, 1, 100) > 0, recv(client, &buffer, buffer.count, 0) <= 0 { break }
            }
        case .noRoute:
            let body = #"{"error_code":442,"error":"No path could be found for input","status_code":400,"status":"Bad Request"}"#
            Self.send(client, Self.response(status: "400 Bad Request", type: "application/json", body: Array(body.utf8)))
        case .unauthorizedQuotingTheRequest:
            Self.send(client, Self.response(status: "401 Unauthorized", type: "text/plain", body: Array("Invalid API key for \(line)".utf8)))
        case .heavyTraffic:
            let body = Self.body(of: forward(request))
            Self.send(client, Self.response(status: "200 OK", type: "application/json", body: Self.withTraffic(body, factor: trafficFactor)))
        case .jam:
            let body = Self.body(of: forward(request))
            Self.send(client, Self.response(status: "200 OK", type: "application/json", body: Self.withJam(body, road: jamRoad, factor: jamFactor)))
        }
    }

    /// An OSRM-format answer (OSRM's, or Valhalla's with `format: osrm`) with heavy traffic: durations and
    /// weights times `factor`, speeds divided by it, `congestion: heavy` on every segment, an incident mid-leg.
    /// Anything else (an error) is passed on as it is.
    static func withTraffic(_ body: [UInt8], factor: Double) -> [UInt8] {
        guard var answer = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return body }
        func slower(_ object: inout [String: Any]) {
            for key in ["duration", "weight"] { if let value = object[key] as? Double { object[key] = value * factor } }
        }
        for listKey in ["routes", "matchings"] {
            guard var routes = answer[listKey] as? [[String: Any]] else { continue }
            for r in routes.indices {
                slower(&routes[r])
                guard var legs = routes[r]["legs"] as? [[String: Any]] else { continue }
                for l in legs.indices {
                    slower(&legs[l])
                    if var steps = legs[l]["steps"] as? [[String: Any]] {
                        for s in steps.indices { slower(&steps[s]) }
                        legs[l]["steps"] = steps
                    }
                    if var annotation = legs[l]["annotation"] as? [String: Any], let durations = annotation["duration"] as? [Double] {
                        annotation["duration"] = durations.map { $0 * factor }
                        if let speeds = annotation["speed"] as? [Double] { annotation["speed"] = speeds.map { $0 / factor } }
                        annotation["congestion"] = Array(repeating: "heavy", count: durations.count)
                        legs[l]["annotation"] = annotation
                        let middle = durations.count / 2
                        legs[l]["incidents"] = [[
                            "id": "navd-test-works-\(l)", "type": "construction", "description": "lane closed for works", "impact": "major",
                            "geometry_index_start": middle, "geometry_index_end": min(durations.count, middle + 2),
                        ]]
                    }
                }
                routes[r]["legs"] = legs
            }
            answer[listKey] = routes
        }
        return (try? JSONSerialization.data(withJSONObject: answer)).map { Array($0) } ?? body
    }

    /// An OSRM-format answer with the steps on `road` `factor` times slower, and their legs and routes by as much.
    static func withJam(_ body: [UInt8], road: String, factor: Double) -> [UInt8] {
        guard var answer = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any], var routes = answer["routes"] as? [[String: Any]] else {
            return body
        }
        for r in routes.indices {
            guard var legs = routes[r]["legs"] as? [[String: Any]] else { continue }
            var routeExtra = 0.0
            for l in legs.indices {
                guard var steps = legs[l]["steps"] as? [[String: Any]] else { continue }
                var legExtra = 0.0
                for s in steps.indices where steps[s]["name"] as? String == road {
                    let extra = (steps[s]["duration"] as? Double ?? 0) * (factor - 1)
                    steps[s]["duration"] = (steps[s]["duration"] as? Double ?? 0) + extra
                    steps[s]["weight"] = (steps[s]["weight"] as? Double ?? 0) + extra
                    legExtra += extra
                }
                legs[l]["steps"] = steps
                legs[l]["duration"] = (legs[l]["duration"] as? Double ?? 0) + legExtra
                legs[l]["weight"] = (legs[l]["weight"] as? Double ?? 0) + legExtra
                routeExtra += legExtra
            }
            routes[r]["legs"] = legs
            routes[r]["duration"] = (routes[r]["duration"] as? Double ?? 0) + routeExtra
            routes[r]["weight"] = (routes[r]["weight"] as? Double ?? 0) + routeExtra
        }
        answer["routes"] = routes
        return (try? JSONSerialization.data(withJSONObject: answer)).map { Array($0) } ?? body
    }

    /// Sends `request` to the real engine with `Connection: close` and returns its whole answer.
    private func forward(_ request: [UInt8]) -> [UInt8] {
        guard let upstream = loopbackConnection(port: upstreamPort) else {
            return Self.response(status: "502 Bad Gateway", type: "text/plain", body: Array("upstream refused".utf8))
        }
        defer { close(upstream) }
        Self.send(upstream, Self.closing(request))
        // Servers may keep the connection open despite `Connection: close`: read by Content-Length.
        return Self.readMessage(upstream) ?? Self.response(status: "502 Bad Gateway", type: "text/plain", body: Array("upstream closed".utf8))
    }

    /// The request with its connection header replaced by `Connection: close`.
    static func closing(_ request: [UInt8]) -> [UInt8] {
        guard let end = headEnd(request) else { return request }
        let head = String(decoding: request[..<end], as: UTF8.self)
            .components(separatedBy: "\r\n")
            .filter { !$0.lowercased().hasPrefix("connection:") }
            .joined(separator: "\r\n")
        return Array((head + "\r\nConnection: close\r\n\r\n").utf8) + request[(end + 4)...]
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    static func readRequest(_ fd: Int32) -> [UInt8]? { readMessage(fd) }

    /// Reads one HTTP message: its head and a body of Content-Length bytes (the routing engines here send it).
    static func readMessage(_ fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = headEnd(bytes) {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.components(separatedBy: "\r\n")
                    .first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count >= end + 4 + length { return bytes }
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            bytes += buffer[..<count]
        }
    }

    static func body(of response: [UInt8]) -> [UInt8] {
        guard let end = headEnd(response) else { return [] }
        return Array(response[(end + 4)...])
    }

    static func response(status: String, type: String, body: [UInt8]) -> [UInt8] {
        Array("HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }
}

public struct FaultyEngineError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
