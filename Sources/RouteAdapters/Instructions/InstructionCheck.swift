import Guidance
import NavigationCore

/// Whether an engine's instruction texts are in the language and units navd asked for: an answer in another
/// language (an engine without that language falls back to English), or with distances in the other unit system,
/// must not reach the driver. Pure: texts in, problems out (empty: fine).
public struct InstructionCheck: Sendable {
    public let locale: InstructionLocale
    /// The catalogs navd ships, to recognise each language by its words.
    let catalogs: [GuidanceCatalog]
    /// The other unit system's words in every language navd knows (an answer may be in the wrong language too):
    /// made once here, as filling the catalogs' templates is most of the check's time.
    let otherUnitWords: Set<String>
    /// Every marker word of the catalogs, with a bit set for each catalog (by its index) that has it, and
    /// ``requestedBit`` for the requested language's own markers: one lookup a word, by its bytes.
    let markerLanguages: WordTable<UInt64>
    /// navd's texts in the language asked for (English when navd does not ship it).
    let requested: GuidanceCatalog
    /// The texts' language is checked only for a language navd ships (else it cannot be recognised).
    let checksLanguage: Bool
    static let requestedBit: UInt64 = 1 << 63

    public init(locale: InstructionLocale) {
        self.locale = locale
        catalogs = ShippedLanguages.files.keys.sorted().compactMap { LanguageTag($0).flatMap(ShippedLanguages.catalog(for:)) }
        requested = locale.catalog
        checksLanguage = LanguageTag(locale.language)?.language == requested.language
        var markerLanguages: [String: UInt64] = [:]
        for (index, catalog) in catalogs.enumerated() where index < 63 {
            for word in catalog.markers { markerLanguages[word, default: 0] |= 1 << UInt64(index) }
        }
        for word in requested.markers { markerLanguages[word, default: 0] |= Self.requestedBit }
        self.markerLanguages = WordTable(markerLanguages)
        let otherUnits: [UnitKey] = locale.imperial ? [.metres, .kilometres] : [.feet, .yards, .miles]
        otherUnitWords = catalogs.reduce(into: Set<String>()) { words, catalog in
            for unit in otherUnits { words.formUnion(catalog.unitWords(unit)) }
        }
    }

    /// The texts of `route` a driver reads and hears: each step's instruction, banners and prompts.
    public static func texts(of route: Route) -> [String] {
        // One array, filled in order (not an array per step joined after).
        var texts: [String] = []
        texts.reserveCapacity(route.steps.reduce(0) { $0 + 1 + $1.spokenInstructions.count + $1.visualInstructions.count })
        for step in route.steps {
            texts.append(step.instruction)
            for prompt in step.spokenInstructions { texts.append(prompt.text) }
            for banner in step.visualInstructions { texts.append(banner.primary.text) }
        }
        return texts
    }

    /// What is wrong with `texts` for the locale: "the instructions are in English (12 of 14), not Deutsch", "3 of
    /// 14 texts count in miles, not metres".
    public func problems(in texts: [String]) -> [String] {
        // A language navd does not ship cannot be recognised: nothing to say about it.
        guard checksLanguage, !texts.isEmpty else { return [] }
        var problems: [String] = []
        // Per language navd ships, the texts with its words and none of the requested one's.
        var foreignTexts = [Int](repeating: 0, count: catalogs.count)
        // Read through a local: a closure reading `self` copied the whole check for each text.
        let markers = markerLanguages
        for text in texts {
            var languages: UInt64 = 0
            Self.forEachWord(of: text) { word in languages |= markers.value(for: word) ?? 0 }
            guard languages & Self.requestedBit == 0 else { continue }
            for index in catalogs.indices where languages & (1 << UInt64(index)) != 0 { foreignTexts[index] += 1 }
        }
        for (index, other) in catalogs.enumerated() where other.language != requested.language {
            let foreign = foreignTexts[index]
            if foreign >= 2, foreign * 5 >= texts.count {
                problems.append("\(foreign) of \(texts.count) instruction texts are in \(other.name), not \(requested.name) (asked for \(locale.language))")
            }
        }
        let mixed = texts.filter { text in Self.countsIn(otherUnitWords, text) }.count
        if mixed > 0 {
            problems.append(
                "\(mixed) of \(texts.count) instruction texts count in \(locale.imperial ? "metres" : "miles or feet"), not the \(locale.imperial ? "imperial" : "metric") units asked for")
        }
        return problems
    }

    /// Each lowercase word of `text` (letters, the marks on them, and hyphens) as its UTF-8 bytes (valid during the
    /// call), read from the text's bytes with a path for ASCII: a route's few hundred texts are checked as its answer
    /// arrives, on the navigation loop, and no `String` or array is made per word.
    static func forEachWord(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.withUTF8 { bytes in
            // A scalar's lowercase mapping has at most 1.5 times its bytes (Unicode 15: "İ", two bytes, is "i̇",
            // three): three times the text's bytes hold any word of it, and a byte past them would be dropped.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * bytes.count + 4) { word in
                var length = 0
                func append(_ byte: UInt8) {
                    guard length < word.count else { return }
                    word[length] = byte
                    length += 1
                }
                func flush() {
                    if length > 0 { body(UnsafeBufferPointer(rebasing: word[..<length])) }
                    length = 0
                }
                var index = 0
                while index < bytes.count {
                    let byte = bytes[index]
                    guard byte >= 0x80 else {
                        switch byte {
                        case 0x41...0x5A: append(byte + 0x20)  // A-Z
                        case 0x61...0x7A, 0x2D: append(byte)  // a-z, -
                        default: flush()
                        }
                        index += 1
                        continue
                    }
                    // A scalar of two to four bytes (the text is valid UTF-8, as every String is).
                    let count = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                    var value = UInt32(byte) & (0x7F >> UInt32(count))
                    for next in bytes[(index + 1)..<min(index + count, bytes.count)] { value = value << 6 | UInt32(next & 0x3F) }
                    index += count
                    guard let scalar = Unicode.Scalar(value) else {
                        flush()
                        continue
                    }
                    let properties = scalar.properties
                    let isMark = length > 0 && [.nonspacingMark, .spacingMark, .enclosingMark].contains(properties.generalCategory)
                    guard properties.isAlphabetic || isMark else {
                        flush()
                        continue
                    }
                    for lowered in properties.lowercaseMapping.utf8 { append(lowered) }
                }
                flush()
            }
        }
    }

    /// Whether `text` has a number followed by one of `units` ("2 Meilen", "0.3 miles"): a word that starts with a
    /// number, then a unit word (trailing punctuation trimmed) or two ("engelska mil"), compared lowercased. Words
    /// are split at white space. Only the one or two words after a number are lowercased and copied: a route's few
    /// hundred texts are checked on the navigation loop as its answer arrives, and most words are not numbers.
    static func countsIn(_ units: Set<String>, _ text: String) -> Bool {
        // ASCII without a digit has no number in it ("Turn right onto Bulevardi."): nothing to split.
        var bytes = text
        guard bytes.withUTF8({ $0.contains { $0 >= 0x80 || (0x30...0x39).contains($0) } }) else { return false }
        let words = text.unicodeScalars.split { scalar in
            scalar.value < 0x80 ? scalar == " " || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
        }
        for index in words.indices.dropLast() where startsWithNumber(words[index]) {
            let next = lowercased(words[index + 1])
            if units.contains(next.trimmingCharacters(in: ".,;:!?")) { return true }
            if index + 2 < words.count, units.contains(next + " " + lowercased(words[index + 2]).trimmingCharacters(in: ".,;:!?")) { return true }
        }
        return false
    }

    /// Whether `word`, lowercased, starts with a number: an ASCII digit, or a scalar with a numeric type ("٣", "½").
    private static func startsWithNumber(_ word: Substring.UnicodeScalarView) -> Bool {
        guard let first = word.first else { return false }
        if first.value < 0x80 { return (0x30...0x39).contains(first.value) }
        return first.properties.lowercaseMapping.unicodeScalars.first?.properties.numericType != nil
    }

    private static func lowercased(_ word: Substring.UnicodeScalarView) -> String {
        String(Substring(word)).lowercased()
    }
}

extension String {
    /// `self` without the trailing characters in `characters` (ASCII punctuation, one scalar each).
    fileprivate func trimmingCharacters(in characters: String) -> String {
        // An ASCII word's characters are its bytes (its only two-scalar character, CR LF, is white space and never in
        // a word): its bytes are trimmed. Any other word by its characters.
        if utf8.allSatisfy({ $0 < 0x80 }) {
            let trimmed = utf8.reversed().drop { byte in characters.utf8.contains(byte) }.count
            return trimmed == utf8.count ? self : String(decoding: utf8.prefix(trimmed), as: UTF8.self)
        }
        var text = Substring(self)
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
