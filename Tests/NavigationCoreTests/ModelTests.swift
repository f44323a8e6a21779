import Foundation
import NavigationCore
import PropertyBased
import Testing

@Suite("Models")
struct ModelTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", 0.0),
        ("2026-11-21T06:08:10.250Z", 1_795_241_290.25),
        ("2000-02-29T23:59:59.999Z", 951_868_799.999),
        ("1999-12-31T22:00:00.000-02:00", 946_684_800.0),
    ])
    func parsesISO8601(text: String, seconds: Double) throws {
        let date = try #require(ISO8601Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: ["", "2026-11-21", "2026-13-01T00:00:00Z", "2026-11-21T25:00:00Z", "2026-11-21T06:08:10.Z", "2026-11-21T06:08:10Zjunk"])
    func rejectsMalformedTimestamps(text: String) {
        #expect(ISO8601Timestamp.parse(text) == nil)
    }

    @Test func timestampFormatRoundTrips() async {
        await propertyCheck(count: 300, input: Gen.int(in: -2_000_000_000_000...4_000_000_000_000)) { millis in
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let text = ISO8601Timestamp.format(date)
            #expect(text.hasSuffix("Z"))
            let parsed = ISO8601Timestamp.parse(text)
            #expect(parsed.map { abs($0.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005 } == true)
        }
    }

    /// Every part of a formatted time is the C library's calendar for the same second (glibc's `gmtime_r`, an
    /// independent reference), over all the years it writes (0000 to 9999).
    @Test func timestampFormatMatchesTheCLibrarysCalendar() async {
        await propertyCheck(count: 500, input: Gen.int(in: ISO8601Timestamp.formattableMillis)) { millis in
            let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
            var time = time_t(seconds)
            var calendar = tm()
            #expect(gmtime_r(&time, &calendar) != nil)
            func digits(_ value: Int32, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            let expected = "\(digits(calendar.tm_year + 1900, 4))-\(digits(calendar.tm_mon + 1, 2))-\(digits(calendar.tm_mday, 2))T"
                + "\(digits(calendar.tm_hour, 2)):\(digits(calendar.tm_min, 2)):\(digits(calendar.tm_sec, 2)).\(digits(Int32(millis - seconds * 1000), 3))Z"
            #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: Double(millis) / 1000)) == expected)
        }
    }

    @Test func userLocationJSONRoundTrips() throws {
        let location = UserLocation(
            coordinate: GeographicCoordinate(latitude: 60.1699, longitude: 24.9384), horizontalAccuracy: 4.5,
            course: CourseOverGround(degrees: 87, accuracy: 5), speed: Speed(metersPerSecond: 13.4, accuracy: 0.3),
            timestamp: Date(timeIntervalSince1970: 1_795_241_290.25))
        let data = try JSONEncoder().encode(location)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""time":"2026-11-21T06:08:10.250Z""#))
        #expect(text.contains(#""lat":60.1699"#))
        #expect(try JSONDecoder().decode(UserLocation.self, from: data) == location)
    }

    @Test func userLocationWithoutCourseOrSpeedOmitsThem() throws {
        let json = #"{"lat":60.1,"lon":24.9,"accuracy":3,"time":"2026-11-21T06:08:10Z"}"#
        let location = try JSONDecoder().decode(UserLocation.self, from: Data(json.utf8))
        #expect(location.course == nil)
        #expect(location.speed == nil)
        #expect(location.horizontalAccuracy == 3)
        let text = String(decoding: try JSONEncoder().encode(location), as: UTF8.self)
        #expect(!text.contains("course"))
    }

    @Test func userLocationWithABadTimeSaysWhatIsWrong() {
        let json = #"{"lat":60.1,"lon":24.9,"time":"yesterday"}"#
        #expect {
            try JSONDecoder().decode(UserLocation.self, from: Data(json.utf8))
        } throws: { error in
            "\(error)".contains("'yesterday' is not an ISO 8601 UTC time")
        }
    }

    @Test(arguments: [(-90.0, 270.0), (450, 90), (360, 0), (359.5, 359.5)])
    func courseIsNormalized(input: Double, expected: Double) {
        #expect(CourseOverGround(degrees: input).degrees == expected)
    }

    @Test func accuracyConversionFrom95To68Percent() {
        // A 95% radius of 2.4477σ becomes a 68% radius of 1.5096σ.
        #expect(abs(UserLocation.accuracy68(fromConfidence95: 24.477) - 15.096) < 0.01)
    }

    @Test func utteranceIDsAreDeterministicAndDistinct() {
        let a = SpokenInstruction.utteranceID(stepIndex: 3, indexInStep: 0, text: "Turn left onto Mikonkatu")
        #expect(a == SpokenInstruction.utteranceID(stepIndex: 3, indexInStep: 0, text: "Turn left onto Mikonkatu"))
        #expect(a.count == 16)
        #expect(a != SpokenInstruction.utteranceID(stepIndex: 4, indexInStep: 0, text: "Turn left onto Mikonkatu"))
        #expect(a != SpokenInstruction.utteranceID(stepIndex: 3, indexInStep: 1, text: "Turn left onto Mikonkatu"))
        #expect(a != SpokenInstruction.utteranceID(stepIndex: 3, indexInStep: 0, text: "Turn right onto Mikonkatu"))
        // Index boundaries are delimited: step 1 prompt 23 differs from step 12 prompt 3.
        #expect(
            SpokenInstruction.utteranceID(stepIndex: 1, indexInStep: 23, text: "x")
                != SpokenInstruction.utteranceID(stepIndex: 12, indexInStep: 3, text: "x"))
    }

    /// Ids are kept by clients and recordings across runs: written without a `String` per index and per hex text,
    /// they are still the hash of the indexes' decimal text and the prompt's, as 16 hex digits with zeros in front.
    @Test(arguments: [0, 1, 9, 10, 99, 100, 101, 999, 1000, 12_345, Int(Int32.max), Int.max, -1, -10, Int.min])
    func utteranceIDsAreTheHashOfTheTexts(stepIndex: Int) {
        for (indexInStep, text) in [(0, "Turn left onto Mikonkatu"), (7, ""), (10, "Käänny oikealle"), (123_456, "x")] {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array("\(stepIndex)\u{1f}\(indexInStep)\u{1f}\(text)".utf8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let hex = String(hash, radix: 16)
            let expected = String(repeating: "0", count: 16 - hex.count) + hex
            #expect(SpokenInstruction.utteranceID(stepIndex: stepIndex, indexInStep: indexInStep, text: text) == expected)
        }
    }

    @Test(arguments: ["turn", "new name", "end of road", "exit roundabout", "roundabout turn", "use lane"])
    func knownManeuverTypesRoundTripTheirNames(name: String) {
        let type = ManeuverType(name: name)
        if case .other = type { Issue.record("\(name) was not recognised") }
        #expect(type.name == name)
    }

    /// Every name of the OSRM/Mapbox vocabulary, as the API writes it and in capitals with underscores: each is a
    /// case of its own (none read as another, none kept as ``ManeuverType/other(_:)``) and writes the API's name.
    @Test func everyManeuverNameIsReadAsItsOwnCaseInAnySpelling() {
        let types = [
            "turn", "new name", "depart", "arrive", "merge", "on ramp", "off ramp", "fork", "end of road", "continue", "roundabout",
            "rotary", "roundabout turn", "exit roundabout", "exit rotary", "notification", "use lane",
        ]
        let modifiers = ["uturn", "sharp right", "right", "slight right", "straight", "slight left", "left", "sharp left"]
        Self.expectEachIsItsOwnCase(types, as: ManeuverType.self)
        Self.expectEachIsItsOwnCase(modifiers, as: ManeuverModifier.self)
    }

    static func expectEachIsItsOwnCase<Named: NamedManeuver>(_ names: [String], as: Named.Type) {
        for name in names {
            let value = Named(name: name)
            #expect(!value.isOther, "\(name) was not recognised")
            #expect(value.name == name)
            #expect(Named(name: name.uppercased().replacingOccurrences(of: " ", with: "_")) == value)
        }
        #expect(Set(names.map { Named(name: $0) }).count == names.count)
    }

    @Test func unknownManeuverNamesAreKept() throws {
        let type = ManeuverType(name: "teleport")
        #expect(type == .other("teleport"))
        #expect(type.name == "teleport")
        let modifier = try JSONDecoder().decode(ManeuverModifier.self, from: Data(#""slightly sideways""#.utf8))
        #expect(modifier == .other("slightly sideways"))
    }

    @Test func jsonValueMergesObjectsDeeply() {
        let base: JSONValue = ["costing": "auto", "costing_options": ["auto": ["use_tolls": 1, "use_highways": 1]]]
        let merged = base.merging(["costing_options": ["auto": ["use_tolls": 0]], "units": "miles"])
        #expect(merged["costing"] == "auto")
        #expect(merged["units"] == "miles")
        #expect(merged["costing_options"]?["auto"]?["use_tolls"] == 0)
        #expect(merged["costing_options"]?["auto"]?["use_highways"] == 1)
    }

    @Test func jsonValueKeepsIntegersIntegral() throws {
        let text = String(decoding: try JSONEncoder().encode(JSONValue.array([3, 2.5, true, nil, "x"])), as: UTF8.self)
        #expect(text == #"[3,2.5,true,null,"x"]"#)
    }

    @Test(arguments: [
        (0.0, "0 m"), (42, "40 m"), (97, "95 m"), (850, "850 m"), (994, "990 m"), (1_234, "1.2 km"), (12_600, "13 km"),
    ])
    func humanReadableDistances(meters: Double, expected: String) {
        #expect(HumanReadable.distance(meters) == expected)
    }

    @Test(arguments: [(45.0, "45 s"), (200, "3 min"), (3_900, "1 h 05 min"), (7_200, "2 h 00 min")])
    func humanReadableDurations(seconds: Double, expected: String) {
        #expect(HumanReadable.duration(seconds) == expected)
    }

    @Test func annotationAccessorsReadTypedValues() {
        let annotation = SegmentAnnotation(values: [
            "speed": 13.9, "maxspeed": ["speed": 50, "unit": "km/h"], "congestion": "heavy", "distance": 25, "duration": 1.8,
            "custom": ["anything": true],
        ])
        #expect(annotation.speed == 13.9)
        #expect(annotation.maxSpeed == .limit(value: 50, unit: .kilometersPerHour))
        #expect(abs((annotation.maxSpeed?.metersPerSecond ?? 0) - 13.888) < 0.001)
        #expect(annotation.congestion == "heavy")
        #expect(annotation.distance == 25)
        #expect(annotation.duration == 1.8)
        #expect(annotation.values["custom"]?["anything"] == true)
        #expect(SegmentAnnotation(values: ["maxspeed": ["none": true]]).maxSpeed == MaxSpeed.none)
        #expect(SegmentAnnotation(values: ["maxspeed": ["unknown": true]]).maxSpeed == .unknown)
        #expect(SegmentAnnotation(values: ["maxspeed": ["speed": 30, "unit": "mph"]]).maxSpeed == .limit(value: 30, unit: .milesPerHour))
    }
}

/// A maneuver's type or modifier, read from and written as its API name.
protocol NamedManeuver: Hashable {
    init(name: String)
    var name: String { get }
    /// A name outside the vocabulary, kept as it came.
    var isOther: Bool { get }
}

extension ManeuverType: NamedManeuver {
    var isOther: Bool {
        if case .other = self { return true }
        return false
    }
}

extension ManeuverModifier: NamedManeuver {
    var isOther: Bool {
        if case .other = self { return true }
        return false
    }
}
