import Foundation
import Guidance
import NavigationCore
import Testing

@testable import RouteAdapters

/// An engine's answer in another language or units than navd asked for is recognised, and not passed on: navd
/// writes the instructions itself and says why.
struct InstructionCheckTests {
    struct Example: CustomTestStringConvertible, Sendable {
        var asked: String
        var imperial = false
        var texts: [String]
        /// Words the problem names; empty: no problem.
        var problem: [String]
        var testDescription: String { "\(asked)\(imperial ? " imperial" : ""): \(texts.first ?? "")" }
    }

    static let examples: [Example] = [
        Example(asked: "de-DE", texts: ["Rechts auf Kaivokatu abbiegen.", "In 200 Metern links abbiegen.", "Sie haben Ihr Ziel erreicht."], problem: []),
        Example(asked: "de-DE", texts: ["Turn right onto Kaivokatu.", "In 200 meters, turn left.", "Continue on Mannerheimintie."], problem: ["English", "Deutsch"]),
        // English words inside French prompts: two of eight texts is a mixed answer.
        Example(
            asked: "fr-FR",
            texts: ["Tournez à droite.", "Continuez sur Bulevardi.", "Turn left onto Mikonkatu.", "Prenez la sortie.", "Tournez à gauche.",
                    "Keep right at the fork.", "Continuez tout droit.", "Vous êtes arrivé."],
            problem: ["English"]),
        Example(asked: "fi", texts: ["Käänny oikealle.", "Jatka suoraan.", "Aja liikenneympyrään."], problem: []),
        Example(asked: "sv-SE", texts: ["Sväng höger.", "Fortsätt rakt fram.", "Kör mot norr."], problem: []),
        Example(asked: "es-ES", texts: ["Gire a la derecha.", "Continúe recto.", "Ha llegado a su destino."], problem: []),
        Example(asked: "de-DE", texts: ["In 2 Meilen rechts abbiegen.", "Links abbiegen."], problem: ["miles"]),
        Example(asked: "en-US", imperial: true, texts: ["In 500 feet, turn right.", "In 0.3 miles, turn left."], problem: []),
        Example(asked: "en-US", imperial: true, texts: ["In 500 meters, turn right.", "Turn left."], problem: ["metres"]),
        Example(asked: "en-GB", texts: ["In 0.5 miles, turn right.", "Turn left."], problem: ["miles"]),
        Example(asked: "sv-SE", texts: ["Om 2 engelska mil, sväng höger.", "Sväng vänster."], problem: ["miles"]),
        // English units in a German answer: another language's unit words count too.
        Example(asked: "de-DE", texts: ["In 2 miles rechts abbiegen.", "Links abbiegen."], problem: ["miles"]),
        // Road names that happen to be words of other languages are not a language.
        Example(asked: "en-US", texts: ["Turn right onto Rechts Straße.", "Continue on Mot Road.", "Turn left."], problem: []),
        // A language navd does not ship cannot be recognised: not judged.
        Example(asked: "it-IT", texts: ["Turn right.", "Continue."], problem: []),
    ]

    @Test(arguments: examples)
    func anAnswerInTheWrongLanguageOrUnitsIsRecognised(_ example: Example) {
        let problems = InstructionCheck(locale: InstructionLocale(language: example.asked, imperial: example.imperial)).problems(in: example.texts)
        if example.problem.isEmpty {
            #expect(problems.isEmpty, "\(problems)")
        } else {
            #expect(problems.count == 1, "\(problems)")
            #expect(example.problem.allSatisfy { word in problems.first?.contains(word) == true }, "\(problems)")
        }
    }

    /// A real Valhalla answer (English, in miles) parsed for a metric German driver: the route stays, its texts are
    /// navd's German ones in metres, and the route says why; for an American driver it is used as it came.
    @Test func anEnglishAnswerForAGermanDriverIsRewrittenAndSaysWhy() throws {
        let data = try Fixture.data("valhalla_osrm_response")
        let english = try #require(try OSRMResponseParser(locale: InstructionLocale(language: "en-US", imperial: true)).parseRoutes(from: data).first)
        #expect(english.notices.isEmpty, "\(english.notices)")
        let asIs = try #require(try OSRMResponseParser().parseRoutes(from: data).first)
        #expect(english == asIs)

        let german = try #require(try OSRMResponseParser(locale: InstructionLocale(language: "de-DE", imperial: false)).parseRoutes(from: data).first)
        #expect(german.notices.count == 2, "\(german.notices)")
        #expect(german.notices.contains { $0.contains("English") } && german.notices.contains { $0.contains("miles") }, "\(german.notices)")
        #expect(german.notices.allSatisfy { $0.hasSuffix("navd wrote the instructions itself") })
        #expect(german.geometry == english.geometry && german.steps.count == english.steps.count)
        let texts = InstructionCheck.texts(of: german)
        #expect(InstructionCheck(locale: InstructionLocale(language: "de-DE", imperial: false)).problems(in: texts).isEmpty, "\(texts)")
        #expect(german.steps.allSatisfy { !$0.spokenInstructions.isEmpty })
        // The notice travels with the route (the route event, navctl --json) and comes back from its JSON.
        let decoded = try JSONDecoder().decode(Route.self, from: try JSONEncoder().encode(german))
        #expect(decoded.notices == german.notices)
    }

    /// A route's texts in order, step by step: its instruction, its prompts, its banners' primary texts.
    @Test func aRoutesTextsAreEveryStepsInOrder() throws {
        let route = try #require(try OSRMResponseParser().parseRoutes(from: Fixture.data("valhalla_extended_osrm_response")).first)
        let expected = route.steps.flatMap { step in
            [step.instruction] + step.spokenInstructions.map(\.text) + step.visualInstructions.map(\.primary.text)
        }
        #expect(InstructionCheck.texts(of: route) == expected)
        #expect(expected.count > route.steps.count * 2)
    }

    /// Words are read by Unicode scalars: letters of any script lowercased, the marks on them kept (text in
    /// decomposed form), hyphens inside words, everything else a separator.
    @Test(arguments: [
        ("Käänny OIKEALLE Bulevardi-kadulle, 300 m.", ["käänny", "oikealle", "bulevardi-kadulle", "m"]),
        ("Cafe\u{301} Über\u{308}gang", ["cafe\u{301}", "über\u{308}gang"]),
        ("Tournez à droite sur l'Avenue", ["tournez", "à", "droite", "sur", "l", "avenue"]),
        ("  ", []),
    ])
    func wordsAreLowercaseLettersWithTheirMarks(text: String, expected: [String]) {
        var words: [String] = []
        InstructionCheck.forEachWord(of: text) { words.append(String(decoding: $0, as: UTF8.self)) }
        #expect(words == expected)
    }

    /// The words read from a text's bytes are the words read scalar by scalar (the model below, as the check read them
    /// before), for random texts of ASCII, letters with marks (composed and not), other scripts, letters whose
    /// lowercase is longer ("İ"), scalars of four bytes, digits, punctuation and white space.
    @Test(arguments: [UInt64(1), 2, 3])
    func wordsFromBytesAreTheWordsFromScalars(seed: UInt64) {
        let pieces = [
            "Turn", "RIGHT", "oikealle", "-", "Käänny", "e\u{301}", "\u{301}", "İ", "ß", "ΣΟΦΙΑ", "ς", "東京", "🚗", "𝔸", "ﬁ", "١٢",
            "300", "m", ".", ",", "'", " ", "\u{A0}", "\t", "Ǆ", "ǅ",
        ]
        var generator = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...10, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            var words: [String] = []
            InstructionCheck.forEachWord(of: text) { words.append(String(decoding: $0, as: UTF8.self)) }
            #expect(words == Self.wordsByScalars(text), "\(text.debugDescription)")
        }
    }

    /// The words of `text` read scalar by scalar, each made a `String`.
    static func wordsByScalars(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            let isMark = !word.isEmpty && [.nonspacingMark, .spacingMark, .enclosingMark].contains(properties.generalCategory)
            if (scalar.value >= 0x80 && properties.isAlphabetic) || isMark || (0x41...0x5A).contains(scalar.value)
                || (0x61...0x7A).contains(scalar.value) || scalar == "-"
            {
                word += properties.lowercaseMapping
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// A number followed by a unit word, one word or two, punctuation after it ignored; any Unicode space between.
    @Test(arguments: [
        ("In 300 metres, turn left", true), ("In 2 engelska mil, sväng", true), ("In 0.3\u{A0}miles.", true),
        ("Turn left onto Metres Road", false), ("300", false), ("In 300 feet", false),
    ])
    func aDistanceIsFoundByItsNumberAndUnit(text: String, found: Bool) {
        #expect(InstructionCheck.countsIn(["metres", "engelska mil", "miles"], text) == found)
    }

    /// The unit check reads each text's words once and lowercases only the words after a number; it must say what the
    /// check that lowercased and copied every word said, for any text: random texts of digits, unit words in several
    /// languages and cases, punctuation, ASCII and Unicode white space, letters with marks, other scripts' numbers
    /// (Arabic-Indic digits, fractions, Roman numerals) and a Greek final sigma.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func theUnitCheckSaysWhatTheCheckOfEveryWordSaid(seed: UInt64) {
        let pieces = [
            "2", "0.3", "500", "١٢", "½", "Ⅻ", "ⅻ", "In", "in", "miles", "Miles", "MILES", "mile", "Meilen", "engelska", "mil", "Mil",
            "feet", "yards", "metres", "meters", "km", "kilometres", "Kilometern", "ΜΊΛΙΑ", "μίλια", "ΟΔΟΣ", "ς", "turn", "Käänny",
            "oikealle", "İ", "ﬁ", "e\u{301}", ".", ",", "!", "?", ";", ":", "a.", " ", "  ", "\t", "\n", "\u{A0}", "\u{2003}", "\u{3000}", "-",
        ]
        let units: [Set<String>] = [
            ["miles", "mile", "meilen", "engelska mil", "feet", "yards", "μίλια"], ["metres", "meters", "km", "kilometern", "mil"],
        ]
        var generator = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...9, using: &generator) {
                text += pieces.randomElement(using: &generator)!
                if Bool.random(using: &generator) { text += " " }
            }
            for unitWords in units {
                #expect(InstructionCheck.countsIn(unitWords, text) == Self.countsInEveryWordLowercased(unitWords, text), "\(text.debugDescription)")
            }
        }
    }

    /// The unit check as it was: the whole text lowercased, split into words, each word copied.
    static func countsInEveryWordLowercased(_ units: Set<String>, _ text: String) -> Bool {
        let tokens = text.lowercased().unicodeScalars.split { scalar in
            scalar.value < 0x80 ? scalar == " " || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
        }.map { String(String.UnicodeScalarView($0)) }
        func trimmed(_ token: String) -> String {
            var text = Substring(token)
            while let last = text.last, ".,;:!?".contains(last) { text = text.dropLast() }
            return String(text)
        }
        for (index, token) in tokens.enumerated().dropLast() {
            guard let first = token.unicodeScalars.first, first.properties.numericType != nil else { continue }
            let next = trimmed(tokens[index + 1])
            if units.contains(next) { return true }
            if index + 2 < tokens.count, units.contains(tokens[index + 1] + " " + trimmed(tokens[index + 2])) { return true }
        }
        return false
    }
}
