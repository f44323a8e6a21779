import FoundationEssentials

/// Where an `http` or `https` URL sends a request: the server to connect to and the request line's target.
/// Parsed by hand, strictly: a URL this cannot read is an invalid request, never a guess.
struct HTTPTarget: Hashable, Sendable {
    /// The connection a request can share with others: scheme, host and port.
    struct Server: Hashable, Sendable {
        var isTLS: Bool
        /// A name or an address, IPv6 without brackets.
        var host: String
        var port: Int
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    var server: Server
    /// The path and query (`/route/v1/driving/…?overview=full`), `/` for none.
    var requestTarget: String
    /// The `Host` header: the host (IPv6 in brackets) and the port when it is not the scheme's own.
    var hostHeader: String
    /// `Basic …` from the URL's user and password (`https://user:password@host/`), nil without them.
    var authorization: String?

    init(_ url: String) throws(Invalid) {
        // The URL's delimiters are ASCII, and in UTF-8 an ASCII byte is never part of another character: the URL is
        // cut at its bytes, not walked a Character (a grapheme cluster) at a time, once per request.
        let bytes = url.utf8
        guard let schemeEnd = Self.firstSchemeSeparator(in: bytes) else { throw Invalid(description: "not an http or https URL: no scheme") }
        let scheme = url[..<schemeEnd].lowercased()
        guard scheme == "http" || scheme == "https" else { throw Invalid(description: "not an http or https URL: scheme \(scheme)") }
        let isTLS = scheme == "https"
        let rest = url[bytes.index(schemeEnd, offsetBy: 3)...]
        let authorityEnd = rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var target = rest[authorityEnd...]
        if let fragment = target.utf8.firstIndex(of: UInt8(ascii: "#")) { target = target[..<fragment] }
        var requestTarget = String(target)
        if requestTarget.isEmpty || requestTarget.hasPrefix("?") { requestTarget = "/" + requestTarget }
        guard !Self.hasBlank(requestTarget) else { throw Invalid(description: "the URL's path has blanks") }

        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            authorization = "Basic " + Data(Self.percentDecoded(userInfo)).base64EncodedString()
        } else {
            authorization = nil
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Invalid(description: "an IPv6 address without its ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw Invalid(description: "text after the IPv6 address") }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        let forbidden: Set<Character> = [" ", "/", "[", "]", "@"]
        guard !host.isEmpty, !host.contains(where: { (character: Character) in forbidden.contains(character) }) else {
            throw Invalid(description: "no host in the URL")
        }
        let defaultPort = isTLS ? 443 : 80
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard portText.allSatisfy(\.isASCII), portText.count <= 5, let number = Int(portText), (1...65_535).contains(number) else {
                throw Invalid(description: "port \(portText) is not 1 to 65535")
            }
            port = number
        }
        server = Server(isTLS: isTLS, host: String(host), port: port)
        self.requestTarget = requestTarget
        let bracketed = host.contains(":") ? "[\(host)]" : String(host)
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// Where the first `://` begins.
    private static func firstSchemeSeparator(in bytes: String.UTF8View) -> String.Index? {
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let after = bytes[bytes.index(after: colon)...]
            if after.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) { return colon }
            index = bytes.index(after: colon)
        }
        return nil
    }

    /// Whether `text` has a space or a line break (any of Unicode's: `Character.isNewline`).
    private static func hasBlank(_ text: String) -> Bool {
        var isASCII = true
        for byte in text.utf8 {
            if byte == UInt8(ascii: " ") || (0x0A...0x0D).contains(byte) { return true }
            if byte >= 0x80 { isASCII = false }
        }
        // NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR are line breaks too.
        return !isASCII && text.contains { $0.isNewline }
    }

    /// The bytes of `text` with each `%XX` replaced by its byte (a `%` not followed by two hex digits stays).
    static func percentDecoded(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// The name a TLS server is asked for (SNI) and checked against: none for an address.
    var serverName: String? {
        let host = server.host
        if host.contains(":") { return nil }
        if host.split(separator: ".").count == 4, host.allSatisfy({ $0.isNumber || $0 == "." }) { return nil }
        return host
    }
}
