import Guidance
import NavigationCore

/// Whether an engine's instruction texts are in the language and units navd asked for: an answer in another
/// language (an engine without that language falls back to English), or with distances in the other unit system,
/// must not reach the driver. Pure: texts in, problems out (empty: fine).
public struct InstructionCheck: Sendable {
    public var locale: InstructionLocale
    /// The catalogs navd ships, to recognise each language by its words.
    let catalogs: [GuidanceCatalog]

    public init(locale: InstructionLocale) {
        self.locale = locale
        catalogs = ShippedLanguages.files.keys.sorted().compactMap { LanguageTag($0).flatMap(ShippedLanguages.catalog(for:)) }
    }

    /// The texts of `route` a driver reads and hears: each step's instruction, banners and prompts.
    public static func texts(of route: Route) -> [String] {
        route.steps.flatMap { step in
            [step.instruction] + step.spokenInstructions.map(\.text) + step.visualInstructions.map(\.primary.text)
        }
    }

    /// What is wrong with `texts` for the locale: "the instructions are in English (12 of 14), not Deutsch", "3 of
    /// 14 texts count in miles, not metres".
    public func problems(in texts: [String]) -> [String] {
        let requested = locale.catalog
        // A language navd does not ship cannot be recognised: nothing to say about it.
        guard let tag = LanguageTag(locale.language), tag.language == requested.language, !texts.isEmpty else { return [] }
        var problems: [String] = []
        let words = texts.map(Self.words)
        for other in catalogs where other.language != requested.language {
            // Texts with the other language's words and none of the requested one's.
            let foreign = words.filter { !$0.isDisjoint(with: other.markers) && $0.isDisjoint(with: requested.markers) }.count
            if foreign >= 2, foreign * 5 >= texts.count {
                problems.append("\(foreign) of \(texts.count) instruction texts are in \(other.name), not \(requested.name) (asked for \(locale.language))")
            }
        }
        let otherUnits: [UnitKey] = locale.imperial ? [.metres, .kilometres] : [.feet, .yards, .miles]
        // The other system's unit words in every language navd knows: an answer may be in the wrong language too.
        let unitWords = catalogs.reduce(into: Set<String>()) { words, catalog in
            for unit in otherUnits { words.formUnion(catalog.unitWords(unit)) }
        }
        let mixed = texts.filter { text in Self.countsIn(unitWords, text) }.count
        if mixed > 0 {
            problems.append(
                "\(mixed) of \(texts.count) instruction texts count in \(locale.imperial ? "metres" : "miles or feet"), not the \(locale.imperial ? "imperial" : "metric") units asked for")
        }
        return problems
    }

    /// Lowercase words of `text` (letters, and hyphens inside words).
    static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split { !($0.isLetter || $0 == "-") }.map(String.init))
    }

    /// Whether `text` has a number followed by one of `units` ("2 Meilen", "0.3 miles").
    static func countsIn(_ units: Set<String>, _ text: String) -> Bool {
        let tokens = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        for (index, token) in tokens.enumerated().dropLast() where token.first?.isNumber == true {
            // One word ("miles") or two ("engelska mil").
            let next = tokens[index + 1].trimmingCharacters(in: ".,;:!?")
            if units.contains(next) { return true }
            if index + 2 < tokens.count, units.contains(tokens[index + 1] + " " + tokens[index + 2].trimmingCharacters(in: ".,;:!?")) { return true }
        }
        return false
    }
}

extension String {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var text = Substring(self)
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
