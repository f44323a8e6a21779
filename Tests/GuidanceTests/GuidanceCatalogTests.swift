import Guidance
import NavigationCore
import Testing

/// Every language navd ships has every text, with exactly the placeholders each takes; distances are rounded as
/// people say them in each unit system and written as each language writes numbers.
struct GuidanceCatalogTests {
    static let languages = ShippedLanguages.files.keys.sorted()

    @Test func navdShipsItsSixLanguages() {
        #expect(Self.languages == ["de", "en", "es", "fi", "fr", "sv"])
    }

    /// Texts that are rightly the same as English's ("In {distance}: ..." is German as well).
    static let sameAsEnglish: Set<String> = ["de.repeat_maneuver"]

    @Test(arguments: languages)
    func everyLanguageHasEveryTextWithItsPlaceholders(language: String) throws {
        let catalog = try GuidanceCatalog(json: try #require(ShippedLanguages.files[language]))
        #expect(catalog.language == language)
        #expect(catalog.problems.isEmpty, "\(language): \(catalog.problems)")
        let values = [
            "index": "2", "limit": "50 km/h", "distance": catalog.distance(300, units: .metric), "duration": catalog.quantity(3, decimals: 0, .minutes),
            "instruction": "…",
        ]
        for key in MessageKey.allCases {
            let text = catalog.text(key, values)
            #expect(!text.contains("{") && !text.contains("}"), "\(language).\(key.rawValue): \(text)")
            #expect(text != key.rawValue, "\(language).\(key.rawValue) fell back to its key")
        }
        // No English left in another language's texts (a mixed-language prompt is a peer's known defect).
        if language != "en" {
            let english = try GuidanceCatalog(json: ShippedLanguages.files["en"]!)
            for key in MessageKey.allCases where !Self.sameAsEnglish.contains("\(language).\(key.rawValue)") {
                #expect(catalog.text(key, values) != english.text(key, values), "\(language).\(key.rawValue) is the English text")
            }
        }
    }

    @Test func aFileWithAMissingTextOrAWrongPlaceholderSaysWhich() throws {
        let json = #"{"language":"xx","name":"X","decimalSeparator":".","plural":"one_is_exactly_one","units":{"metres":{"one":"{n} m","other":"m"}},"#
            + #""messages":{"arrived":"Done {where}.","rerouting":"R","bogus":"B"}}"#
        let catalog = try GuidanceCatalog(json: Array(json.utf8))
        #expect(catalog.problems.contains("messages.off_route is missing"))
        #expect(catalog.problems.contains("messages.arrived has placeholders [\"where\"], not []"))
        #expect(catalog.problems.contains("units.metres 'm' must have exactly the placeholder {n}"))
        #expect(catalog.problems.contains("units.miles is missing"))
        #expect(catalog.problems.contains("messages.bogus is not a key navd uses"))
        #expect(throws: CatalogError("'plural' must be one_is_exactly_one or one_is_below_two")) {
            try GuidanceCatalog(json: Array(#"{"language":"xx","name":"X","decimalSeparator":".","plural":"dual"}"#.utf8))
        }
        #expect(throws: CatalogError("not a JSON object")) { try GuidanceCatalog(json: Array("[1]".utf8)) }
    }

    struct Distance: Sendable, CustomTestStringConvertible {
        var metres: Double
        var units: UnitSystem
        var language: String
        var said: String
        var testDescription: String { "\(metres) m, \(units.rawValue), \(language)" }
    }

    static let distances: [Distance] = [
        Distance(metres: 7, units: .metric, language: "en", said: "10 meters"),
        Distance(metres: 94, units: .metric, language: "en", said: "90 meters"),
        Distance(metres: 96, units: .metric, language: "en", said: "100 meters"),
        Distance(metres: 262, units: .metric, language: "de", said: "250 Meter"),
        Distance(metres: 974, units: .metric, language: "fi", said: "950 metriä"),
        Distance(metres: 980, units: .metric, language: "en", said: "1 kilometer"),
        Distance(metres: 1234, units: .metric, language: "de", said: "1,2 Kilometer"),
        Distance(metres: 1500, units: .metric, language: "fr", said: "1,5 kilomètre"),
        Distance(metres: 2500, units: .metric, language: "fr", said: "2,5 kilomètres"),
        Distance(metres: 15_600, units: .metric, language: "sv", said: "16 kilometer"),
        Distance(metres: 20, units: .imperial, language: "en", said: "50 feet"),
        Distance(metres: 100, units: .imperial, language: "en", said: "350 feet"),
        Distance(metres: 160, units: .imperial, language: "en", said: "0.1 miles"),
        Distance(metres: 805, units: .imperial, language: "en", said: "0.5 miles"),
        Distance(metres: 1609.344, units: .imperial, language: "en", said: "1 mile"),
        Distance(metres: 1609.344, units: .imperial, language: "es", said: "1 milla"),
        Distance(metres: 16_093.44, units: .imperial, language: "en", said: "10 miles"),
        Distance(metres: 50, units: .imperialYards, language: "en", said: "50 yards"),
        Distance(metres: 402, units: .imperialYards, language: "en", said: "0.2 miles"),
        Distance(metres: .infinity, units: .metric, language: "en", said: "10 meters"),
    ]

    @Test(arguments: distances)
    func aDistanceIsRoundedAndSaidAsPeopleSayIt(_ example: Distance) throws {
        let catalog = try GuidanceCatalog(json: try #require(ShippedLanguages.files[example.language]))
        #expect(catalog.distance(example.metres, units: example.units) == example.said)
    }

    /// Rounding never moves a distance by more than half its step (10 m, 50 m, 0.1 km, 1 km; 50 ft, 10 yd, 0.1 mi,
    /// 1 mi): the said distance is honest.
    @Test(arguments: [UnitSystem.metric, .imperial, .imperialYards])
    func roundingStaysWithinHalfItsStep(units: UnitSystem) {
        let formatter = DistanceFormatter(units: units)
        let metresPer: [String: Double] = ["metres": 1, "kilometres": 1000, "feet": 0.3048, "yards": 0.9144, "miles": 1609.344]
        for metres in stride(from: 10.0, through: 30_000, by: 7.3) {
            let rounded = formatter.rounded(metres)
            let back = rounded.amount * metresPer[rounded.unit]!
            let step: Double
            switch rounded.unit {
            case "metres": step = rounded.amount < 100 ? 10 : 50
            case "kilometres": step = rounded.decimals == 1 ? 100 : 1000
            case "feet": step = 50 * 0.3048
            case "yards": step = 10 * 0.9144
            default: step = rounded.decimals == 1 ? 160.9344 : 1609.344
            }
            #expect(abs(back - metres) <= step / 2 + 1e-6, "\(metres) m said as \(rounded.amount) \(rounded.unit)")
        }
    }

    @Test(arguments: [("en-US", "en", "US" as String?, UnitSystem.imperial), ("en-GB", "en", "GB", .imperialYards), ("de_AT", "de", "AT", .metric),
                      ("fi", "fi", nil, .metric), ("sv-Latn-SE", "sv", "SE", .metric)])
    func aTagGivesItsLanguageRegionAndUsualUnits(tag: String, language: String, region: String?, units: UnitSystem) throws {
        let parsed = try #require(LanguageTag(tag))
        #expect(parsed.language == language && parsed.region == region)
        #expect(UnitSystem.usual(in: parsed.region) == units)
    }

    @Test(arguments: ["", "x", "english", "de--DE", "de-DE!", "12-DE"])
    func aMalformedTagIsRefused(tag: String) {
        #expect(LanguageTag(tag) == nil)
    }

    @Test func aLanguageNavdLacksFallsBackToEnglish() throws {
        let portuguese = try #require(LanguageTag("pt-BR"))
        let catalog = try #require(ShippedLanguages.catalog(for: portuguese))
        #expect(catalog.language == "en")
        let finnish = try #require(LanguageTag("fi-FI"))
        #expect(ShippedLanguages.catalog(for: finnish)?.text(.arrived) == "Olet saapunut perille.")
    }
}
