import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol

/// Replays a recording through the daemon's own logic: the coordinator starts from the header's seed and
/// configuration, every recorded loop input goes through ``TripCoordinator/step(_:now:command:client:recording:)``
/// at its recorded `now` (a manual clock), routing answers are the recorded ones, and events are numbered and
/// encoded as navd does (``EventSequencer``). The output lines (events, hellos, replies, errors, journal
/// decisions) are what navd sent while recording, byte for byte, unless its logic has changed since.
public struct DaemonReplay {
    public struct Result: Sendable {
        /// The lines the replay produced, each without its newline.
        public var replayed: [String]
        /// The output lines in the recording, in order.
        public var recorded: [String]
        /// Loop inputs replayed.
        public var inputs: Int
        /// The recording's header.
        public var header: [String: JSONValue]
        /// The recording with its output lines replaced by the replayed ones, each after the input that caused it
        /// (`navctl replay --rewrite`: accepting a change of behaviour, reviewed as a diff).
        public var rewritten: [String]

        /// The first line where the two differ (0-based), nil when identical.
        public var firstDifference: Int? {
            for index in 0..<max(replayed.count, recorded.count) {
                let a = index < replayed.count ? replayed[index] : nil
                let b = index < recorded.count ? recorded[index] : nil
                if a != b { return index }
            }
            return nil
        }
    }

    public struct ReplayError: Error, CustomStringConvertible {
        public var description: String
    }

    /// True for a line navd sent (an event, a hello, a reply, an error) or a journal decision: what a replay
    /// reproduces.
    public static func isOutput(_ line: Substring) -> Bool {
        line.hasPrefix("{\"type\":") || line.hasPrefix("{\"rec\":\"journal\"")
    }

    /// Replays the files of one recording (its first file, then any parts, in order).
    public static func run(_ texts: [String]) throws(ReplayError) -> Result {
        var lines: [Substring] = []
        for (index, text) in texts.enumerated() {
            var fileLines = text.split(separator: "\n", omittingEmptySubsequences: true)
            if index > 0, let first = fileLines.first, first.hasPrefix("{\"rec\":\"continued\"") { fileLines.removeFirst() }
            lines += fileLines
        }
        guard let first = lines.first, let header = try? JSONParser.parse(Array(first.utf8)).objectValue, header["rec"] == "header" else {
            if lines.first?.hasPrefix("{\"rec\":\"continued\"") == true {
                throw ReplayError(description: "this file continues an earlier part of a recording; give the recording's first file, then its parts")
            }
            throw ReplayError(description: "not a navd recording: the first line is not its header")
        }
        guard let format = CheckedNumber.whole(header["format"], in: 1...PhysicalRange.identifier.upperBound) else {
            throw ReplayError(description: "the header's format is not a whole number from 1 to 2^53")
        }
        guard format <= RecordingCodec.formatVersion else {
            throw ReplayError(description: "recording format \(format) is newer than this navctl reads (\(RecordingCodec.formatVersion))")
        }
        let settings = { (text: String) throws -> TripCoordinator.Settings in
            TripCoordinator.Settings(config: try ConfigLoader.parse(text, file: "the recorded configuration"))
        }
        var coordinator: TripCoordinator
        var sequencer: EventSequencer
        do {
            guard let configText = header["config"]?["text"]?.stringValue, let seedValue = header["seed"] else {
                throw ReplayError(description: "the header has no configuration or seed")
            }
            let seed = try RecordingSeed(json: seedValue)
            coordinator = TripCoordinator(settings: try settings(configText), seed: seed)
            sequencer = EventSequencer(seq: seed.seq)
        } catch let error as ReplayError {
            throw error
        } catch {
            throw ReplayError(description: "cannot start from the header: \(error)")
        }
        let router = CommandRouter.standard()
        var clients: [Int: ClientConnection] = [:]
        func client(_ id: Int, control: Bool) -> ClientConnection {
            if let known = clients[id] { return known }
            let made = ClientConnection(id: id, peer: PeerCredentials(pid: 0, uid: 0, gid: 0), mayControl: control, queueLimit: 1)
            clients[id] = made
            return made
        }
        var result = Result(replayed: [], recorded: [], inputs: 0, header: header, rewritten: [String(first)])
        for (number, line) in lines.enumerated().dropFirst() {
            if isOutput(line) {
                result.recorded.append(String(line))
                continue
            }
            result.rewritten.append(String(line))
            guard line.hasPrefix("{\"rec\":") else { continue }
            let decoded: (LoopInput, Date)?
            do {
                guard let object = try JSONParser.parse(Array(line.utf8)).objectValue else { continue }
                decoded = try RecordingCodec.decode(object, settings: settings)
            } catch {
                throw ReplayError(description: "line \(number + 1): \(error)")
            }
            guard let (input, now) = decoded else { continue }
            result.inputs += 1
            var answer: ServerMessage?
            switch input {
            case .connected(let id, let control):
                answer = coordinator.step(input, now: now, seq: sequencer.seq, client: client(id, control: control))
            case .command(let commandLine, let id, let control):
                let sender = client(id, control: control)
                do throws(ProtocolError) {
                    let prepared = try router.prepare(
                        type: commandLine["type"]?.stringValue ?? "", fields: CommandFields(commandLine), mayControl: control)
                    answer = coordinator.step(input, now: now, command: prepared, client: sender)
                } catch {
                    answer = .error(id: commandLine["id"], error)
                }
            default:
                answer = coordinator.step(input, now: now)
            }
            let producedBefore = result.replayed.count
            defer { result.rewritten += result.replayed[producedBefore...] }
            if let answer { result.replayed.append(text(answer.line)) }
            for effect in coordinator.takeEffects() {
                switch effect {
                case .publish(let event, let routeId):
                    result.replayed.append(text(sequencer.line(event, routeId: routeId)))
                case .saveJournal(let record):
                    result.replayed.append(text(JournalDecision.save(record).line))
                case .deleteJournal:
                    result.replayed.append(text(JournalDecision.delete.line))
                case .startCalculation, .cancelCalculation, .activeRouteChanged, .log, .saveVoiceMode:
                    break
                }
            }
        }
        return result
    }

    private static func text(_ line: [UInt8]) -> String {
        String(decoding: line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...], as: UTF8.self)
    }
}
