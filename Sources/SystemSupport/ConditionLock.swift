#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with a condition variable, for a thread that sleeps until another hands it work (the journal and
/// recording writers). What Foundation's `NSCondition` did, without linking Foundation.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Sleeps until signalled (the lock is released meanwhile and held again on return).
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Sleeps until signalled or until `seconds` pass; false on the timeout.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        var deadline = timespec(tv_sec: Int(total), tv_nsec: Int((total - total.rounded(.down)) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}
