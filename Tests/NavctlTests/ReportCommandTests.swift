import Foundation
import Testing
import TestSupport

/// `navctl report` end to end: the real navctl writes the page from a golden recording of a real drive, and a
/// real browser (Debian's headless Chromium) renders it.
@Suite("navctl report", .serialized)
struct ReportCommandTests {
    static let recording = NavctlProcess.repoRoot.appendingPathComponent("Tests/NavigationDaemonTests/Fixtures/Recordings/valhalla-missed-turn.jsonl").path

    static func chromium() throws -> URL {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        Issue.record("chromium is not installed: scripts/setup installs Debian's chromium")
        throw CancellationError()
    }

    static func browse(_ arguments: [String]) throws -> ToolRun.Output {
        try ToolRun.run(try chromium(), ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"] + arguments)
    }

    /// Share of pixels that are not near-white, and how many distinct colours (to 4 bits a channel) a PNG holds.
    static let pngStats = #"""
    import sys, zlib, struct
    data = open(sys.argv[1], 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, width = 8, b'', 0
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos+8]); body = data[pos+8:pos+8+length]; pos += 12 + length
        if kind == b'IHDR': width, height, depth, ctype = struct.unpack('>IIBB', body[:10])
        if kind == b'IDAT': idat += body
    channels = {2: 3, 6: 4}[ctype]; stride = width * channels
    raw = zlib.decompress(idat); rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
        for x in range(stride):
            a = line[x-channels] if x >= channels else 0; b = prev[x]; c = prev[x-channels] if x >= channels else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    ink, colours = 0, set()
    for line in rows:
        for x in range(0, stride, channels):
            r, g, b = line[x], line[x+1], line[x+2]
            colours.add((r >> 4, g >> 4, b >> 4))
            if min(r, g, b) < 235: ink += 1
    print(f"{ink / (width * height):.4f} {len(colours)} {width} {height}")
    """#

    @Test func theReportRendersInARealBrowserWithTheMapAndTimeline() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navd-report-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("report.html").path
        let written = try NavctlProcess.run(["report", Self.recording, "-o", page])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stderr.hasPrefix("wrote \(page): 2 route(s), 1 reroute(s)"), "\(written.stderr)")

        // The DOM as the browser built it: the map's layers and the timeline are there.
        let dom = try Self.browse(["--dump-dom", "file://\(page)"])
        #expect(dom.status == 0, "\(dom.stderr.suffix(500))")
        #expect(dom.stdout.contains(#"<svg id="map""#) && dom.stdout.contains(#"<svg id="chart""#))
        #expect(dom.stdout.components(separatedBy: #"class="route route-"#).count - 1 == 2)
        #expect(dom.stdout.contains(#"class="deviation""#) && dom.stdout.contains("off route by"))
        // The whole trip, across its reroute (2198 m in the recording's `arrived`).
        #expect(dom.stdout.contains("<td>arrived after 2.2 km</td>"))

        // The picture is not blank: drawn lines, markers and text in many colours.
        let png = directory.appendingPathComponent("report.png").path
        let shot = try Self.browse(["--window-size=1100,2400", "--screenshot=\(png)", "file://\(page)"])
        #expect(FileManager.default.fileExists(atPath: png), "no screenshot: \(shot.stderr.suffix(500))")
        let stats = try ToolRun.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", Self.pngStats, png])
        let fields = stats.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(fields.count == 4, "\(stats.stdout)\(stats.stderr)")
        print("report screenshot: \(Int(fields[2]))×\(Int(fields[3])) px, \(fields[0] * 100)% ink, \(Int(fields[1])) colours")
        #expect(fields[0] > 0.03, "the page is nearly blank")
        #expect(fields[1] >= 16, "the map's colours are missing")
    }

    @Test func aFileThatIsNotARecordingIsOneClearLine() throws {
        let output = try NavctlProcess.run(["report", NavctlProcess.fixture("helsinki_osrm_plain"), "-o", "/dev/null"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("not a navd recording"), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }
}

/// Shell completions come from navctl itself (the Debian package installs them for bash, zsh and fish).
@Suite("navctl completions")
struct CompletionTests {
    @Test(arguments: ["bash", "zsh", "fish"])
    func everyCommandIsCompleted(_ shell: String) throws {
        let output = try NavctlProcess.run(["--generate-completion-script", shell])
        #expect(output.status == 0, "\(output.stderr)")
        for command in ["status", "navigate", "cancel", "watch", "record", "report", "replay", "route", "simulate", "gnss"] {
            #expect(output.stdout.contains(command), "\(shell) completion lacks \(command)")
        }
    }
}
