import FoundationEssentials
import Glibc

/// "at stepAdvance.or[0]: unknown 'distance' (expected one of ...)" rather than Foundation's dump.
public func describeDecodingError(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        var text = Substring(keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined())
        while text.first == "." { text = text.dropFirst() }
        while text.last == "." { text = text.dropLast() }
        return String(text)
    }
    switch error {
    case .dataCorrupted(let context):
        return context.codingPath.isEmpty ? context.debugDescription : "at \(path(context.codingPath)): \(context.debugDescription)"
    case .keyNotFound(let key, let context): return "at \(path(context.codingPath + [key])): missing"
    case .typeMismatch(let type, let context): return "at \(path(context.codingPath)): expected \(type)"
    case .valueNotFound(let type, let context): return "at \(path(context.codingPath)): expected \(type)"
    @unknown default: return "\(error)"
    }
}
