/// File paths as text, the way `NSString`'s path methods split them: `/a/b/c.jsonl` is in `/a/b`, named `c.jsonl`.
public enum PathText {
    /// The last component: `/a/b/c` gives `c`, `/a/b/` gives `b`, `c` gives `c`.
    public static func lastComponent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard trimmed != "/" else { return "/" }
        return trimmed.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }

    /// Everything before the last component: `/a/b/c` gives `/a/b`, `/a` gives `/`, `c` gives an empty string.
    public static func deletingLastComponent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return trimmingTrailingSlashes(String(trimmed[..<slash]))
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
