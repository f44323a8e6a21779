import Foundation
import Testing

/// A certificate for `localhost` and 127.0.0.1, signed by itself, with its key: PEM files made by openssl in a
/// directory of their own, for https servers started by tests. Removed with the value.
public final class TLSTestCertificate: @unchecked Sendable {
    public let directory: URL
    public var certificate: String { directory.appendingPathComponent("cert.pem").path }
    public var key: String { directory.appendingPathComponent("key.pem").path }

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navd-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let openssl = try ExternalProcess(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", directory.appendingPathComponent("key.pem").path, "-out",
                directory.appendingPathComponent("cert.pem").path,
            ])
        let status = openssl.waitForExit(timeout: 60)
        #expect(status == 0, "openssl could not make a certificate: \(openssl.output)")
        guard status == 0 else { throw CancellationError() }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
