import FoundationEssentials
import Glibc

/// Whether a configuration file keeps its secrets to itself: `navd check-config` and navd at start warn about a
/// file that every user can read while it holds a secret (an API key in a URL, an `api_key` option). The
/// package installs /etc/navd/navd.toml as root:navd 0640 for this reason.
public enum ConfigFileSafety {
    /// The warning for a file with permission bits `mode` and text `text`, or nil when there is nothing to say.
    public static func warning(path: String, text: String, mode: mode_t) -> String? {
        guard mode & S_IROTH != 0, ConfigRedaction.redact(text) != text else { return nil }
        return "\(path) holds a secret (an API key or password) and every user on this machine can read it: "
            + "chmod 0640 \(path) && chgrp navd \(path)"
    }

    /// The warning for the file at `path` as it is on disk; nil when it cannot be read or there is nothing to say.
    public static func warning(path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, let data = FileManager.default.contents(atPath: path) else { return nil }
        return warning(path: path, text: String(decoding: data, as: UTF8.self), mode: info.st_mode)
    }
}
