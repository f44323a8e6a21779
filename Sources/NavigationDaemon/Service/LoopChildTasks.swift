import Synchronization

/// The tasks the navigation loop starts (calculations, a slow client's last grace period), kept so that none
/// outlives the service: ``cancelAllAndWait()`` ends them when the loop stops.
///
/// Not a task group: the loop also runs inputs in place, on the thread a fix was read on (``LoopInbox``), outside
/// its own task, where no group can be reached. A task started here is enqueued on its executor at once, in the
/// order started, as a group's child is, or run at once until it first waits (a calculation: its request is made
/// before the writes the same input queues behind it).
final class LoopChildTasks: Sendable {
    private struct State {
        var nextId = 0
        var running: [Int: Task<Void, Never>] = [:]
        /// Started, not in `running` yet: their tasks are being made.
        var starting = 0
        /// Ended before they were put in `running` (a task run at once that did not wait, or one a thread of the
        /// pool finished first).
        var endedEarly: Set<Int> = []
    }

    private let state = Mutex(State())

    init() {}

    /// How many have not finished yet.
    var count: Int { state.withLock { $0.running.count + $0.starting } }

    /// Starts `work` on `executor` (nil: Swift's global executor). `immediately`: `work` runs right here, on the
    /// caller's thread, until it first waits (`Task.immediate`), then on `executor`; a calculation's request is
    /// written to a kept-alive connection before this returns, ahead of the answer and events of the input that
    /// started it, not in a job queued behind them. Otherwise the task is enqueued on its executor.
    func start(on executor: (any TaskExecutor)?, immediately: Bool = false, _ work: @escaping @Sendable () async -> Void) {
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            state.starting += 1
            return state.nextId
        }
        // Made outside the lock: a task run at once may end before `Task.immediate` returns, and takes the lock then.
        let body: @Sendable () async -> Void = { [self] in
            await work()
            state.withLock { state in
                if state.running.removeValue(forKey: id) == nil { state.endedEarly.insert(id) }
            }
        }
        let task = immediately ? Task.immediate(executorPreference: executor, operation: body) : Task(executorPreference: executor, operation: body)
        state.withLock { state in
            state.starting -= 1
            if state.endedEarly.remove(id) == nil { state.running[id] = task }
        }
    }

    /// Cancels every task still running and waits for each to end.
    func cancelAllAndWait() async {
        while true {
            let (tasks, starting) = state.withLock { (Array($0.running.values), $0.starting) }
            if tasks.isEmpty {
                if starting == 0 { return }
                // A task being made on another thread is in the table a moment later.
                await Task.yield()
                continue
            }
            for task in tasks { task.cancel() }
            for task in tasks { await task.value }
        }
    }
}
