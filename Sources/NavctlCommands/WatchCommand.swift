import ArgumentParser
import Foundation
import NavigationCore

/// A client of the running daemon: optionally starts a trip, then shows what navd publishes as a driver's
/// display would (banners, voice prompts, deviations, reroutes, arrival).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Connect to navd's socket and show its instructions and events (docs/protocol.md).",
        discussion: """
            On a terminal, a live view that redraws in place: the next maneuver with an arrow and the distance to it, \
            the road, lanes when known, distance and time left with the ETA and a progress bar, speed and speed limit, \
            GNSS state and reroute activity. Otherwise (or with --plain) one line per event. With --to, first asks navd \
            to navigate there from the vehicle's position.
            """)

    @OptionGroup var connection: SocketOptions

    @Option(help: "Navigate to LAT,LON first (repeat for intermediate stops; the last is the destination).")
    var to: [GeographicCoordinate] = []

    @Flag(help: "Exit after the trip arrives (or navigation fails).")
    var untilArrived = false

    @Flag(help: "Print every line as received (JSON Lines) instead of text.")
    var json = false

    @Flag(help: "Scrolling text, one line per event, even on a terminal.")
    var plain = false

    @Option(help: "Give up after this many seconds.")
    var timeout: Double?

    func run() async throws {
        let live = !json && !plain && isatty(STDOUT_FILENO) != 0
        if live { TerminalScreen.begin() }
        defer { if live { TerminalScreen.end() } }
        try await reportingErrors {
            let connection = try LineConnection(path: self.connection.socket)
            if !to.isEmpty {
                let waypoints = to.map { "{\"lat\":\($0.latitude),\"lon\":\($0.longitude)}" }.joined(separator: ",")
                try connection.send("{\"type\":\"navigate\",\"id\":\"navctl\",\"waypoints\":[\(waypoints)]}")
            }
            let deadline = timeout.map { Date().addingTimeInterval($0) }
            var lastProgress = Date.distantPast
            var view = LiveView()
            var drawn = Date.distantPast
            defer { if live { TerminalScreen.draw(view.render(width: TerminalScreen.width())) } }
            while true {
                // On a terminal, wake at least every 0.5 s so the screen follows even a quiet navd.
                let wake = live ? min(deadline ?? .distantFuture, Date().addingTimeInterval(0.5)) : deadline
                guard let line = try connection.readLine(deadline: wake) else {
                    if connection.isClosed || (deadline.map { Date() >= $0 } ?? false) { break }
                    continue
                }
                if json { writeLine(line) }
                guard let message = try? JSONParser.parse(Array(line.utf8)) else { continue }
                let type = message["type"]?.stringValue
                if live {
                    view.apply(message, clock: LiveView.clockTime(Date(), seconds: true))
                    // Redraw at most five times a second, and at once for what matters.
                    if Date().timeIntervalSince(drawn) >= 0.2 || (type != "trip_state" && type != "instruction") {
                        TerminalScreen.draw(view.render(width: TerminalScreen.width()))
                        drawn = Date()
                    }
                } else if !json, let text = Self.describe(message, lastProgress: &lastProgress) {
                    writeLine(text)
                }
                if untilArrived {
                    // `arrived` ends the trip; the `complete` trip_state after it may be replaced by a newer one
                    // before this client reads it (navd keeps only the latest unread trip_state).
                    if type == "arrived" || (type == "trip_state" && message["state"]?.stringValue == "complete") { return }
                    if type == "error", message["id"]?.stringValue == "navctl" { throw CommandFailure("navigate refused: \(message["message"]?.stringValue ?? "")") }
                    if type == "route_calculation", message["purpose"]?.stringValue == "initial", message["status"]?.stringValue == "failed" {
                        throw CommandFailure("route calculation failed: \(message["error"]?["message"]?.stringValue ?? "")")
                    }
                }
            }
            if let deadline, Date() >= deadline { throw CommandFailure("timed out after \(Int(timeout ?? 0)) s") }
            if untilArrived { throw CommandFailure("navd closed the connection before arrival") }
        }
    }

    /// One line of text for a message, or nil for messages not worth a line.
    static func describe(_ message: JSONValue, lastProgress: inout Date) -> String? {
        let type = message["type"]?.stringValue ?? "?"
        switch type {
        case "hello":
            return "connected to navd \(message["navd"]?.stringValue ?? "?") (\(message["control"]?.boolValue == true ? "control" : "read only")), \(message["state"]?["phase"]?.stringValue ?? "?")"
        case "route":
            let distance = message["distance"]?.doubleValue.map(HumanReadable.distance) ?? "?"
            let duration = message["duration"]?.doubleValue.map(HumanReadable.duration) ?? "?"
            return "ROUTE (\(message["reason"]?.stringValue ?? "")) \(message["routeId"]?.stringValue ?? ""): \(distance), \(duration)"
        case "instruction":
            let instruction = message["instruction"]
            if message["kind"]?.stringValue == "visual" {
                return "  [banner] \(instruction?["primary"]?["text"]?.stringValue ?? "")"
            }
            return "  [voice]  \(instruction?["text"]?.stringValue ?? "")"
        case "instruction_retracted":
            return "  [retracted \(message["instructions"]?.arrayValue?.count ?? 0) instruction(s): \(message["reason"]?.stringValue ?? "")]"
        case "deviation":
            if message["offRoute"]?.boolValue == true {
                return "OFF ROUTE by \(Int(message["distance"]?.doubleValue ?? 0)) m; reroute: \(message["reroute"]?.stringValue ?? "")"
            }
            return "back on the route"
        case "route_calculation":
            var text = "calculation \(Int(message["session"]?.doubleValue ?? 0)) (\(message["purpose"]?.stringValue ?? "")): \(message["status"]?.stringValue ?? "")"
            if let waiting = message["waiting"]?.stringValue { text += waiting == "gnss_fix" ? ", waiting for a GNSS fix" : ", GNSS fix received" }
            if let error = message["error"]?["message"]?.stringValue { text += ": \(error)" }
            if let reason = message["reason"]?.stringValue { text += " (\(reason))" }
            return text
        case "waypoint_reached":
            return "reached stop \(Int(message["index"]?.doubleValue ?? 0) + 1)"
        case "arrived":
            return "ARRIVED after \(HumanReadable.distance(message["distanceTravelled"]?.doubleValue ?? 0)) in \(HumanReadable.duration(message["duration"]?.doubleValue ?? 0))"
        case "gnss":
            return "GNSS \(message["status"]?.stringValue ?? ""): \(message["detail"]?.stringValue ?? "")"
        case "trip_state":
            // A progress line every 5 s of wall-clock time.
            guard message["state"]?.stringValue == "navigating", Date().timeIntervalSince(lastProgress) >= 5 else { return nil }
            lastProgress = Date()
            let progress = message["progress"]
            return "  … \(HumanReadable.distance(progress?["distanceToNextManeuver"]?.doubleValue ?? 0)) to the next maneuver, \(HumanReadable.distance(progress?["distanceRemaining"]?.doubleValue ?? 0)) left on \(message["roadName"]?.stringValue ?? "the road")"
        case "error":
            return "error \(message["code"]?.stringValue ?? ""): \(message["message"]?.stringValue ?? "")"
        case "bye":
            return "navd: \(message["reason"]?.stringValue ?? "bye")"
        default:
            return nil
        }
    }
}

/// A blocking line-oriented Unix socket connection.
final class LineConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// True once navd closed the connection.
    private(set) var isClosed = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { throw CommandFailure("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            switch code {
            case ENOENT, ECONNREFUSED:
                throw CommandFailure("navd is not running at \(path) (start it, or give --socket or NAVD_SOCKET)")
            case EACCES, EPERM:
                throw CommandFailure("access to navd at \(path) denied: this user is not in the socket's group (socket.group, usually navd)")
            default:
                throw CommandFailure("cannot connect to navd at \(path): \(String(cString: strerror(code)))")
            }
        }
    }

    deinit { close(fd) }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw CommandFailure("navd closed the connection") }
            offset += written
        }
    }

    /// The next line, or nil at the end of the connection or at `deadline`.
    func readLine(deadline: Date?) throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var timeoutMs: Int32 = -1
            if let deadline {
                let remaining = deadline.timeIntervalSinceNow
                if remaining <= 0 { return nil }
                timeoutMs = Int32(min(remaining, 3600) * 1000)
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeoutMs) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 {
                isClosed = true
                return nil
            }
            buffer += chunk[..<count]
        }
    }
}
