/// A value's JSON text written ahead, elsewhere than where it is sent: written into a line as it stands. navd writes
/// a long route's text on Swift's pool while the navigation loop goes on with fixes (a 1000 km route's text is some
/// MiB and took the loop about 6 ms), and the loop then copies it into the `route` event.
public struct JSONTextWritten: JSONTextWritable, Sendable {
    /// The text, one JSON value.
    public let bytes: [UInt8]

    /// The text of `value`, as it writes itself.
    public init<Value: JSONTextWritable>(_ value: Value, capacity: Int = 0) {
        var out = JSONOutput(capacity: capacity)
        value.writeJSON(into: &out)
        bytes = out.bytes
    }

    public func writeJSON(into out: inout JSONOutput) {
        out.append(contentsOf: bytes)
    }
}
