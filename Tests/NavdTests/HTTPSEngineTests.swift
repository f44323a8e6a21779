import Foundation
import Testing
import TestSupport

/// navd and an https engine: the real Valhalla behind a real TLS terminator (socat, with a certificate made by
/// openssl for the test), as a vehicle reaches a fleet's own endpoint. With the CA in `routing.ca_file` the trip
/// gets its route over TLS; without it the calculation fails saying the certificate is not trusted; a CA file
/// that cannot be read is logged at start.
@Suite(.serialized)
struct HTTPSEngineTests {
    /// Valhalla on `https://localhost:PORT`: socat terminates TLS and forwards to the test's Valhalla.
    static func terminator(_ certificate: TLSTestCertificate) throws -> (ExternalProcess, port: Int) {
        let valhalla = try #require(URL(string: try Engines.valhallaURL()))
        let port = freePort()
        let socat = try ExternalProcess(
            "socat",
            [
                "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,cert=\(certificate.certificate),key=\(certificate.key),verify=0",
                "TCP:127.0.0.1:\(valhalla.port ?? 8002)",
            ])
        #expect(waitForTCPListener(port: port, timeout: 5), "socat does not listen on \(port): \(socat.output)")
        return (socat, port)
    }

    static func navd(port: Int, caFile: String?) throws -> NavdInstance {
        try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = \(DeviatingDrive.origin.latitude), lon = \(DeviatingDrive.origin.longitude) }
                rate = 2
                speed = 10
                [routing]
                engine = "valhalla"
                url = "https://localhost:\(port)"
                max_attempts = 1
                \(caFile.map { "ca_file = \"\($0)\"" } ?? "")
                """)
    }

    @Test func aTripGetsItsRouteFromAnHTTPSEngineTheCAFileVouchesFor() throws {
        let certificate = try TLSTestCertificate()
        let (terminator, port) = try Self.terminator(certificate)
        defer { terminator.stop(signal: SIGKILL) }
        let navd = try Self.navd(port: port, caFile: certificate.certificate)
        try navd.start()
        let client = try navd.connect()
        #expect(client.waitFor(timeout: 10) { $0.type == "trip_state" } != nil)
        #expect(client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")?.type == "reply")
        let route = client.waitFor(timeout: 20) { $0.type == "route" }
        #expect(route != nil, "no route over https:\n\(navd.log.suffix(2000))\nsocat: \(terminator.output.suffix(500))")
        #expect((route?["distance"]?.doubleValue ?? 0) > 100)
        #expect(!navd.log.contains("cannot be used"))
    }

    @Test func withoutTheCATheCertificateIsNotTrustedAndSaysSo() throws {
        let certificate = try TLSTestCertificate()
        let (terminator, port) = try Self.terminator(certificate)
        defer { terminator.stop(signal: SIGKILL) }
        let navd = try Self.navd(port: port, caFile: nil)
        try navd.start()
        let client = try navd.connect()
        #expect(client.waitFor(timeout: 10) { $0.type == "trip_state" } != nil)
        _ = client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")
        let failed = client.receivedOrWaitFor(timeout: 20) { $0.type == "route_calculation" && $0["status"]?.stringValue == "failed" }
        #expect(failed?["error"]?["code"]?.stringValue == "connection_failed", "\(String(describing: failed))\n\(navd.log.suffix(1500))")
        #expect(failed?["error"]?["message"]?.stringValue?.contains("certificate is not trusted") == true, "\(String(describing: failed))")
        #expect(!client.received.contains { $0.type == "route" })
    }

    @Test func aCAFileThatCannotBeReadIsLoggedAtStart() throws {
        let navd = try Self.navd(port: 9, caFile: "/nonexistent/fleet-ca.pem")
        try navd.start()
        let client = try navd.connect()
        #expect(client.command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply", "navd runs")
        #expect(navd.log.contains("routing.ca_file /nonexistent/fleet-ca.pem cannot be used"), "\(navd.log.suffix(1500))")
    }
}
