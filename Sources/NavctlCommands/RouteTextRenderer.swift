import NavigationCore

/// Renders routes as a numbered list of instructions for a terminal.
struct RouteTextRenderer {
    var showPrompts: Bool

    func render(_ routes: [Route]) -> String {
        var lines: [String] = []
        for (index, route) in routes.enumerated() {
            if index > 0 { lines.append("") }
            let legs = route.legCount == 1 ? "" : ", \(route.legCount) legs"
            lines.append(
                "Route \(index + 1) of \(routes.count): \(HumanReadable.distance(route.distance)), "
                    + "\(HumanReadable.duration(route.duration)), \(route.steps.count) steps\(legs)")
            let width = String(route.steps.count).count
            for (number, step) in route.steps.enumerated() {
                let label = String(repeating: " ", count: width - String(number + 1).count) + "\(number + 1)."
                let distance = step.distance > 0 ? "  (\(HumanReadable.distance(step.distance)))" : ""
                lines.append("  \(label) \(step.instruction)\(distance)")
                guard showPrompts else { continue }
                let indent = "  " + String(repeating: " ", count: label.count + 1)
                for banner in step.visualInstructions {
                    let lanes = banner.lanes.isEmpty ? "" : "  lanes: " + banner.lanes.map(laneSymbol).joined(separator: " ")
                    lines.append("\(indent)banner at \(HumanReadable.distance(banner.triggerDistanceBeforeManeuver)): \(banner.primary.text)\(lanes)")
                }
                for prompt in step.spokenInstructions {
                    lines.append("\(indent)say at \(HumanReadable.distance(prompt.triggerDistanceBeforeManeuver)): \"\(prompt.text)\"")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    private func laneSymbol(_ lane: LaneInfo) -> String {
        let directions = lane.directions.joined(separator: "+")
        return lane.active ? "[\(lane.activeDirection ?? directions)]" : directions
    }
}
