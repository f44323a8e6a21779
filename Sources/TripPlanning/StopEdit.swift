import NavigationCore

/// A change the driver makes to the stops still ahead of a trip (`add_stop`, `remove_stop`, `skip_waypoint`).
/// Pure: the waypoints still ahead go in, the list to route through from the current position comes out.
public enum StopEdit: Sendable, Hashable {
    /// A stop at `index` among the waypoints still ahead (0: before the next one; the count of them: after the
    /// destination, which makes it the new destination); nil: just before the destination.
    case add(Waypoint, index: Int?)
    /// The waypoint at `index` among those still ahead (0: the next one). The last one left cannot go.
    case remove(index: Int)
    /// The next waypoint, as if it had been reached. Not the destination: that is the trip's end (`cancel`).
    case skipNext

    /// Most waypoints a trip routes through at once: what `navigate` accepts.
    public static let waypointLimit = 50

    /// The waypoints still ahead after this edit.
    /// - Parameter remaining: the trip's waypoints not yet reached, in driving order, the destination last.
    public func applied(to remaining: [Waypoint]) throws(StopEditError) -> [Waypoint] {
        guard !remaining.isEmpty else { throw StopEditError("the trip has no waypoint left ahead") }
        var edited = remaining
        switch self {
        case .add(let waypoint, let index):
            guard remaining.count < Self.waypointLimit else {
                throw StopEditError("the trip already has \(remaining.count) waypoints ahead; at most \(Self.waypointLimit)")
            }
            let position = index ?? remaining.count - 1
            guard (0...remaining.count).contains(position) else {
                throw StopEditError("'index' \(position) is out of range: \(remaining.count) waypoint(s) ahead, so 0...\(remaining.count)")
            }
            edited.insert(waypoint, at: position)
        case .remove(let index):
            guard remaining.indices.contains(index) else {
                throw StopEditError("'index' \(index) is out of range: \(remaining.count) waypoint(s) ahead, so 0...\(remaining.count - 1)")
            }
            guard remaining.count > 1 else { throw StopEditError("that is the destination and the only waypoint left; cancel the trip instead") }
            edited.remove(at: index)
        case .skipNext:
            guard remaining.count > 1 else { throw StopEditError("the next waypoint is the destination; cancel the trip instead") }
            edited.removeFirst()
        }
        return edited
    }
}

/// Why an edit cannot be made: the trip stays as it is.
public struct StopEditError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
