import RouteAdapters
import Testing

@Suite("Redirects navd follows")
struct RedirectPolicyTests {
    @Test(arguments: [
        ("http://127.0.0.1:8002/route", "/moved/route", "http://127.0.0.1:8002/moved/route"),
        ("http://127.0.0.1:8002/route", "http://127.0.0.1:8002/v2/route", "http://127.0.0.1:8002/v2/route"),
        ("http://Engine.example/route", "https://engine.example/route", "https://engine.example/route"),
        ("https://engine.example/route?api_key=k", "https://engine.example:443/v2/route", "https://engine.example:443/v2/route"),
    ])
    func sameServerRedirectsAreFollowed(from: String, location: String, expected: String) {
        #expect(RedirectPolicy.decide(from: from, location: location) == .follow(expected))
    }

    @Test(arguments: [
        ("http://127.0.0.1:8002/route", "http://127.0.0.2:8002/route", "another server"),
        ("http://127.0.0.1:8002/route", "http://127.0.0.1:9000/route", "another server"),
        ("https://engine.example/route", "http://engine.example/route", "from https to http"),
        ("https://engine.example/route", "//attacker.example/route", "another server"),
        ("http://127.0.0.1:8002/route", "ftp://127.0.0.1/route", "not http or https"),
        ("http://engine.example/route", "https://engine.example:8443/route", "another server"),
    ])
    func otherRedirectsAreRefused(from: String, location: String, says: String) {
        guard case .refuse(let why) = RedirectPolicy.decide(from: from, location: location) else {
            Issue.record("followed \(location)")
            return
        }
        #expect(why.contains(says), "\(why)")
    }
}
