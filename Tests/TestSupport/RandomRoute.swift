import Foundation
import NavigationCore

/// Routes with every member present or absent at random (the core's seeded generator: a failing seed repeats).
public final class RandomRoute {
    private var generator: NavigationCore.SeededRandomNumberGenerator
    /// The chance of each optional member being present; nil: a random chance per route.
    private var presence: Double?
    /// Every list has at least one element (so that every member of a step, a waypoint, ... is written).
    private let nonEmptyLists: Bool

    public init(seed: UInt64, presence: Double? = nil, nonEmptyLists: Bool = false) {
        generator = NavigationCore.SeededRandomNumberGenerator(seed: seed)
        self.presence = presence
        self.nonEmptyLists = nonEmptyLists
    }

    public func route() -> Route {
        if presence == nil { presence = generator.nextUniform() }
        let geometry = coordinates()
        var route = Route(
            geometry: geometry, boundingBox: BoundingBox(southWest: coordinate(), northEast: coordinate()), distance: number(), duration: number(),
            waypoints: list { waypoint() }, steps: list { step() })
        route.notices = maybe { list { text() } } ?? []
        return route
    }

    private func step() -> RouteStep {
        RouteStep(
            geometry: coordinates(), distance: number(), duration: number(), roadName: maybe { text() }, roadRef: maybe { text() },
            destinations: maybe { text() }, exits: list { text() }, instruction: text(),
            maneuver: Maneuver(
                type: ManeuverType(name: pick(["turn", "end of road", "roundabout", "arrive", "something new"])),
                modifier: maybe { ManeuverModifier(name: pick(["left", "slight right", "uturn", "sideways"])) }, location: coordinate(),
                bearingBefore: maybe { number() }, bearingAfter: maybe { number() }),
            drivingSide: maybe { pick([.left, .right]) }, roundaboutExitNumber: maybe { integer() },
            visualInstructions: list {
                VisualInstruction(
                    primary: VisualInstructionContent(
                        text: text(), maneuverType: maybe { .turn }, maneuverModifier: maybe { .left }, roundaboutExitDegrees: maybe { number() },
                        exitNumbers: list { text() }, lanes: list { LaneInfo(active: pick([true, false]), directions: list { text() }, activeDirection: maybe { text() }) }),
                    secondary: nil, sub: nil, triggerDistanceBeforeManeuver: number())
            },
            spokenInstructions: list { SpokenInstruction(text: text(), ssml: maybe { text() }, triggerDistanceBeforeManeuver: number(), utteranceId: text()) },
            annotations: SegmentAnnotations(list { SegmentAnnotation(values: object()) }),
            incidents: list {
                Incident(
                    id: text(), type: text(), description: maybe { text() }, impact: maybe { text() }, geometryIndexStart: integer(),
                    geometryIndexEnd: integer(), properties: object())
            },
            features: maybe {
                list {
                    RoadFeature(
                        location: coordinate(), classes: list { text() }, tunnelName: maybe { text() }, tollCollection: maybe { text() },
                        restStop: maybe { .init(type: text(), name: maybe { text() }) }, country: maybe { text() })
                }
            } ?? [],
            legIndex: integer())
    }

    private func waypoint() -> Waypoint {
        var waypoint = Waypoint(coordinate: coordinate(), kind: pick([.break, .via]), properties: maybe { object() } ?? [:])
        waypoint.snapDistance = maybe { number() }
        return waypoint
    }

    /// An engine's open-ended members: numbers, strings, nested objects and arrays, null.
    private func object() -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for _ in 0..<Int(generator.next() % 4) {
            object[text()] = pick([.number(number()), .string(text()), .null, .bool(true), .object(["speed": .number(number()), "unit": .string("km/h")]), .array([.number(1), .string(text())])])
        }
        return object
    }

    private func coordinates() -> [GeographicCoordinate] { list { coordinate() } }

    private func coordinate() -> GeographicCoordinate { GeographicCoordinate(latitude: number(), longitude: number()) }

    public func maybe<T>(_ make: () -> T) -> T? { generator.nextUniform() < presence! ? make() : nil }

    public func pick<T>(_ options: [T]) -> T { options[Int(generator.next() % UInt64(options.count))] }

    private func list<T>(_ make: () -> T) -> [T] {
        let count = Int(generator.next() % 4)
        return (0..<(nonEmptyLists ? max(1, count) : count)).map { _ in make() }
    }

    public func integer() -> Int { pick([0, 1, 7, 42, 1000, Int(generator.next() % 1_000_000), -3]) }

    /// Whole, fractional, rounded as navd rounds, huge, tiny and non-finite numbers.
    public func number() -> Double {
        let magnitude = Double(generator.next() % 100_000) / 100
        return pick([Double](arrayLiteral: magnitude, -magnitude, (magnitude * 7).rounded(), 1e16 + magnitude, 1e-9 * magnitude, .nan, .infinity, 0))
    }

    private static let pieces = ["a", "Bulevardi", " ", "\"", "\\", "\n", "\u{1}", "ä", "日", "🚗", "é", "/", "<", "0"]

    public func text() -> String { (0..<Int(generator.next() % 6)).map { _ in pick(Self.pieces) }.joined() }
}
