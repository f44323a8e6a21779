import Foundation

/// One measured figure of the benchmark table, with the peer measured next to it in the same run when there is
/// one (gpsd's relay, the engine's own time, CPython's json module) and the target it is held to.
struct Figure: Codable, Sendable {
    /// What was measured, e.g. "fix to socket, serial source, p50".
    var name: String
    var value: Double
    /// "ms", "µs", "MB/s", "MB", "%", ...
    var unit: String
    /// The peer's figure for the same thing in the same run, in `unit`.
    var peer: Double?
    /// Who the peer is, e.g. "gpsd relay".
    var peerName: String?
    /// The target, as text ("< 1 ms", "< gpsd relay").
    var target: String?
    /// Whether the target is met (nil when the figure has no target).
    var met: Bool?

    init(_ name: String, _ value: Double, _ unit: String, peer: Double? = nil, peerName: String? = nil, target: String? = nil, met: Bool? = nil) {
        self.name = name
        self.value = value
        self.unit = unit
        self.peer = peer
        self.peerName = peerName
        self.target = target
        self.met = met
    }
}

/// The figures of one run, printed as one table and written as JSON.
struct BenchTable: Codable, Sendable {
    var machine: String
    var date: String
    var figures: [Figure] = []

    init(figures: [Figure] = []) {
        self.figures = figures
        machine = Self.describeMachine()
        date = ISO8601DateFormatter().string(from: Date())
    }

    /// The table as Markdown (what docs/performance.md quotes).
    var markdown: String {
        var lines = [
            "| figure | navd | peer in the same run | ratio | target |",
            "|---|---|---|---|---|",
        ]
        for figure in figures {
            let peer = figure.peer.map { "\(figure.peerName ?? "peer"): \(Self.format($0)) \(figure.unit)" } ?? ""
            let ratio = figure.peer.flatMap { $0 > 0 ? String(format: "%.2f×", figure.value / $0) : nil } ?? ""
            let target = figure.target.map { "\($0) \(figure.met == true ? "met" : "NOT met")" } ?? ""
            lines.append("| \(figure.name) | \(Self.format(figure.value)) \(figure.unit) | \(peer) | \(ratio) | \(target) |")
        }
        return lines.joined(separator: "\n")
    }

    func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e6 { return String(format: "%.0f", value) }
        return switch abs(value) {
        case 100...: String(format: "%.0f", value)
        case 10..<100: String(format: "%.1f", value)
        default: String(format: "%.2f", value)
        }
    }

    /// CPU model, cores and kernel: what the figures depend on.
    static func describeMachine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?
            .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return "\(model), \(ProcessInfo.processInfo.activeProcessorCount) cores, Linux \(kernel)"
    }
}

/// Percentiles of a sample, in the sample's unit.
struct Percentiles {
    private let sorted: [Double]

    init(_ values: [Double]) {
        sorted = values.sorted()
    }

    var count: Int { sorted.count }

    /// The value below which `fraction` of the sample lies (nearest rank).
    func at(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    var median: Double { at(0.5) }
    var p99: Double { at(0.99) }
}

/// The monotonic clock, in seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Says what the benchmark does now (stderr: stdout carries the figures).
func progress(_ text: String) {
    FileHandle.standardError.write(Data("navbench: \(text)\n".utf8))
}

/// Stops the benchmark with a clear message (a missing peer or component is an error, never a skipped figure).
func fail(_ text: String) -> Never {
    killStartedProcesses()
    FileHandle.standardError.write(Data("navbench: \(text)\n".utf8))
    exit(1)
}
