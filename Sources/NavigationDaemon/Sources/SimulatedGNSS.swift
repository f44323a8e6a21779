import Foundation
import LocationSources
import NavigationCore
import Synchronization

/// A simulated receiver for demos and tests without hardware (`gnss.source = "simulate"`): it stands at the
/// configured start until a route is active, then drives along the active route at the configured speed, and
/// follows each new route (a reroute) from where it is. Fix times advance by `1 / rate` simulated seconds per
/// fix; `timeScale` simulated seconds pass per wall-clock second.
public final class SimulatedGNSS: Sendable {
    public let feed = GNSSFeed()
    private let settings: NavdConfig.GNSS
    private struct State {
        var position: GeographicCoordinate
        var time: Date
        var planned: [UserLocation] = []
        var next = 0
    }
    private let state: Mutex<State>

    public init(settings: NavdConfig.GNSS, startTime: Date = Date()) {
        self.settings = settings
        state = Mutex(State(position: settings.simulateStart, time: startTime))
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
            let line = [state.position] + route.geometry[min(nearest + 1, route.geometry.count - 1)...]
            let simulator = LocationSimulator(
                speed: settings.simulateSpeed, sampleRate: settings.simulateRate, noise: settings.simulateNoise, seed: 7,
                startTime: state.time, reportedAccuracy: max(3, settings.simulateNoise))
            state.planned = simulator.simulate(along: line)
            state.next = 0
        }
    }

    /// Emits fixes until cancelled.
    public func run() async {
        feed.report(.connected("simulated receiver"))
        let interval = 1 / settings.simulateRate
        while !Task.isCancelled {
            let fix = state.withLock { state -> UserLocation in
                var location: UserLocation
                if state.next < state.planned.count {
                    location = state.planned[state.next]
                    state.next += 1
                } else {
                    location = UserLocation(
                        coordinate: state.position, horizontalAccuracy: max(3, settings.simulateNoise), course: nil,
                        speed: Speed(metersPerSecond: 0), timestamp: state.time)
                }
                location.timestamp = state.time
                state.position = location.coordinate
                state.time += interval
                return location
            }
            feed.yield(.fix(GNSSFix(location: fix, quality: GNSSQuality(mode: .threeDimensional, satellitesUsed: 9, horizontalAccuracy: fix.horizontalAccuracy))))
            try? await Task.sleep(for: .seconds(interval / settings.simulateTimeScale))
        }
        feed.finish()
    }
}
