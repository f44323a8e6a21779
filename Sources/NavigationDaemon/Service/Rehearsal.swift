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

/// An input's way run on a copy of the coordinator, its lines encoded and dropped: what ``NavigationService``
/// runs shortly before the receiver's next fix is due, and shortly before an engine's answer is, so that the real
/// input finds its code and data in the caches (docs/daemon.md, *A fix's way rehearsed*, *An answer's way
/// rehearsed*).
enum Rehearsal {
    /// The longest answer whose way is rehearsed, geometry points over its routes: a rehearsal holds the loop, and
    /// one of a long route's answer (a controller built over 100,000 points) would hold fixes back for
    /// milliseconds. About a 300 km route; a town's route has a few hundred.
    static let longestAnswer = 20_000

    /// Steps a copy of `coordinator` with `input` as the loop steps it, and encodes the events it publishes as the
    /// hub would (numbered after `seq`), into buffers that are then dropped with the copy and its effects:
    /// `coordinator` is not changed, and nothing reaches a client, the journal, an engine or a recording.
    /// Returns the bytes of the lines encoded (what was rehearsed).
    static func run(_ input: LoopInput, on coordinator: TripCoordinator, now: Date, seq: UInt64) -> Int {
        var rehearsal = coordinator
        _ = rehearsal.step(input, now: now, seq: seq)
        var bytes = 0
        for effect in rehearsal.takeEffects() {
            guard case .publish(let event, let routeId) = effect else { continue }
            bytes += ByteBuffer(bytes: EventMessage.line(seq: seq &+ 1, routeId: routeId, event: event)).readableBytes
        }
        return bytes
    }

    /// The next fix's way: `fix` (the last fix carried ahead) stepped as the loop steps a reading.
    static func fix(_ fix: GNSSFix, on coordinator: TripCoordinator, now: Date, seq: UInt64) -> Int {
        run(.reading(.fix(fix)), on: coordinator, now: now, seq: seq)
    }

    /// An answer's way while `session` waits for its engine: the last answer taken (`routes`) applied to that
    /// session as the loop applies an answer. 0 bytes when it is too long to rehearse (``isRehearsable(_:)``).
    static func answer(_ routes: [Route], session: Int, on coordinator: TripCoordinator, now: Date, seq: UInt64) -> Int {
        guard isRehearsable(routes) else { return 0 }
        let outcome = RouteCalculationRunner.Outcome(result: .success(routes), attempts: 1)
        return run(.finished(session: session, outcome), on: coordinator, now: now, seq: seq)
    }

    /// Whether an answer of `routes` is worth rehearsing and short enough to (``longestAnswer``).
    static func isRehearsable(_ routes: [Route]) -> Bool {
        var points = 0
        for route in routes {
            points += route.geometry.count
            if points > longestAnswer { return false }
        }
        return !routes.isEmpty
    }
}
