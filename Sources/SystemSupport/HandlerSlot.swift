import Synchronization

/// A handler that one thread sets and others call. A closure kept directly in a `Mutex` is wrapped in one more
/// reabstraction thunk on every `withLock { $0 }` (the inout value is converted for the generic closure and written
/// back converted again): found by the soak (docs/reliability.md), every fix added a layer to the GNSS feed's
/// handler, memory grew, and after about 37 000 fixes one call ran through 37 000 thunks and overflowed the serial
/// reader's stack (about an hour at 10 Hz). Here the closure sits in a class, which a lock hands out unchanged.
public final class HandlerSlot<Argument>: Sendable {
    private final class Box: Sendable {
        let handler: @Sendable (Argument) -> Void
        init(_ handler: @escaping @Sendable (Argument) -> Void) { self.handler = handler }
    }

    private let box = Mutex<Box?>(nil)

    public init() {}

    /// Sets the handler; nil: none.
    public func set(_ handler: (@Sendable (Argument) -> Void)?) {
        let new = handler.map(Box.init)
        box.withLock { $0 = new }
    }

    /// The handler now, if any.
    public var handler: (@Sendable (Argument) -> Void)? { box.withLock { $0 }?.handler }

    /// Calls the handler with `argument`; false when there is none.
    @discardableResult
    public func call(_ argument: Argument) -> Bool {
        guard let current = box.withLock({ $0 }) else { return false }
        current.handler(argument)
        return true
    }
}
