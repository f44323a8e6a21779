import Foundation
import Guidance
import NavigationCore
import RouteAdapters
import Testing

@Suite("Instruction synthesis for plain OSRM")
struct InstructionSynthesisTests {
    typealias Context = InstructionSynthesizer.ManeuverContext
    let synthesizer = InstructionSynthesizer()

    static let cases: [(Context, String)] = [
        (Context(type: .depart, roadName: "Kaivokatu", bearingAfter: 228), "Head southwest on Kaivokatu"),
        (Context(type: .depart, bearingAfter: 2), "Head north"),
        (Context(type: .turn, modifier: .left, roadName: "Mikonkatu"), "Turn left onto Mikonkatu"),
        (Context(type: .turn, modifier: .sharpRight), "Turn sharp right"),
        (Context(type: .turn, modifier: .straight, roadName: "Unioninkatu"), "Go straight onto Unioninkatu"),
        (Context(type: .turn, modifier: .uTurn), "Make a U-turn"),
        (Context(type: .continue, modifier: .uTurn, roadName: "Kaivokatu"), "Make a U-turn onto Kaivokatu"),
        (Context(type: .newName, modifier: .straight, roadName: "Kaisaniemenkatu"), "Continue onto Kaisaniemenkatu"),
        (Context(type: .newName, modifier: .slightLeft, roadName: "Yliopistonkatu"), "Continue slight left onto Yliopistonkatu"),
        (Context(type: .continue, roadName: "Mannerheimintie", roadRef: "E12"), "Continue on Mannerheimintie (E12)"),
        (Context(type: .merge, modifier: .slightRight, roadRef: "E18"), "Merge right onto E18"),
        (Context(type: .onRamp, modifier: .left, roadRef: "E75"), "Take the ramp on the left onto E75"),
        (Context(type: .offRamp, modifier: .slightRight, destinations: "Turku, Espoo", exits: ["12A"]), "Take exit 12A on the right toward Turku, Espoo"),
        (Context(type: .offRamp, modifier: .right, roadName: "Kehä I"), "Take the ramp on the right onto Kehä I"),
        (Context(type: .fork, modifier: .slightLeft, roadName: "Hämeentie"), "Keep left at the fork onto Hämeentie"),
        (Context(type: .endOfRoad, modifier: .left, roadName: "Simonkatu"), "Turn left at the end of the road onto Simonkatu"),
        (Context(type: .roundabout, roadName: "Bulevardi", roundaboutExit: 2), "Enter the roundabout and take the 2nd exit onto Bulevardi"),
        (Context(type: .rotary, roundaboutExit: 3, rotaryName: "Pendleton Roundabout"), "Enter Pendleton Roundabout and take the 3rd exit"),
        (Context(type: .roundabout), "Enter the roundabout"),
        (Context(type: .roundaboutTurn, modifier: .right, roadName: "Gerald Road"), "At the roundabout, turn right onto Gerald Road"),
        (Context(type: .exitRoundabout, roadName: "Crescent"), "Exit the roundabout onto Crescent"),
        (Context(type: .arrive, modifier: .right), "You have arrived at your destination, on the right"),
        (Context(type: .arrive, legIndex: 0, isFinalLeg: false), "You have arrived at your 1st destination"),
        (Context(type: .arrive, modifier: .straight, legIndex: 2, isFinalLeg: false), "You have arrived at your 3rd destination, straight ahead"),
        (Context(type: .other("teleport"), modifier: .left, roadName: "Somewhere"), "Continue left onto Somewhere"),
        (Context(type: .notification), "Continue straight"),
    ]

    @Test(arguments: cases)
    func writesEnglishInstructions(context: Context, expected: String) {
        #expect(synthesizer.instruction(for: context) == expected)
    }

    @Test(arguments: [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st"), (102, "102nd")])
    func ordinals(n: Int, expected: String) {
        #expect(synthesizer.ordinal(n) == expected)
    }

    @Test func plainOSRMRouteGetsInstructionsBannersAndPrompts() throws {
        let route = try #require(try OSRMResponseParser().parseRoutes(from: Fixture.data("helsinki_osrm_plain")).first)
        #expect(route.steps.map(\.instruction) == [
            "Head southwest on Kaivokatu",
            "Turn right",
            "Make a U-turn",
            "Turn left at the end of the road onto Simonkatu",
            "Continue onto Kaivokatu",
            "Turn right onto Mikonkatu",
            "Continue left onto Yliopistonkatu",
            "Turn right onto Fabianinkatu",
            "Turn sharp left",
            "You have arrived at your destination, on the right",
        ])
        for (index, step) in route.steps.enumerated() {
            #expect(!step.spokenInstructions.isEmpty, "step \(index)")
            #expect(step.spokenInstructions.allSatisfy { $0.ssml == "<speak>\($0.text)</speak>" })
            if index < route.steps.count - 1 {
                let next = route.steps[index + 1]
                // The last prompt of a step speaks the next maneuver; the banner shows it for the whole step.
                #expect(step.spokenInstructions.last?.text.hasSuffix(next.instruction.dropFirst()) == true)
                #expect(step.visualInstructions.count == 1)
                #expect(step.visualInstructions[0].triggerDistanceBeforeManeuver == step.distance)
                #expect(step.visualInstructions[0].primary.maneuverType == next.maneuver.type)
            }
        }
        // The departure step is 83 m: shorter than the 80 m final prompt plus the 40 m merge distance.
        #expect(route.steps[0].spokenInstructions.map(\.text) == ["Head southwest on Kaivokatu, then turn right"])
        #expect(route.steps[0].spokenInstructions[0].triggerDistanceBeforeManeuver == 83)
        // A named road is what the banner shows.
        #expect(route.steps[4].visualInstructions[0].primary.text == "Mikonkatu")
        // Steps of 176.5 m get one prompt at 80 m.
        #expect(route.steps[1].spokenInstructions.map(\.triggerDistanceBeforeManeuver) == [80])
        // Lanes from the OSRM intersection at the next maneuver.
        let lanes = route.steps[4].visualInstructions[0].lanes
        #expect(lanes.count == 2)
        #expect(lanes.contains { $0.active })
    }

    @Test func longStepsGetAdvanceNotices() throws {
        let planner = PromptPlanner()
        let next = NextManeuver(
            instruction: "Turn left onto Mikonkatu", type: .turn, modifier: .left, displayName: "Mikonkatu", destinations: nil,
            exits: [], lanes: [])
        let prompts = planner.prompts(forStepOfLength: 2000, next: next, departure: nil)
        #expect(prompts.map(\.0) == ["In 1 kilometer, turn left onto Mikonkatu", "In 400 meters, turn left onto Mikonkatu", "Turn left onto Mikonkatu"])
        #expect(prompts.map(\.1) == [1000, 400, 80])
        let medium = planner.prompts(forStepOfLength: 700, next: next, departure: "Head north on Bulevardi")
        #expect(medium.map(\.0) == ["Head north on Bulevardi", "In 400 meters, turn left onto Mikonkatu", "Turn left onto Mikonkatu"])
        #expect(medium.map(\.1) == [700, 400, 80])
        #expect(planner.prompts(forStepOfLength: 30, next: next, departure: nil).map(\.1) == [30])
    }

    @Test func twoLegRouteAnnouncesTheIntermediateStop() throws {
        let route = try #require(try OSRMResponseParser().parseRoutes(from: Fixture.data("helsinki_osrm_two_legs")).first)
        #expect(route.legCount == 2)
        #expect(route.waypoints.count == 3)
        let arrivals = route.steps.filter { $0.maneuver.type == .arrive }
        #expect(arrivals.map(\.instruction) == [
            "You have arrived at your 1st destination, on the right", "You have arrived at your destination, on the left",
        ])
        let departures = route.steps.filter { $0.maneuver.type == .depart }
        #expect(departures.count == 2)
        #expect(departures.allSatisfy { $0.spokenInstructions.first?.text.hasPrefix("Head") == true })
    }

    @Test func ssmlIsEscaped() {
        #expect(PromptPlanner().ssml("Turn onto A & B <\"x\">") == "<speak>Turn onto A &amp; B &lt;&quot;x&quot;&gt;</speak>")
        // A mark combined with an escaped character does not hide it; other characters pass as they are.
        #expect(PromptPlanner().ssml("Käänny <\u{301} 'Ö'\u{308} 東京 🚗") == "<speak>Käänny &lt;\u{301} &apos;Ö&apos;\u{308} 東京 🚗</speak>")
    }

    static func catalog(_ language: String) throws -> GuidanceCatalog {
        let tag = try #require(LanguageTag(language))
        return try #require(ShippedLanguages.catalog(for: tag))
    }

    /// The same maneuvers in each language navd ships: its own words, its word order, no placeholder left.
    static let translated: [(language: String, context: Context, expected: String)] = [
        ("de", Context(type: .turn, modifier: .right, roadName: "Kaivokatu"), "Rechts auf Kaivokatu abbiegen"),
        ("de", Context(type: .roundabout, roadName: "Bulevardi", roundaboutExit: 2), "In den Kreisverkehr fahren und die 2. Ausfahrt nehmen auf Bulevardi"),
        ("de", Context(type: .arrive, modifier: .left), "Sie haben Ihr Ziel erreicht, es liegt links"),
        ("fr", Context(type: .turn, modifier: .slightLeft), "Tournez légèrement à gauche"),
        ("fr", Context(type: .arrive, legIndex: 0, isFinalLeg: false), "Vous êtes arrivé à votre 1re étape"),
        ("es", Context(type: .depart, roadName: "Bulevardi", bearingAfter: 50), "Diríjase al noreste por Bulevardi"),
        ("fi", Context(type: .turn, modifier: .left, roadName: "Mikonkatu"), "Käänny vasemmalle tielle Mikonkatu"),
        ("sv", Context(type: .offRamp, modifier: .right, destinations: "Åbo", exits: ["12"]), "Ta avfart 12 till höger mot Åbo"),
        ("sv", Context(type: .rotary, roundaboutExit: 2), "Kör in i cirkulationsplatsen och ta 2:a avfarten"),
    ]

    @Test(arguments: translated)
    func writesTheDriversLanguage(language: String, context: Context, expected: String) throws {
        let catalog = try Self.catalog(language)
        #expect(InstructionSynthesizer(catalog: catalog).instruction(for: context) == expected)
    }

    /// Every maneuver of the English table, in every language: filled, not English (a mixed-language prompt is a
    /// peer's known defect), capitalized.
    @Test(arguments: ["de", "fr", "es", "fi", "sv"])
    func noPlaceholderOrEnglishIsLeftInAnotherLanguage(language: String) throws {
        let catalog = try Self.catalog(language)
        let synthesizer = InstructionSynthesizer(catalog: catalog)
        for (context, english) in Self.cases {
            let text = synthesizer.instruction(for: context)
            #expect(!text.contains("{") && !text.contains("}"), "\(language): \(text)")
            #expect(text != english && !text.contains(" onto ") && !text.hasPrefix("Turn ") && !text.hasPrefix("Continue "), "\(language): \(text)")
            #expect(text.first?.isUppercase == true, "\(language): \(text)")
        }
    }

    /// A plain OSRM answer parsed for a German driver: German prompts with metres; for an American one, miles and
    /// feet in the prompts and no metres.
    @Test func plainOSRMPromptsSpeakTheDriversLanguageAndUnits() throws {
        let data = try Fixture.data("helsinki_osrm_plain")
        let german = try #require(try OSRMResponseParser(locale: InstructionLocale(language: "de-DE", imperial: false)).parseRoutes(from: data).first)
        #expect(german.steps[0].spokenInstructions.map(\.text) == ["Auf Kaivokatu Richtung Südwesten fahren, dann rechts abbiegen"])
        #expect(german.steps.last?.instruction == "Sie haben Ihr Ziel erreicht, es liegt rechts")

        let planner = PromptPlanner(catalog: ShippedLanguages.english, units: .imperial)
        let next = NextManeuver(
            instruction: "Turn left onto Mikonkatu", type: .turn, modifier: .left, displayName: "Mikonkatu", destinations: nil, exits: [], lanes: [])
        let prompts = planner.prompts(forStepOfLength: 3000, next: next, departure: nil)
        #expect(prompts.map(\.0) == ["In 1 mile, turn left onto Mikonkatu", "In 0.3 miles, turn left onto Mikonkatu", "Turn left onto Mikonkatu"])
        let finnish = PromptPlanner(catalog: try Self.catalog("fi"), units: .metric)
        #expect(finnish.prompts(forStepOfLength: 700, next: next, departure: nil).first?.0 == "Matkaa 400 metriä: turn left onto Mikonkatu")
    }
}
