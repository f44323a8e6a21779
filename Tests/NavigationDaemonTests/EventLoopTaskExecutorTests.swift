import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import NavigationDaemon

/// The navigation loop runs on an event loop through a task executor preference: its code, and what it awaits,
/// resume on that event loop's thread; a calculation escapes to Swift's pool.
@Suite("Event loop as task executor")
struct EventLoopTaskExecutorTests {
    @Test func aTaskThatPrefersTheEventLoopRunsOnItAcrossSuspensions() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let onLoop = await withTaskExecutorPreference(EventLoopTaskExecutor(eventLoop)) { () async -> [Bool] in
            var seen = [eventLoop.inEventLoop]
            // Inputs yielded from another thread and from the event loop itself, as the loop's queue gets them.
            Task.detached { continuation.yield(1) }
            eventLoop.execute { continuation.yield(2) }
            var count = 0
            for await _ in stream {
                seen.append(eventLoop.inEventLoop)
                count += 1
                if count == 2 { break }
            }
            try? await Task.sleep(for: .milliseconds(1))
            seen.append(eventLoop.inEventLoop)
            return seen
        }
        #expect(onLoop == [true, true, true, true])
        #expect(!eventLoop.inEventLoop)
    }

    @Test func aChildTaskInheritsTheEventLoopUnlessItAsksForThePool() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let eventLoop = group.next()
        let (inherited, pooled) = await withTaskExecutorPreference(EventLoopTaskExecutor(eventLoop)) {
            await withTaskGroup(of: (String, Bool).self) { children in
                children.addTask { ("inherited", eventLoop.inEventLoop) }
                // What the loop does for a route calculation: parsing a long answer must not hold fixes back.
                children.addTask(executorPreference: globalConcurrentExecutor) { ("pooled", eventLoop.inEventLoop) }
                var results: [String: Bool] = [:]
                for await (name, onLoop) in children { results[name] = onLoop }
                return (results["inherited"], results["pooled"])
            }
        }
        #expect(inherited == true)
        #expect(pooled == false)
    }
}
