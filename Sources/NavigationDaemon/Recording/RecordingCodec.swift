import FoundationEssentials
import Glibc
import LocationSources
import NavigationCore
import NavigationProtocol
import RouteClient

/// A recording's loop records: every ``LoopInput`` as one JSON object whose `rec` names it, with `now`, the wall
/// clock the loop gave the coordinator. Times are seconds since 2001-01-01T00:00:00Z (Foundation's reference
/// date) so that a replay sees the very same `Date` values; docs/recording.md lists every field.
public enum RecordingCodec {
    /// The format written in the header's `format`; a reader refuses a newer one.
    public static let formatVersion = 1

    public struct DecodeError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - Encoding

    /// The record as a tree (for tests and tools; a recording writes ``line(_:now:t:)``).
    public static func encode(_ input: LoopInput, now: Date) -> [String: JSONValue] {
        var object = members(input, now: now)
        if let routes = answeredRoutes(input) { object["routes"] = .array(routes.map { JSONLine.value($0) }) }
        return object
    }

    /// The record's line as a recording holds it, `t` (seconds since the recording started) included: the same
    /// bytes as ``encode(_:now:)`` serialized, with a route answer's routes written straight from the typed routes
    /// (``JSONTextEncoder``), not through a tree. The flight recorder calls this on its writer thread.
    public static func line(_ input: LoopInput, now: Date, t: Double) -> [UInt8] {
        var object = members(input, now: now)
        object["t"] = .number(t)
        var encoded: [String: [UInt8]] = [:]
        if let routes = answeredRoutes(input) {
            var text: [UInt8]
            do {
                text = try JSONTextEncoder().encode(routes)
            } catch {
                // A type whose encode(to:) the streaming encoder cannot follow: the tree writes the same bytes.
                text = JSONOutput.bytes { JSONText.append(.array(routes.map { JSONLine.value($0) }), into: &$0) }
            }
            encoded["routes"] = text
        }
        var out = JSONOutput()
        JSONText.appendObject(object, encoded: encoded, leading: FlightRecorder.leadingKeys, into: &out)
        out.append(UInt8(ascii: "\n"))
        return out.bytes
    }

    /// The routes of a route answer, which the record carries as `routes`.
    private static func answeredRoutes(_ input: LoopInput) -> [Route]? {
        if case .finished(_, let outcome) = input, case .success(let routes) = outcome.result { return routes }
        return nil
    }

    /// Every member of the record but a route answer's `routes`.
    private static func members(_ input: LoopInput, now: Date) -> [String: JSONValue] {
        var object: [String: JSONValue]
        switch input {
        case .reading(.fix(let fix)):
            object = ["rec": "fix", "fix": location(fix.location), "quality": quality(fix.quality)]
        case .reading(.noFix(let q, let time)):
            object = ["rec": "no_fix", "quality": quality(q)]
            if let time { object["time"] = .number(time.timeIntervalSinceReferenceDate) }
        case .sourceStatus(let status):
            object = ["rec": "source_status"].merging(sourceStatus(status)) { a, _ in a }
        case .connected(let client, let control):
            object = ["rec": "connected", "client": .number(Double(client)), "control": .bool(control)]
        case .command(let line, let client, let control):
            object = ["rec": "command", "client": .number(Double(client)), "control": .bool(control), "line": .object(line)]
        case .refused(let error, let id, let client):
            object = [
                "rec": "refused", "client": .number(Double(client)), "id": id ?? .null, "code": .string(error.code.rawValue),
                "message": .string(error.message),
            ]
        case .attemptFailed(let session, let failure):
            object = [
                "rec": "attempt_failed", "session": .number(Double(session)), "attempt": .number(Double(failure.attempt)),
                "engine": engine(failure.engine), "error": fetchError(failure.error), "retryIn": .number(failure.retryIn),
                "next": failure.next.map(engine) ?? .null,
            ]
        case .finished(let session, let outcome):
            object = [
                "rec": "finished", "session": .number(Double(session)), "attempts": .number(Double(outcome.attempts)),
                "answeredBy": outcome.answeredBy.map(engine) ?? .null,
                "failedEngines": .array(outcome.failedEngines.map { ["engine": engine($0.engine), "error": fetchError($0.error)] }),
            ]
            if case .failure(let error) = outcome.result { object["error"] = fetchError(error) }
        case .tick:
            object = ["rec": "tick"]
        case .reload(_, let configText):
            object = ["rec": "reload", "config": .string(configText)]
        }
        object["now"] = .number(now.timeIntervalSinceReferenceDate)
        return object
    }

    static func location(_ l: UserLocation) -> JSONValue {
        var object: [String: JSONValue] = [
            "lat": .number(l.coordinate.latitude), "lon": .number(l.coordinate.longitude), "accuracy": .number(l.horizontalAccuracy),
            "time": .number(l.timestamp.timeIntervalSinceReferenceDate),
        ]
        if let course = l.course {
            object["course"] = .number(course.degrees)
            if let accuracy = course.accuracy { object["courseAccuracy"] = .number(accuracy) }
        }
        if let speed = l.speed {
            object["speed"] = .number(speed.metersPerSecond)
            if let accuracy = speed.accuracy { object["speedAccuracy"] = .number(accuracy) }
        }
        return .object(object)
    }

    static func quality(_ q: GNSSQuality) -> JSONValue {
        var object: [String: JSONValue] = ["mode": .number(Double(q.mode.rawValue))]
        if let v = q.satellitesUsed { object["satellitesUsed"] = .number(Double(v)) }
        if let v = q.satellitesInView { object["satellitesInView"] = .number(Double(v)) }
        if let v = q.hdop { object["hdop"] = .number(v) }
        if let v = q.averageSignalStrength { object["signal"] = .number(v) }
        if let v = q.horizontalAccuracy { object["accuracy"] = .number(v) }
        if let v = q.altitude { object["altitude"] = .number(v) }
        if q.estimated { object["estimated"] = true }
        return .object(object)
    }

    static func sourceStatus(_ status: GNSSSourceStatus) -> [String: JSONValue] {
        switch status {
        case .connecting(let what): ["status": "connecting", "detail": .string(what)]
        case .connected(let what): ["status": "connected", "detail": .string(what)]
        case .disconnected(let reason, let retryIn): ["status": "disconnected", "detail": .string(reason), "retryIn": .number(retryIn)]
        case .receiverLost(let silentFor): ["status": "receiver_lost", "silentFor": .number(silentFor)]
        case .receiverBack: ["status": "receiver_back"]
        case .failed(let reason): ["status": "failed", "detail": .string(reason)]
        case .finished: ["status": "finished"]
        }
    }

    static func engine(_ identity: RouteEndpoint.Identity) -> JSONValue {
        ["name": .string(identity.name), "server": .string(identity.server)]
    }

    static func fetchError(_ error: RouteFetchError) -> JSONValue {
        var object: [String: JSONValue] = ["server": .string(error.server), "code": .string(error.code), "detail": .string(error.detail)]
        if case .responseTooLarge(let limit) = error.kind { object["limit"] = .number(Double(limit)) }
        return .object(object)
    }

    // MARK: - Decoding

    /// The loop input of a record and its `now`; nil for records that are not loop inputs (header, raw GNSS,
    /// HTTP exchanges, output lines).
    public static func decode(_ object: [String: JSONValue], settings: (String) throws -> TripCoordinator.Settings) throws -> (LoopInput, Date)? {
        guard let kind = object["rec"]?.stringValue else { return nil }
        let input: LoopInput
        switch kind {
        case "fix":
            input = .reading(.fix(GNSSFix(location: try location(object["fix"], in: kind), quality: try quality(object["quality"], in: kind))))
        case "no_fix":
            input = .reading(.noFix(try quality(object["quality"], in: kind), time: try optional(object, "time", PhysicalRange.referenceTime, in: kind).map(Date.init(timeIntervalSinceReferenceDate:))))
        case "source_status":
            input = .sourceStatus(try sourceStatus(object))
        case "connected":
            input = .connected(client: try int(object["client"], "client", in: kind), control: object["control"]?.boolValue ?? false)
        case "command":
            guard let line = object["line"]?.objectValue else { throw DecodeError("a command record has no line") }
            input = .command(line: line, client: try int(object["client"], "client", in: kind), control: object["control"]?.boolValue ?? false)
        case "refused":
            guard let code = object["code"]?.stringValue.flatMap(ProtocolError.Code.init(rawValue:)) else { throw DecodeError("a refused record has no known code") }
            let id = object["id"].flatMap { $0 == .null ? nil : $0 }
            input = .refused(ProtocolError(code, object["message"]?.stringValue ?? ""), id: id, client: try int(object["client"], "client", in: kind))
        case "attempt_failed":
            let next = try optionalEngine(object["next"])
            input = .attemptFailed(
                session: try int(object["session"], "session", in: kind),
                RouteCalculationRunner.FailedAttempt(
                    attempt: try int(object["attempt"], "attempt", in: kind), engine: try engine(object["engine"]),
                    error: try fetchError(object["error"]), retryIn: try optional(object, "retryIn", PhysicalRange.recordedDuration, in: kind) ?? 0,
                    next: next))
        case "finished":
            let result: Result<[Route], RouteFetchError>
            if let routes = object["routes"]?.arrayValue {
                result = .success(try routes.map(route))
            } else {
                result = .failure(try fetchError(object["error"]))
            }
            input = .finished(
                session: try int(object["session"], "session", in: kind),
                RouteCalculationRunner.Outcome(
                    result: result, attempts: try int(object["attempts"], "attempts", in: kind),
                    answeredBy: try optionalEngine(object["answeredBy"]),
                    failedEngines: try (object["failedEngines"]?.arrayValue ?? []).map {
                        RouteCalculationRunner.EngineFailure(engine: try engine($0["engine"]), error: try fetchError($0["error"]))
                    }))
        case "tick":
            input = .tick
        case "reload":
            guard let text = object["config"]?.stringValue else { throw DecodeError("a reload record has no config") }
            input = .reload(try settings(text), configText: text)
        default:
            return nil
        }
        let now = try number(object, "now", PhysicalRange.referenceTime, in: kind)
        return (input, Date(timeIntervalSinceReferenceDate: now))
    }

    // Every number of a recording passes CheckedNumber with its range: a crafted recording is a decode error
    // naming the record and the field, never a trap in navctl replay or report.

    private static func int(_ value: JSONValue?, _ name: String, in kind: String) throws -> Int {
        guard let number = CheckedNumber.whole(value, in: PhysicalRange.identifier) else {
            throw DecodeError("a \(kind) record has no whole number '\(name)' from 0 to 2^53")
        }
        return number
    }

    /// A required number inside `range`.
    private static func number(_ object: [String: JSONValue], _ key: String, _ range: ClosedRange<Double>, in kind: String) throws -> Double {
        guard let value = CheckedNumber.measure(object[key], in: range) else {
            throw DecodeError("a \(kind) record has no number '\(key)' from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// An optional number: absent or null is nil; present, it must be inside `range`.
    private static func optional(_ object: [String: JSONValue], _ key: String, _ range: ClosedRange<Double>, in kind: String) throws -> Double? {
        guard let value = object[key], value != .null else { return nil }
        return try number(object, key, range, in: kind)
    }

    private static func optionalCount(_ object: [String: JSONValue], _ key: String, in kind: String) throws -> Int? {
        guard let value = object[key], value != .null else { return nil }
        guard let count = CheckedNumber.whole(value, in: PhysicalRange.satelliteCount) else {
            throw DecodeError("a \(kind) record's '\(key)' is not a count from 0 to 255")
        }
        return count
    }

    static func location(_ value: JSONValue?, in kind: String) throws -> UserLocation {
        guard let object = value?.objectValue else { throw DecodeError("a \(kind) record has no fix") }
        let any = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
        let lat = try number(object, "lat", any, in: kind), lon = try number(object, "lon", any, in: kind)
        guard abs(lat) <= 90, abs(lon) <= 180 else { throw DecodeError("a \(kind) record lies off the globe (\(lat), \(lon))") }
        let courseAccuracy = try optional(object, "courseAccuracy", 0...360, in: kind)
        let speedAccuracy = try optional(object, "speedAccuracy", PhysicalRange.speed, in: kind)
        return UserLocation(
            coordinate: GeographicCoordinate(latitude: lat, longitude: lon), horizontalAccuracy: try number(object, "accuracy", PhysicalRange.accuracy, in: kind),
            course: try optional(object, "course", PhysicalRange.course, in: kind).map { CourseOverGround(degrees: $0, accuracy: courseAccuracy) },
            speed: try optional(object, "speed", PhysicalRange.speed, in: kind).map { Speed(metersPerSecond: $0, accuracy: speedAccuracy) },
            timestamp: Date(timeIntervalSinceReferenceDate: try number(object, "time", PhysicalRange.referenceTime, in: kind)))
    }

    static func quality(_ value: JSONValue?, in kind: String) throws -> GNSSQuality {
        // A mode of 1e300 trapped converting to Int before CheckedNumber.
        guard let object = value?.objectValue, let raw = CheckedNumber.whole(object["mode"], in: 1...3), let mode = GNSSFixMode(rawValue: raw) else {
            throw DecodeError("a \(kind) record has no quality with a mode of 1, 2 or 3")
        }
        return GNSSQuality(
            mode: mode, satellitesUsed: try optionalCount(object, "satellitesUsed", in: kind),
            satellitesInView: try optionalCount(object, "satellitesInView", in: kind), hdop: try optional(object, "hdop", PhysicalRange.hdop, in: kind),
            averageSignalStrength: try optional(object, "signal", 0...99, in: kind),
            horizontalAccuracy: try optional(object, "accuracy", PhysicalRange.accuracy, in: kind),
            altitude: try optional(object, "altitude", PhysicalRange.altitude, in: kind),
            estimated: object["estimated"]?.boolValue == true)
    }

    static func sourceStatus(_ object: [String: JSONValue]) throws -> GNSSSourceStatus {
        let detail = object["detail"]?.stringValue ?? ""
        switch object["status"]?.stringValue {
        case "connecting": return .connecting(detail)
        case "connected": return .connected(detail)
        case "disconnected": return .disconnected(reason: detail, retryIn: try optional(object, "retryIn", PhysicalRange.recordedDuration, in: "source_status") ?? 0)
        case "receiver_lost": return .receiverLost(silentFor: try optional(object, "silentFor", PhysicalRange.recordedDuration, in: "source_status") ?? 0)
        case "receiver_back": return .receiverBack
        case "failed": return .failed(detail)
        case "finished": return .finished
        case let other: throw DecodeError("unknown source status \(other ?? "(none)")")
        }
    }

    /// An engine, or nil for an absent or null value.
    static func optionalEngine(_ value: JSONValue?) throws -> RouteEndpoint.Identity? {
        guard let value, value != .null else { return nil }
        return try engine(value)
    }

    static func engine(_ value: JSONValue?) throws -> RouteEndpoint.Identity {
        guard let name = value?["name"]?.stringValue, let server = value?["server"]?.stringValue else {
            throw DecodeError("an engine needs a name and a server")
        }
        return RouteEndpoint.Identity(name: name, server: server)
    }

    static func fetchError(_ value: JSONValue?) throws -> RouteFetchError {
        guard let code = value?["code"]?.stringValue, let server = value?["server"]?.stringValue else {
            throw DecodeError("a routing error needs a code and a server")
        }
        let kind: RouteFetchError.Kind
        switch code {
        case "invalid_request": kind = .invalidRequest
        case "connection_failed": kind = .connectionFailed
        case "connection_lost": kind = .connectionLost
        case "timed_out": kind = .timedOut
        case "cancelled": kind = .cancelled
        case "response_too_large": kind = .responseTooLarge(limit: CheckedNumber.whole(value?["limit"], in: PhysicalRange.identifier) ?? 0)
        case "engine_refused": kind = .engineRefused
        case "invalid_response": kind = .invalidResponse
        case "provider_failed": kind = .providerFailed
        default:
            guard code.hasPrefix("http_"), let status = Int(code.dropFirst(5)) else { throw DecodeError("unknown routing error code \(code)") }
            kind = .httpStatus(status)
        }
        return RouteFetchError(server: server, kind: kind, detail: value?["detail"]?.stringValue ?? "")
    }

    static func route(_ value: JSONValue) throws -> Route {
        try JSONDecoder().decode(Route.self, from: Data(JSONLine.serialize(value.objectValue ?? [:])))
    }
}
