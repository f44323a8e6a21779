import FoundationEssentials
import Glibc
import Guidance
import NavigationCore
import NavigationProtocol
import RouteAdapters

/// What navd says on its own, in the driver's language and units (`[guidance]`).
public struct GuidanceSettings: Sendable {
    public var catalog: GuidanceCatalog
    public var units: UnitSystem
    /// The BCP 47 tag of what is said: the configured one ("en-US", which a voice pronounces as American), or the
    /// catalog's language when navd does not ship the configured one (English).
    public var language: String
    /// What the engines are asked for (`[guidance]`, or a trip's own `options.language` and `units`).
    public var locale: InstructionLocale

    public init(config: NavdConfig.Guidance) {
        self.init(locale: config.instructionLocale)
    }

    public init(locale: InstructionLocale) {
        self.locale = locale
        let catalog = locale.catalog
        self.catalog = catalog
        units = locale.unitSystem
        let tag = LanguageTag(locale.language)
        language = tag.map { $0.language == catalog.language ? $0.description : catalog.language } ?? catalog.language
    }

    /// `options` with the trip's language and units both filled in when the client gave either: a language alone
    /// brings its region's units ("en-US": imperial), units alone keep the configured language. Unchanged when the
    /// client gave neither (the trip follows `[guidance]`, also after a reload).
    public func resolve(_ options: RouteOptions) -> RouteOptions {
        guard options.language != nil || options.imperial != nil else { return options }
        var resolved = options
        resolved.language = options.language ?? locale.language
        resolved.imperial =
            options.imperial ?? (options.language.map { UnitSystem.usual(in: LanguageTag($0)?.region) != .metric } ?? locale.imperial)
        return resolved
    }
}

extension TripCoordinator {
    /// The language and units the driver is guided in now: the trip's own (`navigate` `options.language`,
    /// `units`), else `[guidance]`.
    var guidance: GuidanceSettings {
        trip?.options.locale.map(GuidanceSettings.init(locale:)) ?? settings.guidance
    }

    /// A `voice` event when the trip's language or units differ from what voice clients were told.
    mutating func publishVoice(ifChangedFrom before: VoiceEvent) {
        if voice != before { publish(.voice(voice)) }
    }

    /// Publishes `key`'s text, during a trip only (without one there is nothing to guide).
    mutating func announce(_ key: MessageKey, _ values: [String: String] = [:], priority: AnnouncementEvent.Priority = .info) {
        guard Self.holdsTrip(&trip) else { return }
        let catalog = guidance.catalog
        publish(.announcement(AnnouncementEvent(key: key.rawValue, text: catalog.text(key, values), language: guidance.language, priority: priority)))
    }

    /// A distance as the driver's language and units say it.
    func said(distance metres: Double) -> String { guidance.catalog.distance(metres, units: guidance.units) }

    /// A duration in whole minutes (at least one), as the driver's language says it.
    func said(duration seconds: Double) -> String {
        guidance.catalog.quantity(max(1, (seconds / 60).rounded()), decimals: 0, .minutes)
    }

    /// A posted limit with its unit ("50 km/h").
    static func said(limit value: Double, unit: String) -> String { "\(CheckedNumber.clampedWhole(value)) \(unit)" }
}

extension TripCoordinator {
    /// `repeat`: the next maneuver at its distance now ("In 300 metres: Turn left onto Mikonkatu"), announced.
    public mutating func repeatPrompt() throws(ProtocolError) -> RepeatReply {
        guard let current = trip, let state = current.state.navigating else { throw ProtocolError(.noActiveTrip, "no trip is being navigated") }
        let steps = current.controller.route.steps
        let next = min(state.stepIndex + 1, steps.count - 1)
        let instruction = state.visualInstruction?.primary.text ?? steps[next].instruction
        let text = guidance.catalog.text(
            .repeatManeuver, ["distance": said(distance: state.progress.distanceToNextManeuver), "instruction": instruction])
        announce(.repeatManeuver, ["distance": said(distance: state.progress.distanceToNextManeuver), "instruction": instruction])
        return RepeatReply(text: text)
    }
}

extension TripCoordinator {
    /// The voice mode and the language voice clients speak.
    var voice: VoiceEvent { VoiceEvent(mode: voiceMode, language: guidance.language, units: guidance.units) }

    /// `voice`: sets the mode (published to every client and kept for the next start when it changes), or only
    /// reports it.
    public mutating func setVoice(_ command: VoiceCommand) -> VoiceEvent {
        if let mode = command.mode, mode != voiceMode {
            voiceMode = mode
            publish(.voice(voice))
            effects.append(.saveVoiceMode(mode))
            log(.notice, "voice mode \(mode.rawValue)")
        }
        return voice
    }
}
