import FoundationEssentials
import Glibc
import NavigationCore

/// A small file replaced atomically and durably: written to a temporary file in the same directory, fsynced,
/// renamed over the file, and the directory fsynced, so a crash or power cut leaves either the old contents or
/// the new, never a torn file. The trip journal and the voice mode use it.
struct DurableFile: Sendable {
    let path: String

    func write(_ data: Data) throws(JournalError) {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw JournalError(operation: "create \(temporary)", errno: errno) }
        var failure: JournalError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = JournalError(operation: "write \(temporary)", errno: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = JournalError(operation: "fsync \(temporary)", errno: errno) }
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let error = JournalError(operation: "rename \(temporary) to \(path)", errno: errno)
            unlink(temporary)
            throw error
        }
        syncDirectory()
    }

    /// fsync of the file's directory, which makes a rename or an unlink in it durable.
    func syncDirectory() {
        let directory = PathText.deletingLastComponent(of: path)
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}
