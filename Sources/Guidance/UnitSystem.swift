import NavigationCore

/// How distances are said and shown: metres and kilometres, or feet, yards and miles.
public enum UnitSystem: String, Sendable, CaseIterable, Equatable, Codable {
    case metric
    /// Miles; feet below a tenth of a mile (the United States).
    case imperial
    /// Miles; yards below a tenth of a mile (the United Kingdom).
    case imperialYards = "imperial_yards"

    /// The units drivers of `region` (ISO 3166-1 alpha-2) expect: miles in the United States, Liberia and Myanmar
    /// (feet) and in the United Kingdom (yards); metres everywhere else.
    public static func usual(in region: String?) -> UnitSystem {
        switch region?.uppercased() {
        case "US", "LR", "MM": .imperial
        case "GB": .imperialYards
        default: .metric
        }
    }
}

/// A BCP 47 language tag as navd uses it: its language (`de`), and its region (`AT`) when it has one.
public struct LanguageTag: Sendable, Equatable, CustomStringConvertible {
    public var language: String
    public var region: String?

    /// nil for a tag that is not `language[-Script][-REGION]...` (two or three letters, then subtags).
    public init?(_ tag: String) {
        let parts = tag.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        guard parts.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) else { return nil }
        language = first.lowercased()
        region = parts.dropFirst().first { $0.count == 2 && $0.allSatisfy(\.isLetter) }?.uppercased()
    }

    public var description: String { region.map { "\(language)-\($0)" } ?? language }
}
