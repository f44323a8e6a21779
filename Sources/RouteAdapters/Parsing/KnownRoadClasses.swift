import NavigationCore

/// An intersection's road classes that navd knows (``RoadFeature/knownClasses``), in the order the answer lists them,
/// each once; any other class is dropped as it is read. Held in one word (a class's number, 3 bits each), not an array
/// of strings: a route answer has an intersection every few hundred metres, and most have no class at all.
struct KnownRoadClasses: Equatable {
    /// Each class's number in ``RoadFeature/knownClasses`` plus one, 3 bits each, the first class lowest.
    private var packed: UInt32 = 0
    /// How many classes it holds (at most ``RoadFeature/knownClasses``' count, as each is held once).
    private(set) var count = 0

    /// The classes by number (their place here, plus one): at most seven, as a number has 3 bits.
    static let names: [String] = {
        precondition(RoadFeature.knownClasses.count <= 7, "KnownRoadClasses numbers a class in 3 bits: seven at most")
        return RoadFeature.knownClasses
    }()

    /// Adds the class named by `name`'s bytes, unless navd does not know it or it is already held.
    mutating func insert(_ name: JSONKey) {
        guard let index = Self.names.firstIndex(where: name.matches) else { return }
        let code = UInt32(index + 1)
        for position in 0..<count where (packed >> (3 * UInt32(position))) & 0b111 == code { return }
        packed |= code << (3 * UInt32(count))
        count += 1
    }

    /// Whether it holds the class `name`.
    func contains(_ name: String) -> Bool {
        guard let index = Self.names.firstIndex(of: name) else { return false }
        let code = UInt32(index + 1)
        return (0..<count).contains { position in (packed >> (3 * UInt32(position))) & 0b111 == code }
    }

    /// The classes' names, in the order they were added.
    var strings: [String] {
        (0..<count).map { position in Self.names[Int((packed >> (3 * UInt32(position))) & 0b111) - 1] }
    }
}
