import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import RoadAhead
import TripPlanning

/// What a replay needs of the navigation loop's state when a recording starts: the coordinator's counters, its
/// last fix and GNSS health, the trip (as the journal would save it) and the event sequence number. At navd's
/// start this is the whole state, so a replay from it is exact; a recording started while a trip is under way
/// replays that trip resumed from its checkpoint, as navd resumes a journal (docs/recording.md).
public struct RecordingSeed: Sendable, Equatable {
    public var idPrefix: String
    public var seq: UInt64
    public var nextRoute: Int
    public var nextSession: Int
    public var generation: Int
    public var lastFix: GNSSFix?
    public var lastFixAt: Date?
    public var gnssHealth: GNSSHealth
    public var expectedRerouteLatency: Double
    public var sourceFinished: Bool
    /// The trip as the journal would save it (nil: no trip).
    public var trip: TripJournalRecord?
    /// The trip came from a journal of an earlier boot and waits for its first fix to confirm its age.
    public var confirmTripAgeOnFirstFix: Bool
    /// What the speed alert and free drive remember (``TripCoordinator/roadAheadMemory``): an alert on, a free-drive
    /// match or a request in flight when the recording starts. Absent in recordings made before them.
    public var roadAhead: JSONValue?
    /// The trip's arrival estimator (``TripPlanning/ArrivalEstimator/Memory``): the driver's pace so far. Absent
    /// without a trip and in recordings made before it.
    public var arrival: JSONValue?

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "idPrefix": .string(idPrefix), "seq": .number(Double(seq)), "nextRoute": .number(Double(nextRoute)),
            "nextSession": .number(Double(nextSession)), "generation": .number(Double(generation)),
            "gnss": ["status": .string(gnssHealth.status.rawValue), "detail": .string(gnssHealth.detail)],
            "expectedRerouteLatency": .number(expectedRerouteLatency), "sourceFinished": .bool(sourceFinished),
            "confirmTripAgeOnFirstFix": .bool(confirmTripAgeOnFirstFix),
            "trip": trip.map { JSONLine.value($0) } ?? .null,
        ]
        if let roadAhead { object["roadAhead"] = roadAhead }
        if let arrival { object["arrival"] = arrival }
        if let fix = lastFix {
            object["lastFix"] = RecordingCodec.location(fix.location)
            object["lastFixQuality"] = RecordingCodec.quality(fix.quality)
        }
        if let lastFixAt { object["lastFixAt"] = .number(lastFixAt.timeIntervalSinceReferenceDate) }
        return .object(object)
    }

    public init(json: JSONValue) throws {
        func int(_ key: String) throws -> Int {
            guard let value = CheckedNumber.whole(json[key], in: PhysicalRange.identifier) else {
                throw RecordingCodec.DecodeError("the header's seed has no whole number '\(key)' from 0 to 2^53")
            }
            return value
        }
        guard let prefix = json["idPrefix"]?.stringValue else { throw RecordingCodec.DecodeError("the header's seed has no idPrefix") }
        idPrefix = prefix
        seq = UInt64(try int("seq"))
        nextRoute = try int("nextRoute")
        nextSession = try int("nextSession")
        generation = try int("generation")
        if json["lastFix"] != nil {
            lastFix = GNSSFix(
                location: try RecordingCodec.location(json["lastFix"], in: "seed"), quality: try RecordingCodec.quality(json["lastFixQuality"], in: "seed"))
        }
        lastFixAt = CheckedNumber.measure(json["lastFixAt"], in: PhysicalRange.referenceTime).map(Date.init(timeIntervalSinceReferenceDate:))
        gnssHealth = GNSSHealth(
            status: json["gnss"]?["status"]?.stringValue.flatMap(GNSSHealth.Status.init(rawValue:)) ?? .lost,
            detail: json["gnss"]?["detail"]?.stringValue ?? "")
        expectedRerouteLatency = CheckedNumber.measure(json["expectedRerouteLatency"], in: PhysicalRange.recordedDuration) ?? 1.5
        sourceFinished = json["sourceFinished"]?.boolValue ?? false
        confirmTripAgeOnFirstFix = json["confirmTripAgeOnFirstFix"]?.boolValue ?? false
        roadAhead = json["roadAhead"]
        arrival = json["arrival"]
        if let trip = json["trip"], trip != .null {
            do {
                self.trip = try TripJournal.record(from: Data(JSONLine.serialize(trip.objectValue ?? [:])))
            } catch {
                throw RecordingCodec.DecodeError("the header's trip is unreadable: \(error.reason)")
            }
        }
    }

    init(
        idPrefix: String, seq: UInt64, nextRoute: Int, nextSession: Int, generation: Int, lastFix: GNSSFix?, lastFixAt: Date?,
        gnssHealth: GNSSHealth, expectedRerouteLatency: Double, sourceFinished: Bool, trip: TripJournalRecord?, confirmTripAgeOnFirstFix: Bool,
        roadAhead: JSONValue? = nil, arrival: JSONValue? = nil
    ) {
        self.roadAhead = roadAhead
        self.arrival = arrival
        self.idPrefix = idPrefix
        self.seq = seq
        self.nextRoute = nextRoute
        self.nextSession = nextSession
        self.generation = generation
        self.lastFix = lastFix
        self.lastFixAt = lastFixAt
        self.gnssHealth = gnssHealth
        self.expectedRerouteLatency = expectedRerouteLatency
        self.sourceFinished = sourceFinished
        self.trip = trip
        self.confirmTripAgeOnFirstFix = confirmTripAgeOnFirstFix
    }
}

extension TripCoordinator {
    /// The state a recording starting now begins from; `seq` is the last event's sequence number.
    public func recordingSeed(seq: UInt64, now: Date) -> RecordingSeed {
        RecordingSeed(
            idPrefix: idPrefix, seq: seq, nextRoute: nextRoute, nextSession: nextSession, generation: generation, lastFix: lastFix,
            lastFixAt: lastFixAt, gnssHealth: gnssHealth, expectedRerouteLatency: expectedRerouteLatency, sourceFinished: sourceFinished,
            trip: checkpoint(now: now), confirmTripAgeOnFirstFix: trip?.resumeFrom?.confirmAgeOnFirstFix ?? false,
            roadAhead: roadAheadMemory, arrival: trip.flatMap { try? JSONValueEncoder().encode($0.arrival.memory) })
    }

    /// The speed alert's and free drive's memory, and the free-drive request in flight, as a recording's seed
    /// carries them.
    var roadAheadMemory: JSONValue {
        let encoder = JSONValueEncoder()
        var object: [String: JSONValue] = ["nextFreeDriveRequest": .number(Double(nextFreeDriveRequest))]
        object["speedAlert"] = try? encoder.encode(speedAlerts.memory)
        object["freeDrive"] = try? encoder.encode(freeDrive.memory)
        if let freeDriveSession { object["freeDriveSession"] = .number(Double(freeDriveSession)) }
        return .object(object)
    }

    /// A coordinator in the state `seed` describes (a replay's start).
    public init(settings: Settings, seed: RecordingSeed) {
        self.init(settings: settings, idPrefix: seed.idPrefix, resume: seed.trip, confirmAgeOnFirstFix: seed.confirmTripAgeOnFirstFix)
        nextRoute = seed.nextRoute
        nextSession = seed.nextSession
        generation = seed.generation
        if let fix = seed.lastFix {
            _ = fixGate.check(fix.location)
            lastFix = fix
            lastFixAt = seed.lastFixAt
        }
        gnssHealth = seed.gnssHealth
        expectedRerouteLatency = seed.expectedRerouteLatency
        sourceFinished = seed.sourceFinished
        if let memory = seed.roadAhead {
            let decoder = JSONValueDecoder()
            if let value = memory["speedAlert"], let alerts = try? decoder.decode(SpeedAlertTracker.Memory.self, from: value) {
                speedAlerts = SpeedAlertTracker(rules: settings.speedAlert, memory: alerts)
            }
            if let value = memory["freeDrive"], let drive = try? decoder.decode(FreeDriveTracker.Memory.self, from: value) {
                freeDrive = FreeDriveTracker(rules: settings.freeDrive, memory: drive)
            }
            freeDriveSession = CheckedNumber.whole(memory["freeDriveSession"], in: PhysicalRange.identifier)
            nextFreeDriveRequest = CheckedNumber.whole(memory["nextFreeDriveRequest"], in: PhysicalRange.identifier) ?? 0
        }
        // The pace so far, for the trip the seed restored; a memory out of range starts the pace afresh.
        if trip != nil, let value = seed.arrival, let memory = try? JSONValueDecoder().decode(ArrivalEstimator.Memory.self, from: value),
            let estimator = ArrivalEstimator(settings: ArrivalSettings(), memory: memory)
        {
            trip!.arrival = estimator
        }
    }
}
