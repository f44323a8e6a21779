import Guidance
import NavigationCore

/// The routing engines navd speaks to, and everything that differs between them: default profile, request
/// generator, map matching, and how a client's engine-independent ``RouteOptions`` become request keys. The
/// rest of navd (config, daemon, navctl) asks this type instead of switching on engines itself.
public enum RoutingEngine: String, CaseIterable, Sendable {
    case valhalla, osrm, graphhopper

    /// The engine's car profile: Valhalla costing `auto`, OSRM `driving`, GraphHopper `car`.
    public var defaultProfile: String {
        switch self {
        case .valhalla: "auto"
        case .osrm: "driving"
        case .graphhopper: "car"
        }
    }

    /// `configured`, or ``defaultProfile`` when it is empty.
    public func profile(_ configured: String) -> String {
        configured.isEmpty ? defaultProfile : configured
    }

    /// Request generator and response parser for a server of this engine at `baseURL`.
    public func adapter(baseURL: String, profile: String, options: [String: JSONValue] = [:], locale: InstructionLocale = .english) -> RouteAdapter {
        switch self {
        case .valhalla:
            RouteAdapter(
                requestGenerator: ValhallaRequestGenerator(
                    baseURL: baseURL, profile: profile, units: locale.valhallaUnits, language: locale.language, options: options),
                responseParser: OSRMResponseParser(polylinePrecision: 6, locale: locale))
        case .osrm:
            RouteAdapter(
                requestGenerator: OSRMRequestGenerator(baseURL: baseURL, profile: profile, options: options),
                responseParser: OSRMResponseParser(polylinePrecision: 6, locale: locale))
        case .graphhopper:
            RouteAdapter(
                requestGenerator: GraphHopperRequestGenerator(
                    baseURL: baseURL, profile: profile, language: locale.graphHopperLocale, voiceUnits: locale.imperial ? "imperial" : "metric",
                    options: options),
                responseParser: OSRMResponseParser(polylinePrecision: 6, locale: locale))
        }
    }

    /// The map-matching request generator; nil for GraphHopper, whose map matching is not part of its
    /// navigation API.
    public func mapMatchingGenerator(
        baseURL: String, profile: String, options: [String: JSONValue] = [:], locale: InstructionLocale = .english
    ) -> (any MapMatchingRequestGenerator)? {
        switch self {
        case .valhalla:
            ValhallaMapMatchingRequestGenerator(baseURL: baseURL, profile: profile, units: locale.valhallaUnits, language: locale.language, options: options)
        case .osrm: OSRMMapMatchingRequestGenerator(baseURL: baseURL, profile: profile, options: options)
        case .graphhopper: nil
        }
    }

    /// Requests that re-cost a route's own geometry without changing it (a route refresh), where the engine can:
    /// Valhalla's `trace_route` with `shape_match: edge_walk`. nil: the engine is asked for the route again and
    /// its answer used only when it is the same way. `options`: request keys merged last.
    public func refreshGenerator(
        baseURL: String, profile: String, options: [String: JSONValue] = [:], locale: InstructionLocale = .english
    ) -> (any MapMatchingRequestGenerator)? {
        switch self {
        case .valhalla:
            ValhallaMapMatchingRequestGenerator(
                baseURL: baseURL, profile: profile, units: locale.valhallaUnits, language: locale.language, options: options, shapeMatch: "edge_walk")
        case .osrm, .graphhopper: nil
        }
    }

    /// A client's options as this engine's request keys (Valhalla `costing_options`, OSRM `exclude`,
    /// GraphHopper `custom_model`), `options.engine` merged over them. `profile`: the configured one.
    public func requestOptions(for options: RouteOptions, profile: String) throws(RouteOptionsError) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        switch self {
        case .valhalla:
            let costing = options.costing ?? profile
            if options.costing != nil { result["costing"] = .string(costing) }
            if !options.avoid.isEmpty {
                var costingOptions: [String: JSONValue] = [:]
                if options.avoid.contains(.tolls) { costingOptions["use_tolls"] = 0 }
                if options.avoid.contains(.highways) { costingOptions["use_highways"] = 0 }
                if options.avoid.contains(.ferries) { costingOptions["use_ferry"] = 0 }
                result["costing_options"] = .object([costing: .object(costingOptions)])
            }
        case .osrm:
            if let costing = options.costing, costing != profile {
                throw RouteOptionsError(
                    field: "options.costing", message: "an OSRM server serves one profile ('\(profile)'); run another server for '\(costing)'")
            }
            let names: [RouteOptions.Avoid: String] = [.tolls: "toll", .highways: "motorway", .ferries: "ferry"]
            let excluded = RouteOptions.Avoid.allCases.filter(options.avoid.contains).compactMap { names[$0] }
            if !excluded.isEmpty { result["exclude"] = .string(excluded.joined(separator: ",")) }
        case .graphhopper:
            if let costing = options.costing { result["profile"] = .string(costing) }
            if !options.avoid.isEmpty {
                var rules: [JSONValue] = []
                if options.avoid.contains(.tolls) { rules.append(["if": "toll != NO", "multiply_by": "0"]) }
                if options.avoid.contains(.highways) { rules.append(["if": "road_class == MOTORWAY", "multiply_by": "0"]) }
                if options.avoid.contains(.ferries) { rules.append(["if": "road_environment == FERRY", "multiply_by": "0"]) }
                result["custom_model"] = ["priority": .array(rules)]
                result["ch.disable"] = true
            }
        }
        for (key, value) in options.engine {
            result[key] = result[key].map { $0.merging(value) } ?? value
        }
        return result
    }
}

/// A client's route options that an engine cannot honour.
public struct RouteOptionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The option, as the client wrote it (`options.costing`).
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

/// What a client may ask of a route, independent of the engine; ``RoutingEngine/requestOptions(for:profile:)``
/// maps it to each engine's request.
public struct RouteOptions: Hashable, Sendable {
    public enum Avoid: String, Hashable, Sendable, CaseIterable {
        case tolls, highways, ferries
    }

    /// Engine costing/profile to use instead of the configured one (e.g. Valhalla `auto`, `bicycle`).
    public var costing: String?
    public var avoid: Set<Avoid>
    /// Engine-specific request keys merged over everything else (Valhalla body keys, OSRM query parameters).
    public var engine: [String: JSONValue]
    /// The trip's own language (a BCP 47 tag) instead of `[guidance] language`; nil: the configured one.
    public var language: String?
    /// The trip's own units: true imperial, false metric; nil: those of `language` when given, else `[guidance]`.
    public var imperial: Bool?

    public init(costing: String? = nil, avoid: Set<Avoid> = [], engine: [String: JSONValue] = [:], language: String? = nil, imperial: Bool? = nil) {
        self.costing = costing
        self.avoid = avoid
        self.engine = engine
        self.language = language
        self.imperial = imperial
    }

    /// The instruction locale these options ask for, once both are known (the coordinator fills them in).
    public var locale: InstructionLocale? {
        guard let language, let imperial else { return nil }
        return InstructionLocale(language: language, imperial: imperial)
    }

    /// JSON form, as in the `navigate` command's `options` (the journal keeps it).
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let costing { object["costing"] = .string(costing) }
        if !avoid.isEmpty { object["avoid"] = .array(Avoid.allCases.filter(avoid.contains).map { .string($0.rawValue) }) }
        if !engine.isEmpty { object["engine"] = .object(engine) }
        if let language { object["language"] = .string(language) }
        if let imperial { object["units"] = .string(imperial ? "imperial" : "metric") }
        return .object(object)
    }
}

/// The language and units an engine writes its instructions in (`[guidance]`): Valhalla's `language` and
/// `units`, GraphHopper's `locale` and `voice_units`. OSRM writes none; navd writes them.
public struct InstructionLocale: Sendable, Equatable {
    /// A BCP 47 tag, e.g. `de-DE`.
    public var language: String
    /// Miles and feet (or yards) instead of kilometres and metres.
    public var imperial: Bool

    public init(language: String, imperial: Bool) {
        self.language = language
        self.imperial = imperial
    }

    public static let english = InstructionLocale(language: "en-US", imperial: false)

    /// navd's texts in this language (English when navd does not ship it), for instructions written here.
    public var catalog: GuidanceCatalog { LanguageTag(language).flatMap(ShippedLanguages.catalog(for:)) ?? ShippedLanguages.english }

    /// How distances are said: British imperial counts yards below a tenth of a mile.
    public var unitSystem: UnitSystem {
        guard imperial else { return .metric }
        return LanguageTag(language)?.region == "GB" ? .imperialYards : .imperial
    }

    /// Valhalla's `units`.
    public var valhallaUnits: String { imperial ? "miles" : "kilometers" }

    /// GraphHopper's `locale`, Java's spelling: `de_DE`, `fi`.
    public var graphHopperLocale: String { language.replacing("-", with: "_") }
}
