import FoundationEssentials
import Glibc

/// A file operation's error in a few words ("no such file", "permission denied"), for messages that name the
/// file themselves: what Foundation's `localizedDescription` gave, without linking Foundation.
public func describeFileError(_ error: any Error) -> String {
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)).lowercased() }
    guard let cocoa = error as? CocoaError else { return "\(error)" }
    switch cocoa.code {
    case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
    case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
    case .fileWriteOutOfSpace: return "no space left on the device"
    case .fileWriteVolumeReadOnly: return "a read-only file system"
    case .fileWriteFileExists: return "a file of that name exists"
    case .fileReadCorruptFile: return "the file is damaged"
    case .fileReadTooLarge: return "the file is too large"
    default:
        if let underlying = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue)).lowercased()
        }
        return "file error \(cocoa.code.rawValue)"
    }
}
