#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `printf`-style formatting of numbers (`%.1f`, `%02d`, `%04x`, `%02X`), in the C locale: the digits
    /// Foundation's `String(format:)` gives for these conversions, without linking Foundation. Only numeric
    /// arguments: a Swift string passed for `%s` would not be what C expects.
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        // Once to learn the length, once to write (a va_list is used up by one call).
        let length = Int(withVaList(arguments) { vsnprintf(nil, 0, format, $0) })
        guard length > 0 else {
            self = ""
            return
        }
        var buffer = [CChar](repeating: 0, count: length + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        self = String(decoding: buffer.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
