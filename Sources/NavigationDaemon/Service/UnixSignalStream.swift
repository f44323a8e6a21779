import Dispatch
import Glibc

/// Unix signals as an async sequence of signal numbers. From the moment it is made, the signals no longer take
/// their default action (SIGTERM would end navd before its journal is saved): each is delivered to `signals`
/// instead, by a dispatch source. ``finish()`` (or the iterating task's cancellation) ends the sequence; the
/// signals stay ignored.
struct UnixSignalStream: Sendable {
    let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation

    init(_ numbers: [Int32]) {
        (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let continuation = self.continuation
        let sources = SignalSources(
            numbers.map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            })
        continuation.onTermination = { _ in sources.cancel() }
    }

    func finish() { continuation.finish() }
}

/// The dispatch sources of one stream, cancelled together when it ends (dispatch sources are thread-safe).
private final class SignalSources: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
