import NavigationCore
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import NavigationDaemon

/// The navigation loop's inbox: inputs in the order they came, and an input run in place only while the loop is
/// idle, never beside the loop's task and never ahead of an input queued before it.
@Suite("Loop inbox")
struct LoopInboxTests {
    @Test func inputsComeOutInOrderThenNilOnceFinished() async {
        let inbox = LoopInbox<Int>()
        for value in 1...5 { inbox.yield(value) }
        inbox.finish()
        inbox.yield(6)  // after the end: dropped
        var received: [Int] = []
        while let value = await inbox.next() { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
        #expect(await inbox.next() == nil)
    }

    @Test func noClaimWhileTheLoopIsNotWaiting() {
        let inbox = LoopInbox<Int>()
        #expect(!inbox.claimIfIdle(), "the loop's task has not asked for an input yet")
        inbox.yield(1)
        #expect(!inbox.claimIfIdle())
    }

    @Test func aWaitingLoopIsHandedTheInputAndIsThenNotIdle() async throws {
        let inbox = LoopInbox<Int>()
        let consumer = Task { await inbox.next() }
        try await Self.untilIdle(inbox)
        inbox.release()
        inbox.yield(7)
        #expect(await consumer.value == 7)
        #expect(!inbox.claimIfIdle(), "nobody waits any more")
    }

    @Test func aSecondClaimIsRefusedUntilTheFirstIsReleased() async throws {
        let inbox = LoopInbox<Int>()
        let consumer = Task { await inbox.next() }
        try await Self.untilIdle(inbox)
        #expect(!inbox.claimIfIdle())
        inbox.release()
        #expect(inbox.claimIfIdle())
        inbox.release()
        inbox.finish()
        #expect(await consumer.value == nil)
    }

    /// What comes while an input runs in place waits for it, then reaches the loop's task in its order; the task
    /// runs nothing during the claim.
    @Test func inputsDuringAClaimFollowIt() async throws {
        let inbox = LoopInbox<String>()
        let log = Mutex<[String]>([])
        let consumer = Task {
            while let value = await inbox.next() { log.withLock { $0.append(value) } }
        }
        try await Self.untilIdle(inbox)
        inbox.yield("a")
        inbox.yield("b")
        try await Task.sleep(for: .milliseconds(20))  // a loop wrongly handed "a" now would log it first
        log.withLock { $0.append("in place") }
        inbox.release()
        inbox.yield("c")
        inbox.finish()
        await consumer.value
        #expect(log.withLock { $0 } == ["in place", "a", "b", "c"])
    }

    @Test func finishingDuringAClaimEndsTheLoopAfterWhatWasQueued() async throws {
        let inbox = LoopInbox<Int>()
        let consumer = Task { () -> [Int] in
            var received: [Int] = []
            while let value = await inbox.next() { received.append(value) }
            return received
        }
        try await Self.untilIdle(inbox)
        inbox.yield(1)
        inbox.finish()
        inbox.yield(2)
        #expect(!inbox.claimIfIdle())
        inbox.release()
        #expect(await consumer.value == [1])
        #expect(!inbox.claimIfIdle(), "finished")
    }

    @Test func cancellingTheLoopsTaskEndsItsWait() async throws {
        let inbox = LoopInbox<Int>()
        let consumer = Task { await inbox.next() }
        try await Self.untilIdle(inbox)
        inbox.release()
        consumer.cancel()
        #expect(await consumer.value == nil)
        inbox.yield(1)
        #expect(await inbox.next() == nil, "a cancelled loop's inbox is finished")
    }

    /// Producers on other threads and in-place runs on an event loop, at random, against the loop's task on the
    /// same event loop (as navd runs it): every input arrives once, each producer's in its order, and no two
    /// holders ever run inputs at once.
    @Test(arguments: [1, 2, 3, 4])
    func concurrentProducersAndClaimsKeepOrderAndExclusion(seed: UInt64) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let inbox = LoopInbox<(producer: Int, index: Int)>()
        let holders = Holders()
        let perProducer = 300
        let consumer = Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            while let input = await inbox.next() { holders.run(input) }
        }
        // Producers 0 and 1 yield from Swift's pool; producer 2 reads "on the event loop" and runs in place when it can.
        await withTaskGroup(of: Void.self) { producers in
            for producer in 0..<2 {
                producers.addTask {
                    var random = SeededRandomNumberGenerator(seed: seed &* 31 &+ UInt64(producer))
                    for index in 0..<perProducer {
                        inbox.yield((producer, index))
                        if random.next() % 8 == 0 { await Task.yield() }
                    }
                }
            }
            producers.addTask {
                for index in 0..<perProducer {
                    let done = eventLoop.submit {
                        if inbox.claimIfIdle() {
                            holders.ranInPlace.add(1, ordering: .relaxed)
                            holders.run((2, index))
                            inbox.release()
                        } else {
                            inbox.yield((2, index))
                        }
                    }
                    try? await done.get()
                }
            }
        }
        inbox.finish()
        await consumer.value
        let all = holders.received.withLock { $0 }
        #expect(holders.overlaps.load(ordering: .relaxed) == 0)
        #expect(holders.ranInPlace.load(ordering: .relaxed) > 0, "the test ran nothing in place")
        #expect(all.count == 3 * perProducer)
        for producer in 0..<3 {
            #expect(all.filter { $0.producer == producer }.map(\.index) == Array(0..<perProducer))
        }
    }

    /// Whoever runs an input: counts overlaps (two at once) and keeps what ran, in order.
    final class Holders: Sendable {
        let running = Atomic(0)
        let overlaps = Atomic(0)
        let ranInPlace = Atomic(0)
        let received = Mutex<[(producer: Int, index: Int)]>([])

        func run(_ input: (producer: Int, index: Int)) {
            if running.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
            received.withLock { $0.append(input) }
            running.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Waits (bounded) until the loop's task waits in `next()`; returns holding the claim that proved it.
    static func untilIdle<Element>(_ inbox: LoopInbox<Element>) async throws {
        for _ in 0..<2000 {
            if inbox.claimIfIdle() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the loop's task never waited")
        throw CancellationError()
    }
}

/// The tasks the loop starts end with the service: none outlives `cancelAllAndWait()`.
@Suite("Loop child tasks")
struct LoopChildTasksTests {
    @Test func aTaskRunsAndLeavesTheTableWhenItEnds() async throws {
        let children = LoopChildTasks()
        let (done, doneContinuation) = AsyncStream.makeStream(of: Int.self)
        children.start(on: nil) { doneContinuation.yield(42) }
        var value: Int?
        for await received in done {
            value = received
            break
        }
        #expect(value == 42)
        await children.cancelAllAndWait()
        #expect(children.count == 0)
    }

    @Test func stoppingCancelsWhatStillRunsAndWaitsForIt() async {
        let children = LoopChildTasks()
        let sawCancellation = Mutex(0)
        for _ in 0..<3 {
            children.start(on: nil) {
                if await CancelSignalTests.untilCancelled() { sawCancellation.withLock { $0 += 1 } }
            }
        }
        await children.cancelAllAndWait()
        #expect(sawCancellation.withLock { $0 } == 3)
        #expect(children.count == 0)
    }

    /// A calculation's task runs on the caller's thread until it first waits (its request written before the
    /// input that started it goes on), then on its executor; it leaves the table when it ends.
    @Test func aTaskStartedImmediatelyRunsBeforeStartReturnsUntilItWaits() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let children = LoopChildTasks()
        let steps = Mutex<[String]>([])
        let (resume, resumeContinuation) = AsyncStream.makeStream(of: Void.self)
        children.start(on: EventLoopTaskExecutor(eventLoop), immediately: true) {
            steps.withLock { $0.append("before waiting") }
            for await _ in resume { break }
            steps.withLock { $0.append("after waiting, on the loop: \(eventLoop.inEventLoop)") }
        }
        steps.withLock { $0.append("start returned") }
        #expect(children.count == 1)
        resumeContinuation.yield()
        for _ in 0..<2000 where children.count > 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(steps.withLock { $0 } == ["before waiting", "start returned", "after waiting, on the loop: true"])
        #expect(children.count == 0)
    }

    /// A task run at once that never waits ends inside `start`: nothing of it is left in the table.
    @Test func aTaskStartedImmediatelyThatNeverWaitsLeavesNothingBehind() async {
        let children = LoopChildTasks()
        let ran = Mutex(0)
        for _ in 0..<5 { children.start(on: nil, immediately: true) { ran.withLock { $0 += 1 } } }
        #expect(ran.withLock { $0 } == 5)
        #expect(children.count == 0)
        await children.cancelAllAndWait()
        #expect(children.count == 0)
    }

    @Test func aTaskStartedOnTheLoopsEventLoopRunsThere() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let children = LoopChildTasks()
        let onLoop = Mutex<Bool?>(nil)
        children.start(on: EventLoopTaskExecutor(eventLoop)) { onLoop.withLock { $0 = eventLoop.inEventLoop } }
        for _ in 0..<2000 where children.count > 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(onLoop.withLock { $0 } == true)
    }
}
