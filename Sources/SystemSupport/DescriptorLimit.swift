#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (RLIMIT_NOFILE).
///
/// systemd starts services with a soft limit of 1024 (for programs that still use select(2)) and a high hard
/// limit, and asks programs that need more to raise the soft limit themselves. navd holds a descriptor per
/// client; with `socket.max_clients` near 1000 it would run out at the default, and a client would be refused
/// while navd is far below its own limit.
public enum DescriptorLimit {
    /// The soft and hard limits now.
    public static func current() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft limit to `needed` descriptors, or to the hard limit when that is lower; never lowers it.
    /// Returns the soft limit in force afterwards.
    @discardableResult
    public static func raise(toAtLeast needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let wanted = rlim_t(max(0, needed))
        guard limit.rlim_cur < wanted else { return clamp(limit.rlim_cur) }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return current().soft
    }

    /// rlim_t is unsigned (RLIM_INFINITY is all ones): as an Int, at most Int.max.
    private static func clamp(_ value: rlim_t) -> Int { value > rlim_t(Int.max) ? Int.max : Int(value) }
}
