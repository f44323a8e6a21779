import ArgumentParser
import FoundationEssentials
import Glibc
import Guidance
import NavdClient
import NavigationCore
import NavigationProtocol
import Synchronization

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

    @Flag(help: "Print every message as JSON Lines instead of text.")
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
            let navd = try await connection.connect()
            if json { writeLine(String(decoding: ServerMessage.hello(navdVersion: navd.hello.navd, control: navd.hello.control, seq: navd.hello.seq, state: navd.hello.state).line.dropLast(), as: UTF8.self)) }
            var view = LiveView()
            view.connected(navd.hello)
            var drawn = Date.distantPast
            func draw() { TerminalScreen.draw(view.render(width: TerminalScreen.width())) }
            if live { draw() } else if !json { writeLine(Self.describe(navd.hello)) }
            defer { if live { draw() } }
            var session: Int?
            if !to.isEmpty {
                let waypoints = to.map { Waypoint(coordinate: $0) }
                do throws(NavdClientError) {
                    session = try await navd.send(NavigateCommand(waypoints: waypoints)).session
                } catch {
                    if json, case .refused(let refusal) = error { writeLine(String(decoding: ServerMessage.error(id: "navctl", refusal).line.dropLast(), as: UTF8.self)) }
                    throw CommandFailure(error.description)
                }
            }
            // --timeout: closing the connection ends the events.
            let timedOut = TimeoutFlag()
            if let timeout {
                Task {
                    try? await Task.sleep(for: .seconds(timeout))
                    timedOut.set()
                    navd.close()
                }
            }
            var lastProgress = Date.distantPast
            var units = DistanceFormatter(units: navd.hello.state.voice?.units ?? .metric)
            for await message in navd.events {
                if json { writeLine(String(decoding: message.line.dropLast(), as: UTF8.self)) }
                if live {
                    view.apply(message, clock: LiveView.clockTime(Date(), seconds: true))
                    // Redraw at most five times a second, and at once for what matters.
                    if Date().timeIntervalSince(drawn) >= 0.2 || message.event.type != .tripState {
                        draw()
                        drawn = Date()
                    }
                } else if !json, let text = Self.describe(message, lastProgress: &lastProgress, units: &units) {
                    writeLine(text)
                }
                guard untilArrived else { continue }
                switch message.event {
                case .arrived:
                    return
                case .tripState(let state) where state.state == "complete":
                    return
                case .routeCalculation(let calculation) where calculation.session == session && calculation.status == .failed:
                    throw CommandFailure("route calculation failed: \(calculation.error?.message ?? "")")
                default:
                    break
                }
            }
            if json, let reason = navd.byeReason { writeLine(String(decoding: ServerMessage.bye(reason: reason).line.dropLast(), as: UTF8.self)) }
            if timedOut.isSet { throw CommandFailure("timed out after \(CheckedNumber.clampedWhole(timeout ?? 0, rounding: .towardZero)) s") }
            if live { view.closed("navd closed the connection", clock: LiveView.clockTime(Date(), seconds: true)) }
            if !json, !live { writeLine("navd closed the connection" + (navd.byeReason.map { ": \($0)" } ?? "")) }
            if untilArrived { throw CommandFailure("navd closed the connection before arrival") }
        }
    }

    static func describe(_ hello: Hello) -> String {
        "connected to navd \(hello.navd) (\(hello.control ? "control" : "read only")), \(hello.state.phase.rawValue)"
    }

    /// One line of text for an event, or nil for events not worth a line; distances in `units`, which a `voice`
    /// event changes.
    static func describe(_ message: EventMessage, lastProgress: inout Date, units: inout DistanceFormatter) -> String? {
        switch message.event {
        case .route(let route):
            return "ROUTE (\(route.reason.rawValue)) \(message.routeId ?? ""): \(units.abbreviated(route.distance)), \(HumanReadable.duration(route.duration))"
        case .instruction(let instruction):
            if let visual = instruction.visual { return "  [banner] \(visual.primary.text)" }
            return "  [voice]  \(instruction.spoken?.text ?? "")"
        case .instructionRetracted(let retracted):
            return "  [retracted \(retracted.instructions.count) instruction(s): \(retracted.reason.rawValue)]"
        case .deviation(let deviation):
            guard deviation.offRoute else { return "back on the route" }
            return "OFF ROUTE by \(CheckedNumber.clampedWhole(deviation.distance, rounding: .towardZero)) m; reroute: \(deviation.reroute?.rawValue ?? "")"
        case .routeCalculation(let calculation):
            var text = "calculation \(calculation.session) (\(calculation.purpose.rawValue)): \(calculation.status.rawValue)"
            if let waiting = calculation.waiting { text += waiting == .gnssFix ? ", waiting for a GNSS fix" : ", GNSS fix received" }
            if let error = calculation.error { text += ": \(error.message)" }
            if let reason = calculation.reason { text += " (\(reason))" }
            return text
        case .waypointReached(let waypoint):
            return "reached stop \(waypoint.index + 1)"
        case .arrived(let arrived):
            return "ARRIVED after \(units.abbreviated(arrived.distanceTravelled)) in \(HumanReadable.duration(arrived.duration))"
        case .gnss(let gnss):
            return "GNSS \(gnss.status.rawValue): \(gnss.detail)"
        case .speedAlert(let alert):
            return alert.level == .major ? alert.summary.uppercased() : alert.summary
        case .routeRefreshed(let refreshed):
            return refreshed.summary
        case .routeAlternatives(let alternatives):
            return alternatives.summary
        case .fasterRoute(let faster):
            return faster.summary
        case .announcement(let announcement):
            return "navd: \(announcement.text)"
        case .voice(let voice):
            units = DistanceFormatter(units: voice.units)
            return voice.summary
        case .tripState(let state):
            // A progress line every 5 s of wall-clock time.
            guard state.state == "navigating", Date().timeIntervalSince(lastProgress) >= 5 else { return nil }
            lastProgress = Date()
            return "  … \(units.abbreviated(state.progress?.distanceToNextManeuver ?? 0)) to the next maneuver, \(units.abbreviated(state.progress?.distanceRemaining ?? 0)) left on \(state.roadName ?? "the road")"
        }
    }
}

/// Set once, read from anywhere.
final class TimeoutFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
