import Foundation
import NavigationCore

/// Median cost of one `NavigationController.update` on synthetic routes of about 1 km, 100 km and 1000 km:
/// a winding road with a point every 25 m and a step every 500 m, driven at 25 m/s with 1 fix per second and
/// 4 m of GNSS noise; each figure is the mean of a batch of 50 updates, the median and p99 over the batches. Target: under 10 µs per update, and the 1000 km figure within 1.5× of the 1 km one.
struct ControllerBenchmark {
    var batch = 50

    func run() -> [Figure] {
        var medians: [Double] = []
        var figures: [Figure] = []
        for kilometers in [1.0, 100, 1000] {
            let route = Self.route(length: kilometers * 1000)
            guard let controller = try? NavigationController(route: route) else { fatalError("synthetic route has no steps") }
            let fixes = LocationSimulator(speed: 25, sampleRate: 1, noise: 4, seed: 3).simulate(along: controller.index.points)
            // Short routes are driven several times so that every size gives enough batches.
            let rounds = max(1, 4000 / fixes.count)
            var perUpdate: [Double] = []
            let clock = ContinuousClock()
            var completed = 0
            for _ in 0..<rounds {
                var state = controller.initialState(for: fixes[0])
                var i = 1
                while i < fixes.count {
                    let end = min(fixes.count, i + batch)
                    let start = clock.now
                    for fix in fixes[i..<end] { state = controller.update(state, with: fix) }
                    let elapsed = start.duration(to: clock.now)
                    perUpdate.append(Self.microseconds(elapsed) / Double(end - i))
                    i = end
                }
                if case .complete = state { completed += 1 }
            }
            precondition(completed == rounds, "the benchmark drive did not complete the \(Int(kilometers)) km route")
            let sample = Percentiles(perUpdate)
            medians.append(sample.median)
            progress(
                "controller: \(Int(kilometers)) km route, \(route.steps.count) steps, \(controller.index.points.count) points, "
                    + "\(fixes.count * rounds) updates in batches of \(batch)")
            figures.append(Figure("controller update, \(Int(kilometers)) km route, median", sample.median, "µs", target: "< 10 µs", met: sample.median < 10))
            figures.append(Figure("controller update, \(Int(kilometers)) km route, p99", sample.p99, "µs"))
        }
        let ratio = medians[2] / medians[0]
        figures.append(Figure("controller update, 1000 km / 1 km", ratio, "×", target: "< 1.5×", met: ratio < 1.5))
        return figures
    }

    static func microseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
    }

    /// A winding road of `length` metres.
    /// `asSent`: coordinates rounded to 10^-6 degrees, as engines send them (Valhalla's polyline6), where they are
    /// written as short decimals; unrounded, each is written by the standard library's slower shortest text.
    static func route(length: Double, asSent: Bool = false) -> Route {
        var position = GeographicCoordinate(latitude: 60.1, longitude: 24.5)
        var bearing = 30.0
        var steps: [RouteStep] = []
        var travelled = 0.0
        var stepIndex = 0
        while travelled < length {
            let stepLength = min(500, length - travelled)
            var geometry = [position]
            var along = 0.0
            while along < stepLength {
                let hop = min(25, stepLength - along)
                bearing += Double((stepIndex * 7 + Int(along)) % 11) - 5
                position = Geodesy.destination(from: position, distance: hop, bearing: bearing)
                if asSent {
                    position = GeographicCoordinate(
                        latitude: (position.latitude * 1e6).rounded() / 1e6, longitude: (position.longitude * 1e6).rounded() / 1e6)
                }
                geometry.append(position)
                along += hop
            }
            let prompt = SpokenInstruction(
                text: "Turn", triggerDistanceBeforeManeuver: 100, utteranceId: SpokenInstruction.utteranceID(stepIndex: stepIndex, indexInStep: 0, text: "Turn"))
            steps.append(
                RouteStep(
                    geometry: geometry, distance: stepLength, duration: stepLength / 25, instruction: "Turn",
                    maneuver: Maneuver(type: stepIndex == 0 ? .depart : .turn, location: geometry[0]),
                    visualInstructions: [VisualInstruction(primary: .init(text: "Turn"), triggerDistanceBeforeManeuver: stepLength)],
                    spokenInstructions: [prompt]))
            travelled += stepLength
            stepIndex += 1
            bearing += stepIndex % 2 == 0 ? 60 : -60
        }
        steps.append(RouteStep(geometry: [position, position], distance: 0, duration: 0, instruction: "Arrive", maneuver: Maneuver(type: .arrive, location: position)))
        return Route(geometry: steps.flatMap(\.geometry), distance: length, duration: length / 25, waypoints: [], steps: steps)
    }
}
