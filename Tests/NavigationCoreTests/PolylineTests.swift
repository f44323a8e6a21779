import NavigationCore
import PropertyBased
import Testing

@Suite("Polyline codec")
struct PolylineTests {
    /// The example from Google's polyline algorithm documentation (precision 5).
    static let googleExample = "_p~iF~ps|U_ulLnnqC_mqNvxq`@"
    static let googlePoints = [
        GeographicCoordinate(latitude: 38.5, longitude: -120.2),
        GeographicCoordinate(latitude: 40.7, longitude: -120.95),
        GeographicCoordinate(latitude: 43.252, longitude: -126.453),
    ]

    @Test func decodesTheDocumentedExample() throws {
        let decoded = try Polyline.decode(Self.googleExample, precision: 5)
        #expect(decoded.count == 3)
        for (a, b) in zip(decoded, Self.googlePoints) {
            #expect(abs(a.latitude - b.latitude) < 1e-9)
            #expect(abs(a.longitude - b.longitude) < 1e-9)
        }
    }

    @Test func encodesTheDocumentedExample() {
        #expect(Polyline.encode(Self.googlePoints, precision: 5) == Self.googleExample)
    }

    @Test func precisionSixScalesByTen() throws {
        // The same string read at precision 6 gives coordinates ten times smaller.
        let decoded = try Polyline.decode(Self.googleExample, precision: 6)
        #expect(abs(decoded[0].latitude - 3.85) < 1e-9)
        #expect(abs(decoded[2].longitude - -12.6453) < 1e-9)
    }

    @Test func emptyStringIsNoPoints() throws {
        #expect(try Polyline.decode("").isEmpty)
        #expect(Polyline.encode([]) == "")
    }

    @Test(arguments: [
        ("_p~iF", Polyline.DecodingError.truncated),
        ("_p~iF~ps|", Polyline.DecodingError.truncated),
        ("_p~i F~ps|U", Polyline.DecodingError.invalidCharacter(offset: 4)),
        ("_p~iF~ps|U\u{7f}", Polyline.DecodingError.invalidCharacter(offset: 10)),
        ("~~~~~~~~~~~~~~~~~?", Polyline.DecodingError.valueTooLarge(offset: 7)),
    ])
    func malformedInputThrows(input: String, expected: Polyline.DecodingError) {
        #expect(throws: expected) { try Polyline.decode(input, precision: 6) }
    }

    @Test(arguments: [5, 6])
    func roundTripIsWithinHalfAUnitOfPrecision(precision: Int) async {
        let tolerance = 0.5 * pow10(-precision) + 1e-12
        let coordinate = zip(Gen.double(in: -90...90), Gen.double(in: -180...180))
            .map { GeographicCoordinate(latitude: $0, longitude: $1) }
        await propertyCheck(count: 300, input: coordinate.array(of: 0...40)) { points in
            let decoded = try? Polyline.decode(Polyline.encode(points, precision: precision), precision: precision)
            #expect(decoded?.count == points.count)
            for (a, b) in zip(decoded ?? [], points) {
                #expect(abs(a.latitude - b.latitude) <= tolerance)
                #expect(abs(a.longitude - b.longitude) <= tolerance)
            }
        }
    }

    @Test func arbitraryTextNeverTrapsAndDecodesStably() async {
        // Any printable ASCII string either throws or decodes to points that survive a re-encode unchanged.
        let text = Gen.character(in: " "..."~").string(of: 0...60)
        await propertyCheck(count: 500, input: text) { input in
            do {
                let points = try Polyline.decode(input, precision: 6)
                let again = try Polyline.decode(Polyline.encode(points, precision: 6), precision: 6)
                #expect(again == points)
            } catch {
                #expect(error is Polyline.DecodingError)
            }
        }
    }
}

func pow10(_ exponent: Int) -> Double {
    var result = 1.0
    for _ in 0..<abs(exponent) { result *= 10 }
    return exponent < 0 ? 1 / result : result
}
