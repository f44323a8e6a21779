import Foundation
import Glibc
import NavigationCore
import Testing
import TestSupport

/// Debian's Chromium, headless, driven over its DevTools protocol on 127.0.0.1 (through ``WebSocketTestClient``):
/// one page that stays open for a whole drive, evaluated, clicked and photographed while navd sends it events.
/// Everything the page logs as an error, and every exception it throws, is kept in ``consoleErrors``.
final class HeadlessBrowser {
    private let process: ExternalProcess
    private let devtools: WebSocketTestClient
    private let profile: URL
    private var nextId = 1
    /// Console errors, uncaught exceptions and failed loads, as Chromium reported them.
    private(set) var consoleErrors: [String] = []

    static func chromium() throws -> String {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        Issue.record("chromium is not installed: scripts/setup installs Debian's chromium")
        throw CancellationError()
    }

    /// Opens `url` in a `width` x `height` window (CSS pixels, scale 1).
    init(url: String, width: Int = 900, height: Int = 1100) throws {
        let port = freePort()
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("navd-chromium-\(UUID().uuidString.prefix(8))")
        process = try ExternalProcess(try Self.chromium(), [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
            "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=\(port)", "--user-data-dir=\(profile.path)",
            "--window-size=\(width),\(height)", "--force-device-scale-factor=1", "about:blank",
        ])
        // The page target's DevTools address, once Chromium listens.
        var target: String?
        for _ in 0..<100 where target == nil {
            usleep(100_000)
            guard let list = try? ToolRun.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "http://127.0.0.1:\(port)/json/list"]).stdout,
                  let targets = try? JSONParser.parse(Array(list.utf8)).arrayValue else { continue }
            target = targets.first { $0.type == "page" }?["webSocketDebuggerUrl"]?.stringValue
        }
        guard let target, let path = target.range(of: "/devtools/").map({ String(target[$0.lowerBound...]) }) else {
            process.stop()
            Issue.record("Chromium's DevTools did not answer on 127.0.0.1:\(port):\n\(process.output.suffix(2000))")
            throw CancellationError()
        }
        devtools = try WebSocketTestClient(port: port, target: path)
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] { _ = try call(domain) }
        _ = try call("Page.navigate", ["url": url])
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: profile)
    }

    /// One DevTools command; its `result`. Events that arrive meanwhile are read for errors.
    @discardableResult
    func call(_ method: String, _ parameters: [String: Any] = [:], timeout: Double = 15) throws -> JSONValue {
        let id = nextId
        nextId += 1
        let message = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": parameters])
        devtools.send(Array(message))
        let deadline = Date().addingTimeInterval(timeout)
        while let frame = devtools.nextFrame(timeout: deadline.timeIntervalSinceNow) {
            guard let value = try? JSONParser.parse(frame.payload) else { continue }
            if value["id"]?.doubleValue == Double(id) {
                if let error = value["error"] { throw BrowserError("\(method): \(error)") }
                return value["result"] ?? .object([:])
            }
            note(value)
        }
        throw BrowserError("\(method): no answer in \(timeout) s")
    }

    private func note(_ event: JSONValue) {
        let parameters = event["params"]
        switch event["method"]?.stringValue {
        case "Runtime.consoleAPICalled" where ["error", "assert"].contains(parameters?["type"]?.stringValue):
            consoleErrors.append("console.\(parameters?["type"]?.stringValue ?? ""): \(parameters?["args"] ?? .null)")
        case "Runtime.exceptionThrown":
            consoleErrors.append("exception: \(parameters?["exceptionDetails"] ?? .null)")
        case "Log.entryAdded" where parameters?["entry"]?["level"]?.stringValue == "error":
            consoleErrors.append("log: \(parameters?["entry"]?["text"]?.stringValue ?? "") \(parameters?["entry"]?["url"]?.stringValue ?? "")")
        default:
            break
        }
    }

    /// The value of a JavaScript expression in the page (JSON-able values only).
    func evaluate(_ expression: String) throws -> JSONValue {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        if let exception = result["exceptionDetails"] { throw BrowserError("\(expression): \(exception)") }
        return result["result"]?["value"] ?? .null
    }

    /// Waits up to `timeout` seconds for `expression` to be true in the page, evaluating it every 50 ms.
    func waitUntil(_ expression: String, timeout: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            // An expression that throws (the page still loading) is not true yet.
            if (try? evaluate(expression)) == .bool(true) { return true }
            usleep(50_000)
        } while Date() < deadline
        return false
    }

    /// A text's content, "" when the element is missing.
    func text(_ selector: String) throws -> String {
        try evaluate("(document.querySelector('\(selector)') || {}).textContent || ''").stringValue ?? ""
    }

    /// Clicks an element as a driver would (the page's own handler runs).
    func click(_ selector: String) throws {
        _ = try evaluate("document.querySelector('\(selector)').click()")
    }

    /// A screenshot and where elements were on it.
    struct Screenshot {
        var path: String
        /// Selector: "x,y,w,h" in CSS pixels (scale 1: PNG pixels).
        var boxes: [String: String]
    }

    /// The page as a PNG file at `path`, with the boxes of `selectors` as they were.
    func screenshot(_ path: String, boxes selectors: [String] = []) throws -> Screenshot {
        var boxes: [String: String] = [:]
        for selector in selectors { boxes[selector] = try box(selector) }
        let result = try call("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"]?.stringValue, let data = Data(base64Encoded: base64) else { throw BrowserError("no screenshot") }
        try data.write(to: URL(fileURLWithPath: path))
        return Screenshot(path: path, boxes: boxes)
    }

    /// An element's box in CSS pixels ("x,y,w,h"), as png_colors.py takes it.
    func box(_ selector: String) throws -> String {
        try evaluate("(() => { const r = document.querySelector('\(selector)').getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round).join(','); })()")
            .stringValue ?? "0,0,0,0"
    }

    /// How much of each element's box in `screenshot` is near each colour (hex): `[selector: [colour: fraction]]`.
    static func colours(_ screenshot: Screenshot, _ colours: [String: String]) throws -> [String: [String: Double]] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/png_colors.py").path
        var arguments = [script, screenshot.path]
        for (selector, box) in screenshot.boxes { arguments.append("\(selector)=\(box)") }
        for (name, hex) in colours { arguments.append("\(name)=\(hex)") }
        let run = try ToolRun.run(URL(fileURLWithPath: "/usr/bin/python3"), arguments)
        let value = try JSONParser.parse(Array(run.stdout.utf8))
        var result: [String: [String: Double]] = [:]
        for selector in screenshot.boxes.keys {
            for name in colours.keys { result[selector, default: [:]][name] = value[selector]?[name]?.doubleValue ?? 0 }
        }
        return result
    }
}

struct BrowserError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
