import FoundationEssentials
import Glibc
import Logging
import LocationSources
import NavigationCore
import NavigationProtocol
import RouteAdapters
import RouteClient
import SystemSupport

/// Writes one recording (docs/recording.md): JSON Lines streamed to disk as they happen. Callers on any thread
/// append to a buffer and return at once; a writer thread writes it out at least every ``flushInterval``, so a
/// crash loses at most that much. A file that reaches `maxFileBytes` is continued in a next part file; when all
/// recordings in the directory exceed `maxTotalBytes`, the oldest files (of earlier recordings) are deleted. The
/// running recording counts too: when it alone would pass `maxTotalBytes`, or the file system's free space falls
/// below ``freeSpaceReserve`` (the trip journal lives on the same disk and must always have room), it ends with an
/// `end` record whose reason says so, and writes nothing more: a complete, replayable recording up to there.
public final class FlightRecorder: @unchecked Sendable {
    public struct Limits: Sendable {
        public var directory: String
        public var maxFileBytes: Int
        public var maxTotalBytes: Int

        public init(directory: String, maxFileBytes: Int, maxTotalBytes: Int) {
            self.directory = directory
            self.maxFileBytes = maxFileBytes
            self.maxTotalBytes = maxTotalBytes
        }

        public init(_ recording: NavdConfig.Recording) {
            self.init(
                directory: recording.directory, maxFileBytes: Int(recording.maxFileMegabytes * 1_048_576),
                maxTotalBytes: Int(recording.maxTotalMegabytes * 1_048_576))
        }
    }

    public struct CannotRecord: Error, CustomStringConvertible {
        public var description: String
    }

    /// Seconds between writes to disk at most: what a crash may lose.
    public static let flushInterval = 0.25
    /// Keys every recorder record starts with, in this order.
    static let leadingKeys = ["rec", "t", "now"]

    /// The first file of this recording; empty until the writer thread has opened it (``waitUntilOpen()``).
    public var path: String { condition.withLock { opened.flatMap { try? $0.get() } ?? "" } }
    public let limits: Limits
    private let logger: Logger
    private let started = ContinuousClock.now
    private let createdAt: Date
    /// The stem shared by this recording's parts (`drive-20261124T051200Z`); set by the writer thread.
    private var stem = ""

    // `condition` guards everything below.
    private let condition = ConditionLock()
    /// How opening the first file went (its path, or why not); nil while the writer thread is at it.
    private var opened: Result<String, CannotRecord>?
    /// What is on its way to the disk, in order: bytes, and records whose bytes the writer thread makes.
    private var pending: [Pending] = []
    private var pendingBytes = 0
    private var serialLine: [UInt8] = []
    private var stopping = false
    private var stopped = false
    // The writer thread's own: the open file, its size, the part number, paths of this recording's files.
    private var descriptor: Int32 = -1
    private var fileBytes = 0
    private var part = 1
    private var files: [String] = []
    private var writeFailure: String?
    private var droppedBytes = 0
    private var totalBytes = 0
    /// Bytes of the directory's other recordings, as last counted (at the start and after each prune).
    private var otherBytes = 0
    /// Why the recording ended early (max_total_mb, disk_full); nothing is written after its `end` record.
    private var endedEarly: String?

    /// Free space the recorder always leaves on its file system, bytes: the trip journal and the system's own
    /// files need room even when the recording directory's limit is larger than the disk.
    public static let freeSpaceReserve = 64 << 20
    /// Room kept below the limit for the `end` record, bytes.
    static let endRecordRoom = 4096

    /// Starts a recording without touching the disk: records are kept in memory from this moment, and the writer
    /// thread creates the directory if needed, opens the first file and prunes older recordings, then writes them
    /// with `header` first. Callers on the navigation loop use this, so slow storage never holds up a fix or the
    /// watchdog; ``waitUntilOpen()`` says how opening went.
    public init(opening limits: Limits, header: [String: JSONValue], createdAt: Date, logger: Logger) {
        self.limits = limits
        self.logger = logger
        self.createdAt = createdAt
        var header = header
        header["rec"] = "header"
        header["format"] = .number(Double(RecordingCodec.formatVersion))
        header["created"] = .string(ISO8601Timestamp.format(createdAt))
        pending = [.bytes(JSONLine.serialize(header, leading: Self.leadingKeys))]
        // Nice 10: encoding a route answer takes milliseconds of CPU, which a reroute on a two-core computer needs.
        DetachedThread.start(name: "navd recorder", niceness: 10) { [self] in
            let result = openFirstFile()
            condition.withLock {
                opened = result
                if case .failure = result {
                    // Nothing will be written: what was kept in memory goes, and stop() returns at once.
                    pending = []
                    stopping = true
                    stopped = true
                }
                condition.broadcast()
            }
            if case .success = result { writeUntilStopped() }
        }
    }

    /// Creates the directory if needed and the recording's first file, and writes `header` into it; returns once
    /// the file is open (for callers off the navigation loop: navd's start, tests).
    public convenience init(limits: Limits, header: [String: JSONValue], createdAt: Date, logger: Logger) throws(CannotRecord) {
        self.init(opening: limits, header: header, createdAt: createdAt, logger: logger)
        if case .failure(let error) = waitUntilOpen() { throw error }
    }

    /// Waits until the writer thread has opened the first file: its path, or why it could not.
    public func waitUntilOpen() -> Result<String, CannotRecord> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let opened { return opened }
            condition.wait()
        }
    }

    /// On the writer thread: the directory, a free name, the first file, and room made by older recordings.
    private func openFirstFile() -> Result<String, CannotRecord> {
        do {
            try FileManager.default.createDirectory(atPath: limits.directory, withIntermediateDirectories: true)
        } catch {
            return .failure(CannotRecord(description: "cannot create the recording directory \(limits.directory): \(describeFileError(error))"))
        }
        var stem = "drive-" + Self.fileTime(createdAt)
        var suffix = 1
        while FileManager.default.fileExists(atPath: "\(limits.directory)/\(stem).jsonl") {
            suffix += 1
            stem = "drive-" + Self.fileTime(createdAt) + "-\(suffix)"
        }
        self.stem = stem
        let path = "\(limits.directory)/\(stem).jsonl"
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            return .failure(CannotRecord(description: "cannot create \(path): \(String(cString: strerror(errno)))"))
        }
        files = [path]
        pruneOldRecordings()
        return .success(path)
    }

    /// Seconds since the recording started (monotonic).
    public var elapsed: Double {
        let parts = started.duration(to: .now).components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    // MARK: - Records

    /// A recorder record (`rec` names it); `t`, the monotonic seconds since the start, is added.
    public func record(_ object: [String: JSONValue]) {
        var object = object
        object["t"] = .number((elapsed * 1e6).rounded() / 1e6)
        append(JSONLine.serialize(object, leading: Self.leadingKeys))
    }

    /// What the navigation loop was given (`now`: the wall clock it gave the coordinator), as a `rec` record. The
    /// time `t` is taken now; the line is written on the writer thread, so a route answer's routes (milliseconds
    /// of JSON for a long route) cost the loop nothing.
    public func record(_ input: LoopInput, now: Date) {
        let t = (elapsed * 1e6).rounded() / 1e6
        appendLater { RecordingCodec.line(input, now: now, t: t) }
    }

    /// A line navd sent (an event, a hello, a reply, an error), exactly as sent.
    public func recordLine(_ line: [UInt8]) {
        append(line)
    }

    /// The GNSS source's input as received: serial bytes are cut into lines (each recorded when its newline
    /// arrives, bytes as Latin-1 characters), gpsd reports are one record each.
    public func record(_ raw: RawGNSSInput) {
        switch raw {
        case .gpsdJSON(let text):
            record(["rec": "gpsd", "json": .string(text)])
        case .serialBytes(let bytes):
            var lines: [[UInt8]] = []
            condition.lock()
            for byte in bytes {
                if byte == UInt8(ascii: "\n") || serialLine.count >= 4096 {
                    lines.append(serialLine)
                    serialLine.removeAll(keepingCapacity: true)
                } else if byte != UInt8(ascii: "\r") {
                    serialLine.append(byte)
                }
            }
            condition.unlock()
            guard !lines.isEmpty else { return }
            // The serial source reads on the navigation loop's event loop: the records are made on the writer thread.
            let t = (elapsed * 1e6).rounded() / 1e6
            appendLater { [lines] in
                var text: [UInt8] = []
                for line in lines {
                    let record: [String: JSONValue] = [
                        "rec": "serial", "line": .string(String(String.UnicodeScalarView(line.map { Unicode.Scalar($0) }))), "t": .number(t),
                    ]
                    text += JSONLine.serialize(record, leading: Self.leadingKeys)
                }
                return text
            }
        }
    }

    /// A request to a routing engine and how it ended, secrets replaced by `***`. The time `t` is taken now;
    /// the answer's text (tens of kilobytes to megabytes, scrubbed and escaped) is written on the writer thread,
    /// so the recorder adds nothing to the calculation that waits for the answer.
    public func record(_ exchange: RouteHTTPExecutor.Exchange) {
        let t = (elapsed * 1e6).rounded() / 1e6
        appendLater {
            var object: [String: JSONValue] = [
                "rec": "http", "method": .string(exchange.method), "url": .string(exchange.url),
                "seconds": .number((exchange.seconds * 1e6).rounded() / 1e6), "t": .number(t),
            ]
            if let body = exchange.requestBody { object["requestBody"] = .string(body) }
            if let status = exchange.status { object["status"] = .number(Double(status)) }
            if let body = exchange.responseBody { object["responseBody"] = .string(body) }
            if let error = exchange.error { object["error"] = RecordingCodec.fetchError(error) }
            return JSONLine.serialize(object, leading: Self.leadingKeys)
        }
    }

    // MARK: - Stopping

    public struct Summary: Sendable {
        public var files: [String]
        public var bytes: Int
        public var seconds: Double
    }

    /// Writes an `end` record, flushes and closes. Returns once everything is on disk.
    @discardableResult
    public func stop(reason: String) -> Summary {
        record(["rec": "end", "reason": .string(reason)])
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        let summary = Summary(files: files, bytes: totalBytes, seconds: elapsed)
        condition.unlock()
        return summary
    }

    // MARK: - Writing

    /// Bytes on their way to the disk, or a record the writer thread turns into bytes.
    private enum Pending {
        case bytes([UInt8])
        case later(@Sendable () -> [UInt8])
    }

    /// Queues a record whose line the writer thread makes, in its place among the others.
    private func appendLater(_ line: @escaping @Sendable () -> [UInt8]) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return }
        pending.append(.later(line))
    }

    private func append(_ line: [UInt8]) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return }
        // Runs of lines share one buffer (popped, so it is extended in place).
        if case .bytes(var bytes)? = pending.last {
            pending.removeLast()
            bytes += line
            pending.append(.bytes(bytes))
        } else {
            pending.append(.bytes(line))
        }
        pendingBytes += line.count
        if pendingBytes >= 1 << 20 { condition.signal() }
    }

    private func writeUntilStopped() {
        condition.lock()
        while true {
            if pending.isEmpty, !stopping { condition.wait(seconds: Self.flushInterval) }
            let chunk = pending
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
            let last = stopping
            condition.unlock()
            for piece in chunk {
                switch piece {
                case .bytes(let bytes): write(bytes)
                case .later(let line): write(line())
                }
            }
            condition.lock()
            if last, pending.isEmpty { break }
        }
        close(descriptor)
        descriptor = -1
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Writes whole lines, moving to the next part before a line that would take the file past its limit.
    private func write(_ chunk: [UInt8]) {
        guard fileBytes + chunk.count > limits.maxFileBytes else { return writeOut(chunk) }
        var start = 0
        while start < chunk.count {
            let end = (chunk[start...].firstIndex(of: UInt8(ascii: "\n")) ?? chunk.count - 1) + 1
            if fileBytes > 0, fileBytes + (end - start) > limits.maxFileBytes { nextPart() }
            writeOut(Array(chunk[start..<end]))
            start = end
        }
    }

    private func writeOut(_ chunk: [UInt8]) {
        guard descriptor >= 0, endedEarly == nil, hasRoom(for: chunk.count) else {
            droppedBytes += chunk.count
            return
        }
        var offset = 0
        let failure: String? = chunk.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
        fileBytes += offset
        totalBytes += offset
        if let failure {
            droppedBytes += chunk.count - offset
            if writeFailure == nil { logger.error("cannot write the recording \(files.last ?? path): \(failure); records are dropped until it works again") }
            writeFailure = failure
        } else if writeFailure != nil {
            logger.notice("recording written again after \(droppedBytes) bytes were dropped")
            writeFailure = nil
        }
    }

    /// True when `count` more bytes keep the recordings within `maxTotalBytes` and the disk above its reserve.
    /// Otherwise earlier recordings are pruned first; when that is not enough, the recording ends here.
    private func hasRoom(for count: Int) -> Bool {
        let limit = limits.maxTotalBytes - Self.endRecordRoom
        if totalBytes + otherBytes + count <= limit, freeSpace().map({ $0 - count >= Self.freeSpaceReserve }) ?? true { return true }
        pruneOldRecordings(needing: count)
        var reason: String?
        if totalBytes + otherBytes + count > limit {
            reason = "max_total_mb"
        } else if let free = freeSpace(), free - count < Self.freeSpaceReserve {
            reason = "disk_full"
        }
        guard let reason else { return true }
        endedEarly = reason
        let end = JSONLine.serialize(["rec": "end", "reason": .string(reason), "t": .number((elapsed * 1e6).rounded() / 1e6)], leading: Self.leadingKeys)
        _ = end.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) }
        totalBytes += end.count
        fileBytes += end.count
        logger.warning(
            "recording \(files.last ?? path) ended: \(reason == "disk_full" ? "the disk keeps \(Self.freeSpaceReserve >> 20) MB free for the trip journal" : "recording.max_total_mb (\(limits.maxTotalBytes >> 20) MB) reached, this recording included"); nothing more is recorded until the next recording")
        return false
    }

    /// Free bytes on the recording directory's file system for an unprivileged writer; nil when unknown.
    private func freeSpace() -> Int? {
        var info = statvfs()
        guard statvfs(limits.directory, &info) == 0 else { return nil }
        let free = Double(info.f_bavail) * Double(info.f_frsize)
        return CheckedNumber.clampedWhole(free, rounding: .down, in: 0...Int.max)
    }

    /// Closes the current file and opens the next part, which starts with a `continued` record.
    private func nextPart() {
        close(descriptor)
        part += 1
        let next = "\(limits.directory)/\(stem).\(part).jsonl"
        descriptor = open(next, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        fileBytes = 0
        guard descriptor >= 0 else {
            logger.error("cannot create the recording part \(next): \(String(cString: strerror(errno)))")
            return
        }
        files.append(next)
        let header = JSONLine.serialize(
            ["rec": "continued", "part": .number(Double(part)), "from": .string(PathText.lastComponent(of: files[files.count - 2])),
             "t": .number((elapsed * 1e6).rounded() / 1e6)],
            leading: Self.leadingKeys)
        writeOut(header)
        pruneOldRecordings()
    }

    /// Deletes the oldest recording files of earlier recordings while the directory, with `needing` bytes more,
    /// would hold more than the limit (less the room kept for an `end` record).
    private func pruneOldRecordings(needing: Int = 0) {
        let directory = limits.directory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        var entries: [(path: String, size: Int, modified: Date)] = names.filter { $0.hasSuffix(".jsonl") }.compactMap { name in
            let path = "\(directory)/\(name)"
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            return (path, (attributes[.size] as? Int) ?? 0, (attributes[.modificationDate] as? Date) ?? .distantPast)
        }
        var total = entries.reduce(0) { $0 + $1.size }
        entries.sort { $0.modified < $1.modified }
        // The running recording's bytes not yet written count too: they are on their way to the disk.
        let pending = totalBytes - entries.filter { files.contains($0.path) }.reduce(0) { $0 + $1.size }
        let limit = limits.maxTotalBytes - Self.endRecordRoom
        for entry in entries where total + max(0, pending) + needing > limit && !files.contains(entry.path) {
            if (try? FileManager.default.removeItem(atPath: entry.path)) != nil {
                total -= entry.size
                logger.notice("deleted the old recording \(entry.path) (recording.max_total_mb)")
            }
        }
        otherBytes = total - entries.filter { files.contains($0.path) }.reduce(0) { $0 + $1.size }
    }

    static func fileTime(_ date: Date) -> String {
        ISO8601Timestamp.format(date).filter { $0 != "-" && $0 != ":" }.split(separator: ".").first.map { String($0).replacing("Z", with: "") + "Z" } ?? "recording"
    }
}

/// A configuration's text with its secrets replaced by `***`, for a recording's header: secrets inside URLs
/// (what ``HTTPRequestSpec/secrets`` keeps out of logs), and the value of every key named like a secret
/// (``HTTPRequestSpec/secretWords``), on a line of its own (`api_key = "…"`) or inside an inline table
/// (`options = { api_key = "…", costing = "auto" }`).
public enum ConfigRedaction {
    public static func redact(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var line = String(line)
            // Secrets inside URLs: whatever HTTPRequestSpec would keep out of logs.
            for url in quotedStrings(line) where url.contains("://") {
                for secret in HTTPRequestSpec(method: .get, url: url).secrets {
                    line = line.replacing(secret, with: "***")
                }
            }
            return redactSecretKeys(line)
        }.joined(separator: "\n")
    }

    /// Every `name = value` on the line whose name says secret gets `"***"` as its value: a quoted string (basic
    /// or literal, escapes included) or a bare value up to the next `,`, `}`, `]` or blank. A comment ends it.
    static func redactSecretKeys(_ line: String) -> String {
        let bytes = Array(line.utf8)
        var out: [UInt8] = []
        var index = 0
        var nameStart = 0
        func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E || b == 0x22 || b == 0x27
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") {
                out += bytes[index...]
                break
            }
            if byte == UInt8(ascii: "\""), index > 0, bytes[..<index].last(where: { $0 != 0x20 }) == UInt8(ascii: "=") {
                // A value that is a basic string: copy it whole (its text is no key name).
                let end = stringEnd(bytes, from: index)
                out += bytes[index..<end]
                index = end
                nameStart = index
                continue
            }
            if byte == UInt8(ascii: "=") {
                let name = String(decoding: bytes[nameStart..<index].filter { $0 != 0x20 && $0 != 0x09 && $0 != UInt8(ascii: "\"") }, as: UTF8.self)
                out.append(byte)
                index += 1
                guard HTTPRequestSpec.namesSecret(name) else { continue }
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { out.append(bytes[index]); index += 1 }
                var end = index
                if end < bytes.count, bytes[end] == UInt8(ascii: "\"") || bytes[end] == UInt8(ascii: "'") {
                    end = stringEnd(bytes, from: end)
                } else {
                    while end < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, UInt8(ascii: "#")].contains(bytes[end]) { end += 1 }
                }
                out += Array(#""***""#.utf8)
                index = end
                nameStart = index
                continue
            }
            if !isNameByte(byte), byte != 0x20, byte != 0x09 { nameStart = index + 1 }
            out.append(byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The index after the string that starts at `start` (a `"` with backslash escapes, or a `'` literal).
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        let quote = bytes[start]
        var index = start + 1
        while index < bytes.count {
            if quote == UInt8(ascii: "\""), bytes[index] == UInt8(ascii: "\\") { index += 2; continue }
            if bytes[index] == quote { return index + 1 }
            index += 1
        }
        return bytes.count
    }

    private static func quotedStrings(_ line: String) -> [String] {
        let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
    }
}
