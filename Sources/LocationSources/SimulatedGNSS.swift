import FoundationEssentials
import Glibc
import NavigationCore
import Synchronization

/// What the simulated receiver does.
public struct SimulatedReceiverSettings: Sendable, Equatable {
    /// Where the simulated vehicle waits before the first route.
    public var start: GeographicCoordinate
    /// Metres per second along the route.
    public var speed: Double
    /// Fixes per second of simulated time.
    public var rate: Double
    /// Simulated seconds per wall-clock second.
    public var timeScale: Double
    /// 1-sigma position noise, metres.
    public var noise: Double
    /// A driver's mistake on the first route: at the maneuver of this step (1 = the first turn after departing)
    /// the vehicle goes straight on for ``missedTurnDistance`` instead; nil: no mistake.
    public var missedTurn: Int?
    /// Metres driven straight on past the missed turn (navd reroutes meanwhile; the vehicle then follows the new route).
    public var missedTurnDistance = 250.0

    public init(
        start: GeographicCoordinate, speed: Double = 12, rate: Double = 1, timeScale: Double = 1, noise: Double = 0, missedTurn: Int? = nil
    ) {
        self.start = start
        self.speed = speed
        self.rate = rate
        self.timeScale = timeScale
        self.noise = noise
        self.missedTurn = missedTurn
    }
}

/// A simulated receiver for demos and tests without hardware (`gnss.source = "simulate"`), a source like the
/// others (same feed, same watchdog): it stands at the configured start until a route is active, then drives along the active route at the configured speed, and
/// follows each new route (a reroute) from where it is. Fix times advance by `1 / rate` simulated seconds per
/// fix; `timeScale` simulated seconds pass per wall-clock second.
public final class SimulatedGNSS: Sendable {
    public let feed = GNSSFeed()
    private let settings: SimulatedReceiverSettings
    private struct State {
        var position: GeographicCoordinate
        var time: Date
        var planned: [UserLocation] = []
        var next = 0
        var routesFollowed = 0
    }
    private let state: Mutex<State>

    public init(settings: SimulatedReceiverSettings, startTime: Date = Date()) {
        self.settings = settings
        state = Mutex(State(position: settings.start, time: startTime))
    }

    /// Drive along `route` from the current position (nil: stop where it is).
    public func follow(_ route: Route?) {
        state.withLock { state in
            guard let route, route.geometry.count > 1 else {
                state.planned = []
                state.next = 0
                return
            }
            let nearest = route.geometry.indices.min {
                Geodesy.distance(route.geometry[$0], state.position) < Geodesy.distance(route.geometry[$1], state.position)
            }!
            var line = [state.position] + route.geometry[min(nearest + 1, route.geometry.count - 1)...]
            if state.routesFollowed == 0, let missed = settings.missedTurn { line = missing(turn: missed, of: route, line: line) }
            state.routesFollowed += 1
            let simulator = LocationSimulator(
                speed: settings.speed, sampleRate: settings.rate, noise: settings.noise, seed: 7,
                startTime: state.time, reportedAccuracy: max(3, settings.noise))
            state.planned = simulator.simulate(along: line)
            state.next = 0
        }
    }

    /// `line` up to the maneuver of step `turn`, then straight on (the bearing of the road into it) for
    /// `missedTurnDistance` metres. Unchanged when the route has no such maneuver.
    private func missing(turn: Int, of route: Route, line: [GeographicCoordinate]) -> [GeographicCoordinate] {
        guard turn >= 1, turn < route.steps.count - 1 else { return line }
        let corner = route.steps[turn].maneuver.location
        guard let cut = line.indices.dropFirst().min(by: { Geodesy.distance(line[$0], corner) < Geodesy.distance(line[$1], corner) }) else {
            return line
        }
        let bearing = Geodesy.bearing(from: line[cut - 1], to: line[cut])
        var missed = Array(line[...cut])
        for metres in stride(from: 10.0, through: settings.missedTurnDistance, by: 10) {
            missed.append(Geodesy.destination(from: line[cut], distance: metres, bearing: bearing))
        }
        return missed
    }

    /// Emits fixes until cancelled.
    public func run() async {
        feed.report(.connected("simulated receiver"))
        let interval = 1 / settings.rate
        while !Task.isCancelled {
            let fix = state.withLock { state -> UserLocation in
                var location: UserLocation
                if state.next < state.planned.count {
                    location = state.planned[state.next]
                    state.next += 1
                } else {
                    location = UserLocation(
                        coordinate: state.position, horizontalAccuracy: max(3, settings.noise), course: nil,
                        speed: Speed(metersPerSecond: 0), timestamp: state.time)
                }
                location.timestamp = state.time
                state.position = location.coordinate
                state.time += interval
                return location
            }
            feed.yield(.fix(GNSSFix(location: fix, quality: GNSSQuality(mode: .threeDimensional, satellitesUsed: 9, horizontalAccuracy: fix.horizontalAccuracy))))
            try? await Task.sleep(for: .seconds(interval / settings.timeScale))
        }
        feed.finish()
    }
}
