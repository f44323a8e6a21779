import NavigationCore

/// A journal's text, with the route's part written once per route: a save while driving (every step, and every
/// `journal.interval`) changes a few numbers, and writing the whole route again was most of its cost (on a
/// two-core computer, the journal's thread then competed with the loop for tens of milliseconds per save).
/// One per writer; the text is ``JSONTextEncoder``'s (keys sorted, dates as ISO 8601 UTC).
public struct JournalText {
    /// The route `routeText` was written from.
    private var route: Route?
    private var routeText: [UInt8] = []

    public init() {}

    /// The journal's bytes for `record`.
    public mutating func bytes(of record: TripJournalRecord) throws -> [UInt8] {
        // Equal routes share their arrays' storage while a trip goes on: the comparison is cheap then.
        if route != record.route {
            routeText = try JSONTextEncoder().encode(record.route)
            route = record.route
        }
        var rest = record
        rest.route = Self.placeholder
        let members = try JSONTextEncoder().encodeMembers(rest)
        var out = JSONOutput(capacity: routeText.count + 1024)
        out.append(UInt8(ascii: "{"))
        for (index, key) in members.keys.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            if key == "route" { out.append(contentsOf: routeText) } else { members.appendValue(at: index, into: &out) }
        }
        out.append(UInt8(ascii: "}"))
        return out.bytes
    }

    /// Stands in for the route while the rest is written.
    private static let placeholder = Route(geometry: [], distance: 0, duration: 0, waypoints: [], steps: [])
}
