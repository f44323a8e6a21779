import FoundationEssentials
import NIOCore
import NavigationCore
import NavigationProtocol

extension GNSSFix {
    /// This fix carried `seconds` ahead: moved along its course at its speed (where it had both), its time later
    /// by `seconds`. What the receiver's next fix most likely is, for a rehearsal of its way; never navigated on.
    func carried(by seconds: Double) -> GNSSFix {
        var next = self
        next.location.timestamp = location.timestamp.addingTimeInterval(seconds)
        if let course = location.course, let speed = location.speed, speed.metersPerSecond > 0 {
            next.location.coordinate = Geodesy.destination(
                from: location.coordinate, distance: speed.metersPerSecond * seconds, bearing: course.degrees)
        }
        return next
    }
}

/// A fix's way run on a copy of the coordinator, its lines encoded and dropped: what ``NavigationService`` runs
/// shortly before the receiver's next fix is due, so that the real fix finds its code and data in the caches.
enum FixRehearsal {
    /// Steps a copy of `coordinator` with `fix` as the loop steps a reading, and encodes the events it publishes as
    /// the hub would (numbered after `seq`), into buffers that are then dropped with the copy and its effects:
    /// `coordinator` is not changed, and nothing reaches a client, the journal or a recording.
    /// Returns the bytes of the lines encoded (what was rehearsed).
    static func run(_ fix: GNSSFix, on coordinator: TripCoordinator, now: Date, seq: UInt64) -> Int {
        var rehearsal = coordinator
        _ = rehearsal.step(.reading(.fix(fix)), now: now, seq: seq)
        var bytes = 0
        for effect in rehearsal.takeEffects() {
            guard case .publish(let event, let routeId) = effect else { continue }
            bytes += ByteBuffer(bytes: EventMessage.line(seq: seq &+ 1, routeId: routeId, event: event)).readableBytes
        }
        return bytes
    }
}
