import Foundation
import PropertyBased
import Testing

@testable import NavigationCore

/// The hand-written `trip_state` text (``JSONTextWritable``) is byte for byte what the generic encoder writes.
@Suite struct TripStateTextTests {
    @Test func randomRecordsWriteTheEncodersBytes() async {
        await propertyCheck(count: 3000, input: Gen.int(in: 0...Int.max)) { seed in
            let record = RandomTripState(seed: UInt64(seed)).record()
            #expect(Self.handWritten(record) == Self.encoded(record), "seed \(seed)")
        }
    }

    /// Every optional member present, then every one absent: no key is misspelt, left out or out of order.
    @Test(arguments: [true, false]) func everyMember(present: Bool) {
        let random = RandomTripState(seed: 7, presence: present ? 1 : 0)
        let record = random.record()
        #expect(Self.handWritten(record) == Self.encoded(record))
        if present {
            let text = Self.handWritten(record)
            for key in ["approach", "arrival", "congestion", "freeDrive", "predicted", "roadAhead", "speedAlert", "lowerLimitAhead", "lanes", "ssml"] {
                #expect(text.contains("\"\(key)\":"), "\(key)")
            }
        }
    }

    @Test(arguments: [
        "plain", "", "quote \" and backslash \\", "tab\tnewline\ncarriage\r", "\u{1}\u{1f}\u{7f}", "Mannerheimintie – Pohjoisesplanadi",
        "日本語のテキスト", "emoji 🚗➡️", "</script>",
    ])
    func stringsAreEscapedAsTheEncoderEscapesThem(text: String) {
        var record = TripStateRecord(.idle, time: Date(timeIntervalSince1970: 0))
        record.roadName = text
        record.freeDrive = .init(status: text, detail: text)
        record.spokenInstruction = SpokenInstruction(text: text, ssml: text, triggerDistanceBeforeManeuver: 1, utteranceId: text)
        #expect(Self.handWritten(record) == Self.encoded(record))
    }

    @Test(arguments: [0.0, -0.0, 1, -1, 0.1, 12.345, 1e15, 1e15 + 2, -1e15, 1e21, 1e-7, 5e-324, .nan, .infinity, -.infinity, .greatestFiniteMagnitude])
    func numbersAreWrittenAsTheEncoderWritesThem(value: Double) {
        var record = TripStateRecord(.idle, time: Date(timeIntervalSince1970: 0))
        record.distanceTravelled = value
        record.progress = TripProgress(distanceToNextManeuver: value, distanceRemaining: -value, durationRemaining: value / 3)
        record.speedLimit = .init(value: value, unit: "km/h")
        #expect(Self.handWritten(record) == Self.encoded(record))
    }

    @Test(arguments: [0, 1, -1, 999_999_999_999_999, 1_000_000_000_000_001, Int.max, Int.min])
    func integersAreWrittenAsTheEncoderWritesThem(value: Int) {
        var record = TripStateRecord(.idle, time: Date(timeIntervalSince1970: 0))
        record.stepIndex = value
        record.remainingSteps = value
        #expect(Self.handWritten(record) == Self.encoded(record))
    }

    static func handWritten(_ record: TripStateRecord) -> String {
        String(decoding: JSONOutput.bytes { record.writeJSON(into: &$0) }, as: UTF8.self)
    }

    static func encoded(_ record: TripStateRecord) -> String {
        String(decoding: (try? JSONTextEncoder().encode(record)) ?? [], as: UTF8.self)
    }
}

/// Trip states with every member present or absent at random (the core's seeded generator: a failing seed repeats).
final class RandomTripState {
    private var generator: NavigationCore.SeededRandomNumberGenerator
    /// The chance of each optional member being present; nil: a random chance per record.
    private var presence: Double?

    init(seed: UInt64, presence: Double? = nil) {
        generator = NavigationCore.SeededRandomNumberGenerator(seed: seed)
        self.presence = presence
    }

    func record() -> TripStateRecord {
        if presence == nil { presence = unit() }
        var record = TripStateRecord(.idle, time: Date(timeIntervalSince1970: 0))
        record.state = pick(["idle", "navigating", "complete"])
        record.time = text()
        record.rawLocation = maybe { point() }
        record.snappedLocation = maybe { point() }
        record.stepIndex = maybe { integer() }
        record.remainingSteps = maybe { integer() }
        record.remainingWaypoints = maybe { integer() }
        record.progress = maybe { TripProgress(distanceToNextManeuver: number(), distanceRemaining: number(), durationRemaining: number()) }
        record.deviation = maybe { .init(kind: text(), distance: number()) }
        record.roadName = maybe { text() }
        record.visualInstruction = maybe {
            VisualInstruction(
                primary: content(), secondary: maybe { content() }, sub: maybe { content() }, triggerDistanceBeforeManeuver: number())
        }
        record.spokenInstruction = maybe {
            SpokenInstruction(text: text(), ssml: maybe { text() }, triggerDistanceBeforeManeuver: number(), utteranceId: text())
        }
        record.speedLimit = maybe { .init(value: number(), unit: text()) }
        record.speedAlert = maybe {
            SpeedAlert(
                level: pick([.none, .minor, .major]), limit: maybe { number() }, unit: text(), speed: maybe { number() },
                lowerLimitAhead: maybe { .init(limit: number(), unit: text(), distance: number()) })
        }
        record.freeDrive = maybe { .init(status: text(), detail: maybe { text() }) }
        record.arrival = maybe {
            .init(
                time: text(), durationRemaining: number(), pace: number(),
                waypoints: list { .init(index: integer(), time: text(), durationRemaining: number()) })
        }
        record.roadAhead = maybe {
            list { RoadObjectAhead(kind: text(), distance: number(), length: maybe { number() }, name: maybe { text() }, detail: maybe { text() }) }
        }
        record.congestion = maybe { text() }
        record.distanceTravelled = maybe { number() }
        record.predicted = maybe { next() % 2 == 0 }
        record.approach = maybe {
            .init(
                distance: number(), bearing: number(), lat: number(), lon: number(), roadName: maybe { text() },
                originSnapDistance: maybe { number() })
        }
        return record
    }

    private func content() -> VisualInstructionContent {
        VisualInstructionContent(
            text: text(), maneuverType: maybe { ManeuverType(name: pick(["turn", "end of road", "roundabout", "something new"])) },
            maneuverModifier: maybe { ManeuverModifier(name: pick(["left", "slight right", "uturn", "sideways"])) },
            roundaboutExitDegrees: maybe { number() }, exitNumbers: list { text() },
            lanes: list { LaneInfo(active: next() % 2 == 0, directions: list { text() }, activeDirection: maybe { text() }) })
    }

    private func point() -> TripStateRecord.Point {
        .init(lat: number(), lon: number(), course: maybe { number() }, speed: maybe { number() })
    }

    private func next() -> UInt64 { generator.next() }

    private func unit() -> Double { generator.nextUniform() }

    private func maybe<T>(_ make: () -> T) -> T? {
        let present = unit() < presence!
        return present ? make() : nil
    }

    private func pick<T>(_ options: [T]) -> T { options[Int(next() % UInt64(options.count))] }

    private func list<T>(_ make: () -> T) -> [T] {
        (0..<Int(next() % 4)).map { _ in make() }
    }

    private func integer() -> Int { pick([0, 1, 7, 42, 1000, Int(next() % 1_000_000), -3]) }

    /// Whole, fractional, rounded as navd rounds, huge, tiny and non-finite numbers.
    private func number() -> Double {
        let magnitude = Double(next() % 100_000) / 100
        return pick([magnitude, -magnitude, (magnitude * 7).rounded(), 1e16 + magnitude, 1e-9 * magnitude, .nan, .infinity, 0])
    }

    private static let pieces = ["a", "Bulevardi", " ", "\"", "\\", "\n", "\u{1}", "ä", "日", "🚗", "é", "/", "<", "0"]

    private func text() -> String {
        (0..<Int(next() % 6)).map { _ in pick(Self.pieces) }.joined()
    }
}
