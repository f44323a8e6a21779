import Synchronization

/// Sends READY=1 once the socket listens and the GNSS source is started, then STATUS= on every change.
public final class Readiness: Sendable {
    private struct State {
        var listening = false
        var sourceStarted = false
        var ready = false
        var status = "starting"
    }
    private let state = Mutex(State())
    private let notifier: SystemdNotifier

    public init(notifier: SystemdNotifier) {
        self.notifier = notifier
    }

    public func socketListening() { update { $0.listening = true } }
    public func sourceStarted() { update { $0.sourceStarted = true } }

    public func statusChanged(_ status: String) {
        let send = state.withLock { state -> Bool in
            state.status = status
            return state.ready
        }
        if send { notifier.status(status) }
    }

    private func update(_ change: (inout State) -> Void) {
        let status: String? = state.withLock { state in
            change(&state)
            guard state.listening, state.sourceStarted, !state.ready else { return nil }
            state.ready = true
            return state.status
        }
        if let status { notifier.ready(status: status) }
    }
}
