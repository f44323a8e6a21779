import NIOCore
import Synchronization

/// The navigation loop's queue of inputs, in the order they came, with one way around it: an input that arrives
/// while the loop is idle (waiting, nothing queued) may be run by the thread it arrived on, in place, instead of
/// waking the loop's task for it (``claimIfIdle()``).
///
/// Why: a fix read from a serial receiver on the loop's event loop went through an `AsyncStream`, a task resumed
/// on the event loop's queue and a job run there, about 45 µs of the 270 µs from the receiver's bytes to the
/// client's socket as navd runs at 10 Hz, with every cache cold (docs/performance.md). Run in place, it is a
/// function call.
///
/// Whoever runs inputs holds the loop: its task between ``next()`` calls, or a claim between ``claimIfIdle()``
/// and ``release()``. A claim is granted only while the task waits in ``next()`` with nothing queued, and the
/// task is handed nothing during a claim, so the two never run inputs at once, and none overtakes another.
final class LoopInbox<Element: Sendable>: Sendable {
    private struct State: ~Copyable {
        var queued = CircularBuffer<Element>()
        /// The loop's task, suspended in `next()` with nothing queued.
        var waiter: UnsafeContinuation<Element?, Never>?
        /// Someone runs an input in place: the task is handed nothing until ``release()``.
        var claimed = false
        var finished = false
    }

    private let state = Mutex(State())

    init() {}

    /// Queues `element` for the loop, or hands it to the waiting task. Dropped once the inbox is finished.
    func yield(_ element: Element) {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            guard !state.finished else { return nil }
            if !state.claimed, let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.queued.append(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// True when the caller now holds the loop and may run one input in place: the loop's task waits and nothing
    /// is queued ahead. The caller must call ``release()`` once it has run the input.
    func claimIfIdle() -> Bool {
        state.withLock { state in
            guard !state.finished, !state.claimed, state.waiter != nil, state.queued.isEmpty else { return false }
            state.claimed = true
            return true
        }
    }

    /// Ends a claim: what was queued meanwhile goes to the loop's task.
    func release() {
        // Nothing but the waiter and the input leave the lock, in variables of their own: returned from the lock's
        // closure as one optional pair, the pair was copied on every release (about 1,700 instructions, the input
        // being large), although nearly every release hands nothing over.
        var waiter: UnsafeContinuation<Element?, Never>?
        var element: Element?
        state.withLock { state in
            precondition(state.claimed, "LoopInbox.release() without a claim")
            state.claimed = false
            guard let waiting = state.waiter else { return }
            if let first = state.queued.popFirst() {
                state.waiter = nil
                waiter = waiting
                element = first
            } else if state.finished {
                state.waiter = nil
                waiter = waiting
            }
        }
        waiter?.resume(returning: element)
    }

    /// Ends the input: `next()` returns what is queued, then nil; later inputs are dropped.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            state.finished = true
            guard !state.claimed, state.queued.isEmpty else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next input; nil once finished and drained, or when the task is cancelled (which finishes the inbox).
    /// One task only calls it.
    func next() async -> Element? {
        // Without suspending while inputs are queued (the loop drains a burst in one run of its task).
        switch state.withLock({ Self.ready(&$0) }) {
        case .element(let element): return element
        case .end: return nil
        case .wait: break
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: UnsafeContinuation<Element?, Never>) in
                let ready = state.withLock { state -> Ready in
                    let ready = Self.ready(&state)
                    if case .wait = ready {
                        precondition(state.waiter == nil, "LoopInbox.next() called by two tasks")
                        state.waiter = waiter
                    }
                    return ready
                }
                switch ready {
                case .element(let element): waiter.resume(returning: element)
                case .end: waiter.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            finish()
        }
    }

    private enum Ready {
        case element(Element)
        case end
        case wait
    }

    /// What the loop's task gets now: nothing while someone holds a claim.
    private static func ready(_ state: inout State) -> Ready {
        guard !state.claimed else { return .wait }
        if let first = state.queued.popFirst() { return .element(first) }
        return state.finished ? .end : .wait
    }
}
