import Synchronization

/// The tasks the navigation loop starts (calculations, a slow client's last grace period), kept so that none
/// outlives the service: ``cancelAllAndWait()`` ends them when the loop stops.
///
/// Not a task group: the loop also runs inputs in place, on the thread a fix was read on (``LoopInbox``), outside
/// its own task, where no group can be reached. A task started here is enqueued on its executor at once, in the
/// order started, as a group's child is: a calculation's request is still made before the writes the same input
/// queues behind it.
final class LoopChildTasks: Sendable {
    private struct State {
        var nextId = 0
        var running: [Int: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// How many have not finished yet.
    var count: Int { state.withLock { $0.running.count } }

    /// Starts `work` on `executor` (nil: Swift's global executor).
    func start(on executor: (any TaskExecutor)?, _ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.nextId
            state.nextId += 1
            // Created under the lock: the task cannot remove itself before it is in the table.
            state.running[id] = Task(executorPreference: executor) { [self] in
                await work()
                _ = self.state.withLock { $0.running.removeValue(forKey: id) }
            }
        }
    }

    /// Cancels every task still running and waits for each to end.
    func cancelAllAndWait() async {
        while true {
            let tasks = state.withLock { Array($0.running.values) }
            if tasks.isEmpty { return }
            for task in tasks { task.cancel() }
            for task in tasks { await task.value }
        }
    }
}
