import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import TripPlanning

/// What a handler may touch: the navigation state, the clock, and the client that sent the command.
public struct CommandContext: Sendable {
    public var now: Date
    public var client: ClientConnection
    /// The flight recorder's switch (nil in a replay, which never runs `record`).
    public var recording: RecordingControl?
    /// Answers the command after its handler returned nil (work that must not run on the navigation loop); nil
    /// where every command answers at once.
    public var answerLater: (@Sendable (Result<[String: JSONValue], ProtocolError>) -> Void)?

    public init(
        now: Date, client: ClientConnection, recording: RecordingControl? = nil,
        answerLater: (@Sendable (Result<[String: JSONValue], ProtocolError>) -> Void)? = nil
    ) {
        self.now = now
        self.client = client
        self.recording = recording
        self.answerLater = answerLater
    }

    /// ``answerLater`` for a command whose result is `Reply`, encoded as a reply's `result`.
    func answerLater<Reply: Encodable & Sendable>(_: Reply.Type) -> (@Sendable (Result<Reply, ProtocolError>) -> Void)? {
        guard let answerLater else { return nil }
        return { outcome in answerLater(outcome.map { CommandRouter.encoded($0) }) }
    }
}

/// A decoded command ready to run on the navigation loop.
public struct PreparedCommand: Sendable {
    public let type: String
    /// The command line as received (its JSON object): what the flight recorder keeps.
    public let line: [String: JSONValue]
    /// The reply's `result`, or nil when the handler answers later (``CommandContext/answerLater``).
    public let run: @Sendable (inout TripCoordinator, CommandContext) throws(ProtocolError) -> [String: JSONValue]?
}

/// Maps a command's `type` to its decoder and handler. Adding a command is one `register` call.
public struct CommandRouter: Sendable {
    private struct Route: Sendable {
        var requiresControl: Bool
        var prepare: @Sendable (CommandFields) throws(ProtocolError) -> PreparedCommand
    }
    private var routes: [String: Route] = [:]

    public init() {}

    /// Registers `type` with its handler; the handler's typed result is encoded into the reply's `result`.
    public mutating func register<Command: NavigationCommand>(
        _ type: Command.Type,
        handler: @escaping @Sendable (Command, inout TripCoordinator, CommandContext) throws(ProtocolError) -> Command.Result
    ) {
        registerDeferring(type) { command, coordinator, context throws(ProtocolError) -> Command.Result? in
            try handler(command, &coordinator, context)
        }
    }

    /// Registers `type` with a handler that may return nil and answer later through the context's `answerLater`.
    public mutating func registerDeferring<Command: NavigationCommand>(
        _ type: Command.Type,
        handler: @escaping @Sendable (Command, inout TripCoordinator, CommandContext) throws(ProtocolError) -> Command.Result?
    ) {
        routes[Command.type] = Route(requiresControl: Command.requiresControl) { fields throws(ProtocolError) in
            let command = try Command(fields: fields)
            return PreparedCommand(type: Command.type, line: fields.object) { coordinator, context throws(ProtocolError) in
                try handler(command, &coordinator, context).map(Self.encoded)
            }
        }
    }

    /// A handler's typed result as a reply's `result` object.
    static func encoded<Result: Encodable>(_ result: Result) -> [String: JSONValue] {
        // `navigate`'s, made before its request is written, by hand (the same object).
        if let reply = result as? NavigateReply { return reply.resultObject }
        return (try? JSONValueEncoder().encode(result))?.objectValue ?? [:]
    }

    public var commandTypes: [String] { routes.keys.sorted() }

    /// Decodes a line for a peer with or without control rights.
    public func prepare(type: String, fields: CommandFields, mayControl: Bool) throws(ProtocolError) -> PreparedCommand {
        guard let route = routes[type] else {
            throw ProtocolError(.unknownCommand, "unknown command '\(type)'; commands are \(commandTypes.joined(separator: ", "))")
        }
        guard !route.requiresControl || mayControl else {
            throw ProtocolError(.notAuthorized, "'\(type)' needs control rights; this peer may only read (see socket.control_users and socket.control_groups)")
        }
        return try route.prepare(fields)
    }

    /// navd's commands.
    public static func standard() -> CommandRouter {
        var router = CommandRouter()
        router.register(NavigateCommand.self) { command, coordinator, context throws(ProtocolError) in
            try coordinator.navigate(command, now: context.now)
        }
        router.register(CancelCommand.self) { _, coordinator, _ in coordinator.cancel() }
        router.register(StatusCommand.self) { _, coordinator, context in
            var snapshot = coordinator.snapshot(now: context.now)
            snapshot.control = context.client.mayControl
            return snapshot
        }
        router.register(CurrentRouteCommand.self) { _, coordinator, _ in coordinator.currentRoute() }
        router.register(SubscribeCommand.self) { command, _, context in
            context.client.topics = command.topics
            return SubscribeReply(topics: EventType.allCases.filter(command.topics.contains))
        }
        router.register(AdvanceCommand.self) { _, coordinator, context throws(ProtocolError) in
            try coordinator.advance(now: context.now)
        }
        router.register(SnapRouteCommand.self) { command, coordinator, context throws(ProtocolError) in
            try coordinator.snapRoute(command, now: context.now)
        }
        router.register(CancelCalculationCommand.self) { command, coordinator, _ throws(ProtocolError) in
            try coordinator.cancelCalculation(command)
        }
        router.register(AddStopCommand.self) { command, coordinator, context throws(ProtocolError) in
            try coordinator.editStops(.add(command.waypoint, index: command.index), now: context.now)
        }
        router.register(RemoveStopCommand.self) { command, coordinator, context throws(ProtocolError) in
            try coordinator.editStops(.remove(index: command.index), now: context.now)
        }
        router.register(SkipWaypointCommand.self) { _, coordinator, context throws(ProtocolError) in
            try coordinator.editStops(.skipNext, now: context.now)
        }
        router.register(RepeatCommand.self) { _, coordinator, _ throws(ProtocolError) in try coordinator.repeatPrompt() }
        router.register(VoiceCommand.self) { command, coordinator, _ throws(ProtocolError) in coordinator.setVoice(command) }
        router.register(ChooseRouteCommand.self) { command, coordinator, context throws(ProtocolError) in
            try coordinator.chooseRoute(command, now: context.now)
        }
        router.registerDeferring(RecordCommand.self) { command, coordinator, context throws(ProtocolError) in
            guard let recording = context.recording else { throw ProtocolError(.recordingFailed, "this navd has no flight recorder") }
            return try recording.handle(command, coordinator: coordinator, now: context.now, answerLater: context.answerLater(RecordReply.self))
        }
        return router
    }
}
