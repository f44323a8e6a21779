import NIOCore

/// A NIO event loop as a Swift task executor: a task that prefers it (`withTaskExecutorPreference`) runs its
/// nonisolated code on the event loop's thread.
///
/// navd's navigation loop prefers the event loop that reads the serial receiver and writes the clients'
/// sockets: a fix's bytes, the loop's step and the clients' writes then run one after the other on one thread,
/// with no other thread woken in between (the way gpsd works). A job enqueued from that thread (the loop's input
/// queue resuming it, a writer scheduled) is run by the event loop after what it is doing, without a wake-up.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
