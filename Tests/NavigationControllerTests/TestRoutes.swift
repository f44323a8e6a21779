import Foundation
import NavigationCore
import RouteAdapters
import Testing

/// Routes for controller tests: synthetic ones drawn leg by leg, and the recorded fixtures.
enum TestRoutes {
    static let origin = GeographicCoordinate(latitude: 60.1699, longitude: 24.9384)
    static let start = Date(timeIntervalSince1970: 1_795_241_290)

    /// A route made of straight stretches: each `(bearing, length)` is one step, with a turn between them and a
    /// final zero-length arrive step. Points every `spacing` metres. Each step gets one banner and two prompts
    /// for the maneuver at its end (at the step length and at 60 m).
    static func polyline(_ legs: [(bearing: Double, length: Double)], spacing: Double = 20, from start: GeographicCoordinate = origin)
        -> Route
    {
        var steps: [RouteStep] = []
        var position = start
        var all: [GeographicCoordinate] = [start]
        for (i, leg) in legs.enumerated() {
            var geometry = [position]
            var travelled = 0.0
            while travelled < leg.length {
                let hop = min(spacing, leg.length - travelled)
                position = Geodesy.destination(from: position, distance: hop, bearing: leg.bearing)
                geometry.append(position)
                travelled += hop
            }
            all.append(contentsOf: geometry.dropFirst())
            let type: ManeuverType = i == 0 ? .depart : .turn
            steps.append(
                RouteStep(
                    geometry: geometry, distance: leg.length, duration: leg.length / 10, roadName: "Street \(i)",
                    instruction: "Instruction \(i)", maneuver: Maneuver(type: type, location: geometry[0]),
                    annotations: SegmentAnnotations((1..<geometry.count).map { _ in SegmentAnnotation(values: ["maxspeed": ["speed": 40, "unit": "km/h"]]) }),
                    legIndex: 0))
        }
        steps.append(
            RouteStep(
                geometry: [position, position], distance: 0, duration: 0, instruction: "You have arrived",
                maneuver: Maneuver(type: .arrive, location: position)))
        for i in steps.indices {
            let nextText = steps[min(i + 1, steps.count - 1)].instruction
            if i < steps.count - 1 {
                steps[i].visualInstructions = [VisualInstruction(primary: .init(text: nextText), triggerDistanceBeforeManeuver: steps[i].distance)]
            }
            let prompts: [(String, Double)] =
                i == steps.count - 1 ? [("You have arrived", 0)] : [("Soon: \(nextText)", steps[i].distance), (nextText, min(60, steps[i].distance))]
            steps[i].spokenInstructions = prompts.enumerated().map { j, p in
                SpokenInstruction(
                    text: p.0, triggerDistanceBeforeManeuver: p.1, utteranceId: SpokenInstruction.utteranceID(stepIndex: i, indexInStep: j, text: p.0))
            }
        }
        let total = legs.reduce(0) { $0 + $1.length }
        return Route(
            geometry: all, distance: total, duration: total / 10, waypoints: [Waypoint(coordinate: start), Waypoint(coordinate: position)],
            steps: steps)
    }

    /// A fix at a point, moving on `course` at `speed`.
    static func fix(
        _ coordinate: GeographicCoordinate, at seconds: Double, course: Double? = nil, speed: Double = 10, accuracy: Double = 5
    ) -> UserLocation {
        UserLocation(
            coordinate: coordinate, horizontalAccuracy: accuracy, course: course.map { CourseOverGround(degrees: $0) },
            speed: Speed(metersPerSecond: speed), timestamp: start.addingTimeInterval(seconds))
    }

    static let fixtureNames = [
        "valhalla_osrm_response", "valhalla_extended_osrm_response", "valhalla_osrm_with_roundabouts", "helsinki_osrm_plain",
        "helsinki_osrm_two_legs",
    ]

    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) throws -> Route {
        let data = try Data(contentsOf: repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/\(name).json"))
        return try #require(try OSRMResponseParser().parseRoutes(from: data).first)
    }
}

/// Runs a controller over fixes and keeps every state.
struct Drive {
    let controller: NavigationController
    var states: [TripState] = []

    init(_ controller: NavigationController) { self.controller = controller }

    @discardableResult
    mutating func run(_ fixes: [UserLocation]) -> [TripState] {
        for fix in fixes {
            let next: TripState =
                switch states.last {
                case nil: controller.initialState(for: fix)
                case let state?: controller.update(state, with: fix)
                }
            states.append(next)
            if case .complete = next { break }
        }
        return states
    }

    var navigating: [NavigatingState] { states.compactMap(\.navigating) }

    var isComplete: Bool {
        if case .complete? = states.last { return true }
        return false
    }

    /// Every spoken prompt reported, in order, including the arrival prompt.
    var spokenIDs: [String] {
        states.compactMap { state -> String? in
            switch state {
            case .navigating(let s): s.spokenInstruction?.utteranceId
            case .complete(let c): c.spokenInstruction?.utteranceId
            case .idle: nil
            }
        }
    }
}

extension Drive {
    /// What a driver would notice is wrong with the guidance of a completed drive, as sentences (empty: nothing).
    ///
    /// - Steps move forward only. A step is skipped (advanced past in the same update as the one before it) only
    ///   when the vehicle drove past its whole length between two fixes: it is shorter than `maximumHop` metres.
    /// - Prompts are said once each, in route order. A prompt may go unsaid only when saying it would be late or
    ///   doubled: its step was skipped; a later prompt of the same step fell due on the same fix (`maximumHop`
    ///   metres or less apart); or it is the arrive step's prompt after the approach step's last prompt, which
    ///   already announced the arrival.
    func guidanceProblems(route: Route, maximumHop: Double) -> [String] {
        var problems: [String] = []
        let steps = navigating.map(\.stepIndex)
        var skipped: Set<Int> = []
        for (a, b) in zip(steps, steps.dropFirst()) {
            if b < a { problems.append("step went back from \(a) to \(b)") }
            for step in (a + 1)..<max(a + 1, b) {
                skipped.insert(step)
                if route.steps[step].distance > maximumHop {
                    problems.append("step \(step) (\(Int(route.steps[step].distance)) m) skipped")
                }
            }
        }
        let all = route.steps.enumerated().flatMap { i, step in step.spokenInstructions.enumerated().map { (i, $0, $1) } }
        let said = spokenIDs
        if Set(said).count != said.count { problems.append("a prompt was said twice") }
        let order = all.map(\.2.utteranceId)
        let positions = said.compactMap { order.firstIndex(of: $0) }
        if positions != positions.sorted() { problems.append("prompts out of route order") }
        let last = route.steps.count - 1
        let approach = route.steps[last].maneuver.type == .arrive && last > 0 ? last - 1 : last
        for (step, j, prompt) in all where !said.contains(prompt.utteranceId) {
            if skipped.contains(step) { continue }
            let prompts = route.steps[step].spokenInstructions
            let supersededBy = prompts.dropFirst(j + 1).first { said.contains($0.utteranceId) }
            if let later = supersededBy, prompt.triggerDistanceBeforeManeuver - later.triggerDistanceBeforeManeuver <= maximumHop { continue }
            if step == last, step != approach, route.steps[approach].spokenInstructions.last.map({ said.contains($0.utteranceId) }) == true {
                continue
            }
            problems.append("step \(step) prompt \"\(prompt.text)\" (at \(Int(prompt.triggerDistanceBeforeManeuver)) m) never said")
        }
        return problems
    }
}
