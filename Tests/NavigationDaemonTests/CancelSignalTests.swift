@testable import NavigationDaemon
import Synchronization
import Testing

/// A calculation's work runs in its own task under a `CancelSignal`: the loop cancels it by session, and a
/// cancelled calculation reports nothing.
@Suite struct CancelSignalTests {
    @Test func workThatIsNotCancelledGivesItsResult() async {
        let signal = CancelSignal()
        let result = await signal.run { 42 }
        #expect(result == 42)
    }

    @Test func aSignalFiredBeforeTheStartRunsNothing() async {
        let signal = CancelSignal()
        signal.cancel()
        let ran = Mutex(false)
        let result = await signal.run { ran.withLock { $0 = true } }
        #expect(result == nil)
        #expect(!ran.withLock { $0 })
    }

    /// The work is waiting (a request on its way) when the loop cancels it: the task itself is cancelled, so the
    /// work ends as its cancellation makes it end, and the signal reports nothing.
    @Test func aSignalFiredMeanwhileCancelsTheRunningTask() async {
        let signal = CancelSignal()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        async let outcome: Bool? = signal.run {
            startedContinuation.yield()
            return await Self.untilCancelled()
        }
        for await _ in started { break }
        signal.cancel()
        #expect(await outcome == nil)
    }

    /// The service shutting down cancels the calculation's task from outside: the work sees it.
    @Test func cancellingTheTaskEndsTheWork() async {
        let signal = CancelSignal()
        let task = Task { () -> (Bool?, Bool) in
            let seen = Mutex(false)
            let result = await signal.run { () -> Bool in
                let cancelled = await Self.untilCancelled()
                seen.withLock { $0 = cancelled }
                return true
            }
            return (result, seen.withLock { $0 })
        }
        task.cancel()
        let (result, sawCancellation) = await task.value
        #expect(result == true, "not fired: the work's own result")
        #expect(sawCancellation)
    }

    /// Suspends until the current task is cancelled (as a request on its way does); true then.
    static func untilCancelled() async -> Bool {
        let gate = Gate()
        await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.open() }
        return Task.isCancelled
    }

    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func wait() async {
            await withCheckedContinuation { continuation in
                let openAlready = state.withLock { state in
                    if state.open { return true }
                    state.waiter = continuation
                    return false
                }
                if openAlready { continuation.resume() }
            }
        }

        func open() {
            let waiter = state.withLock { state in
                state.open = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
