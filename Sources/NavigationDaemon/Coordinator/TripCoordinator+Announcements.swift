import FoundationEssentials
import Glibc
import Guidance
import NavigationCore
import NavigationProtocol

/// What navd says on its own, in the driver's language and units (`[guidance]`).
public struct GuidanceSettings: Sendable {
    public var catalog: GuidanceCatalog
    public var units: UnitSystem
    /// The BCP 47 tag of what is said: the configured one ("en-US", which a voice pronounces as American), or the
    /// catalog's language when navd does not ship the configured one (English).
    public var language: String

    public init(config: NavdConfig.Guidance) {
        let locale = config.instructionLocale
        catalog = locale.catalog
        units = locale.unitSystem
        let tag = LanguageTag(config.language)
        language = tag.map { [catalog] in $0.language == catalog.language ? $0.description : catalog.language } ?? catalog.language
    }
}

extension TripCoordinator {
    /// Publishes `key`'s text, during a trip only (without one there is nothing to guide).
    mutating func announce(_ key: MessageKey, _ values: [String: String] = [:], priority: AnnouncementEvent.Priority = .info) {
        guard trip != nil else { return }
        let catalog = settings.guidance.catalog
        publish(.announcement(AnnouncementEvent(key: key.rawValue, text: catalog.text(key, values), language: settings.guidance.language, priority: priority)))
    }

    /// A distance as the driver's language and units say it.
    func said(distance metres: Double) -> String { settings.guidance.catalog.distance(metres, units: settings.guidance.units) }

    /// A duration in whole minutes (at least one), as the driver's language says it.
    func said(duration seconds: Double) -> String {
        settings.guidance.catalog.quantity(max(1, (seconds / 60).rounded()), decimals: 0, .minutes)
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
        let text = settings.guidance.catalog.text(
            .repeatManeuver, ["distance": said(distance: state.progress.distanceToNextManeuver), "instruction": instruction])
        announce(.repeatManeuver, ["distance": said(distance: state.progress.distanceToNextManeuver), "instruction": instruction])
        return RepeatReply(text: text)
    }
}

extension TripCoordinator {
    /// The voice mode and the language voice clients speak.
    var voice: VoiceEvent { VoiceEvent(mode: voiceMode, language: settings.guidance.language, units: settings.guidance.units) }

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
