import Foundation

/// Processes that hold a device open, found through /proc (as root: every process's descriptors).
public enum DeviceHolders {
    /// The processes other than this one that hold `path` open.
    public static func others(of path: String) -> [Int32] {
        let me = getpid()
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(Int32.init).filter { $0 != me && holds(pid: $0, path: path) }
    }

    /// Whether process `pid` holds `path` open.
    public static func holds(pid: Int32, path: String) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return descriptors.contains { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")) == path
        }
    }
}
