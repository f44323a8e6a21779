import NavigationCore
import PropertyBased
import Testing

@Suite("Geodesy")
struct GeodesyTests {
    static let helsinki = GeographicCoordinate(latitude: 60.1699, longitude: 24.9384)

    @Test func oneDegreeOfLatitudeIsAnArcOfTheMeanRadius() {
        let a = GeographicCoordinate(latitude: 60, longitude: 24.9)
        let b = GeographicCoordinate(latitude: 61, longitude: 24.9)
        // π/180 × 6 371 008.8 m
        #expect(abs(Geodesy.distance(a, b) - 111_195.08) < 0.01)
    }

    @Test(arguments: [(0.0, 0.0), (90, 90), (180, 180), (270, 270), (45, 45)])
    func bearingOfShortHopsMatchesTheDirectionTravelled(direction: Double, expected: Double) {
        let target = Geodesy.destination(from: Self.helsinki, distance: 100, bearing: direction)
        #expect(Geodesy.angleBetween(Geodesy.bearing(from: Self.helsinki, to: target), expected) < 0.01)
        #expect(abs(Geodesy.distance(Self.helsinki, target) - 100) < 0.001)
    }

    @Test(arguments: [(10.0, 350.0, 20.0), (0, 180, 180), (90, 90, 0), (-30, 30, 60), (725, 5, 0)])
    func angleBetweenIsTheSmallerAngle(a: Double, b: Double, expected: Double) {
        #expect(abs(Geodesy.angleBetween(a, b) - expected) < 1e-9)
    }

    static let nearby = zip(Gen.double(in: -0.05...0.05), Gen.double(in: -0.05...0.05))
        .map { GeographicCoordinate(latitude: 60.17 + $0, longitude: 24.94 + $1) }

    @Test func distanceIsASymmetricMetric() async {
        await propertyCheck(count: 300, input: Self.nearby, Self.nearby, Self.nearby) { a, b, c in
            let ab = Geodesy.distance(a, b), bc = Geodesy.distance(b, c), ac = Geodesy.distance(a, c)
            #expect(ab >= 0)
            #expect(abs(ab - Geodesy.distance(b, a)) < 1e-6)
            #expect(ac <= ab + bc + 1e-6)
            #expect(Geodesy.distance(a, a) == 0)
        }
    }

    /// A polyline's walk takes each point's cosine from the segment before: the same lengths, to the bit, as each
    /// segment's own ``Geodesy/distance(_:_:)``, for the polyline and for a route's index of it.
    @Test func walksAlongAPolylineAreItsSegmentsToTheBit() async {
        await propertyCheck(count: 300, input: Self.nearby.array(of: 1...20)) { line in
            var sum = 0.0
            var running: [Double] = [0]
            for i in line.indices.dropFirst() {
                sum += Geodesy.distance(line[i - 1], line[i])
                running.append(sum)
            }
            #expect(Geodesy.length(of: line) == (line.count > 1 ? sum : 0))
            let step = RouteStep(
                geometry: line, distance: sum, duration: 60, instruction: "Drive", maneuver: Maneuver(type: .depart, location: line[0]))
            let index = RouteIndex(route: Route(geometry: line, distance: sum, duration: 60, waypoints: [], steps: [step]))
            // A point that repeats the one before is a segment of no length (only a step's first point is dropped).
            #expect(index.cumulativeDistance == (line.count > 1 ? running : [0, 0]))
        }
    }

    @Test func destinationInvertsDistanceAndBearing() async {
        await propertyCheck(count: 300, input: Self.nearby, Gen.double(in: 0..<360), Gen.double(in: 1...20_000)) {
            origin, bearing, distance in
            let target = Geodesy.destination(from: origin, distance: distance, bearing: bearing)
            #expect(abs(Geodesy.distance(origin, target) - distance) < distance * 1e-9 + 1e-6)
            #expect(Geodesy.angleBetween(Geodesy.bearing(from: origin, to: target), bearing) < 1e-6)
        }
    }

    @Test func closestPointOnASegmentIsNoFartherThanEitherEnd() async {
        await propertyCheck(count: 300, input: Self.nearby, Self.nearby, Self.nearby) { a, b, p in
            let projection = Geodesy.closestPoint(on: a, b, to: p)
            #expect((0...1).contains(projection.fraction))
            #expect(projection.distance <= Geodesy.distance(a, p) * 1.001 + 0.01)
            #expect(projection.distance <= Geodesy.distance(b, p) * 1.001 + 0.01)
            // The reported distance is the distance to the reported point.
            #expect(abs(projection.distance - Geodesy.distance(projection.coordinate, p)) < 0.01 * projection.distance + 0.05)
        }
    }

    @Test func pointOnTheSegmentProjectsOntoItself() {
        let a = Self.helsinki
        let b = Geodesy.destination(from: a, distance: 400, bearing: 70)
        let middle = Geodesy.destination(from: a, distance: 100, bearing: 70)
        let projection = Geodesy.closestPoint(on: a, b, to: middle)
        #expect(projection.distance < 0.05)
        #expect(abs(projection.fraction - 0.25) < 0.001)
    }

    @Test func lengthOfAPolylineSumsItsSegments() {
        let a = Self.helsinki
        let b = Geodesy.destination(from: a, distance: 300, bearing: 10)
        let c = Geodesy.destination(from: b, distance: 200, bearing: 100)
        #expect(abs(Geodesy.length(of: [a, b, c]) - 500) < 0.001)
        #expect(Geodesy.length(of: [a]) == 0)
    }

    @Test func boundingBoxEnclosesEveryPoint() async {
        await propertyCheck(count: 200, input: Self.nearby.array(of: 1...30)) { points in
            let box = BoundingBox(enclosing: points)
            #expect(box != nil)
            for p in points { #expect(box?.contains(p) == true) }
        }
        #expect(BoundingBox(enclosing: [GeographicCoordinate]()) == nil)
    }
}
