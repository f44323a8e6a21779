import NavigationCore
import NavigationProtocol

/// Maps a client's engine-independent ``RouteOptions`` onto one engine's request keys.
public enum EngineRequestOptions {
    public static func options(for options: RouteOptions, engine: NavdConfig.Routing.Engine, profile: String) throws(ProtocolError) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        switch engine {
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
                throw ProtocolError(
                    .invalidField, "options.costing: an OSRM server serves one profile ('\(profile)'); run another server for '\(costing)'")
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

extension RouteOptions {
    /// JSON form, as in the `navigate` command's `options` (used by the journal).
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let costing { object["costing"] = .string(costing) }
        if !avoid.isEmpty { object["avoid"] = .array(RouteOptions.Avoid.allCases.filter(avoid.contains).map { .string($0.rawValue) }) }
        if !engine.isEmpty { object["engine"] = .object(engine) }
        return .object(object)
    }
}
