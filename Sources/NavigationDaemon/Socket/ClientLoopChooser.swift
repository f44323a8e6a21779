import NIOCore
import Synchronization

/// Which event loop a new Unix socket client's connection lives on. The navigation loop's own while it serves
/// fewer than ``homeClients``: its events are queued and written on the thread that made them, with no hop,
/// which is what a vehicle's few clients get. Past that, the loop serving the fewest clients: an event for
/// hundreds of clients is then written by every loop at once (each a core), where one thread writing them all in
/// turn made the last wait for every `send` before it (docs/performance.md, *1000 clients on every core*).
/// WebSocket clients live on the navigation loop whatever their number (the web server's connections are made
/// there) and are counted as its own (``takeHome()``), so that the Unix socket clients after them go elsewhere.
public final class ClientLoopChooser: Sendable {
    /// Clients the navigation loop serves before others are given to the other loops.
    public static let homeClients = 64

    let home: any EventLoop
    private let loops: [any EventLoop]
    /// Clients on each of `loops` (the home loop first).
    private let counts: Mutex<[Int]>
    private let homeLimit: Int

    /// - Parameters:
    ///   - home: the navigation loop's event loop.
    ///   - others: the other event loops clients may be given to (none: every client on `home`).
    ///   - homeClients: how many clients `home` serves before the others are used.
    public init(home: any EventLoop, others: [any EventLoop], homeClients: Int = ClientLoopChooser.homeClients) {
        self.home = home
        loops = [home] + others.filter { $0 !== home }
        counts = Mutex(Array(repeating: 0, count: loops.count))
        homeLimit = homeClients
    }

    /// The loop for a new client, counted until ``release(_:)``. Nil: the home loop (its lines are queued in place).
    func take() -> (any EventLoop)? {
        let index = counts.withLock { counts -> Int in
            var chosen = 0
            if counts[0] >= homeLimit {
                // The fewest first; between equals, the earlier (the home loop, then the others in order).
                for index in counts.indices where counts[index] < counts[chosen] { chosen = index }
            }
            counts[chosen] += 1
            return chosen
        }
        return index == 0 ? nil : loops[index]
    }

    /// Counts a client that lives on the home loop whatever the counts (a WebSocket client), until ``release(_:)``
    /// with nil.
    func takeHome() {
        counts.withLock { $0[0] += 1 }
    }

    /// A client taken with ``take()`` or ``takeHome()`` left.
    func release(_ loop: (any EventLoop)?) {
        let index = loop.flatMap { loop in loops.firstIndex { $0 === loop } } ?? 0
        counts.withLock { $0[index] -= 1 }
    }

    /// Clients on each loop now, the home loop first.
    var clientCounts: [Int] { counts.withLock { $0 } }
}
