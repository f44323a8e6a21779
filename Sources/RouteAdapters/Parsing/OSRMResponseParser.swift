import FoundationEssentials
import Glibc
import NavigationCore

/// Parses every flavour of the OSRM response family into routes: plain OSRM, Valhalla's OSRM format
/// (extended with banners, voice, lanes, via waypoints), Mapbox-style responses, GraphHopper's navigate
/// endpoint, and map-matching answers (`matchings`).
///
/// It is lenient where a server may legitimately differ (unknown maneuver types and modifiers, missing
/// optional fields, annotations of any shape) and strict where a wrong answer would mislead a driver
/// (geometry outside the world or inconsistent with the route length, engine errors, no routes).
///
/// When the server sends no instruction text, banners or voice prompts, they are synthesized
/// (``InstructionSynthesizer``, ``PromptPlanner``).
public struct OSRMResponseParser: RouteResponseParser {
    /// Decimal digits of the encoded polylines: 6 for OSRM's `polyline6` and Valhalla, 5 for `polyline`.
    public var polylinePrecision: Int
    /// Answers larger than this are refused, bytes.
    public var maximumResponseSize: Int
    public var synthesizer: InstructionSynthesizer
    public var promptPlanner: PromptPlanner
    /// The language and units the request asked for: an answer whose texts are in others is not passed on (its
    /// instructions are written here instead, and the route says so in ``Route/notices``). nil: not checked.
    public var check: InstructionCheck?

    /// `locale`: the language and units asked of the server, in which instructions are written here for a server
    /// that sends none, and against which the server's own are checked.
    public init(polylinePrecision: Int = 6, maximumResponseSize: Int = 64 << 20, locale: InstructionLocale? = nil) {
        self.polylinePrecision = polylinePrecision
        self.maximumResponseSize = maximumResponseSize
        check = locale.map(InstructionCheck.init(locale:))
        let locale = locale ?? .english
        synthesizer = InstructionSynthesizer(catalog: locale.catalog)
        promptPlanner = PromptPlanner(catalog: locale.catalog, units: locale.unitSystem)
    }

    public func parseRoutes(from data: Data) throws -> [Route] {
        let response = try decodeResponse(data)
        if let error = engineError(in: response) { throw error }
        guard let routeDTOs = response.routes ?? response.matchings else { throw RouteParseError.missingField("routes") }
        guard !routeDTOs.isEmpty else { throw RouteParseError.noRoutes }
        var waypoints: [Waypoint] = []
        for (index, dto) in (response.waypoints ?? []).enumerated() {
            guard let location = dto.location, let coordinate = location.coordinate else { continue }
            guard coordinate.isValid else {
                throw RouteParseError.typeMismatch(path: "waypoints[\(index)].location", expected: "[lon, lat] on the globe, not \(location.numbers)")
            }
            var waypoint = Waypoint(coordinate: coordinate, kind: .break)
            waypoint.snapDistance = dto.distance
            waypoints.append(waypoint)
        }
        return try routeDTOs.enumerated().map { index, dto in
            try checkedRoute(dto, path: "\(response.routes != nil ? "routes" : "matchings")[\(index)]", waypoints: waypoints)
        }
    }

    /// Parses a single route object (one element of a `routes` array), with the given waypoints.
    public func parseRoute(from data: Data, waypoints: [Waypoint] = []) throws -> Route {
        try checkEnvelope(data)
        let dto = try read(data) { reader in try reader.within("route") { reader in try OSRMRouteDTO(&reader) } }
        return try checkedRoute(dto, path: "route", waypoints: waypoints)
    }

    /// The route, with the server's texts when they are in the language and units asked for, else with texts
    /// written here and a notice saying why.
    func checkedRoute(_ dto: OSRMRouteDTO, path: String, waypoints: [Waypoint]) throws -> Route {
        let route = try buildRoute(dto, path: path, waypoints: waypoints)
        guard let check else { return route }
        let problems = check.problems(in: InstructionCheck.texts(of: route))
        guard !problems.isEmpty else { return route }
        var rewritten = try buildRoute(dto, path: path, waypoints: waypoints, serverTexts: false)
        rewritten.notices = problems.map { "\($0): navd wrote the instructions itself" }
        return rewritten
    }

    /// If `data` is an engine's error answer (whatever its HTTP status), the error it describes.
    public func engineError(in data: Data) -> String? {
        guard let response = try? decodeResponse(data) else { return nil }
        return engineError(in: response).map { "\($0)" }
    }

    // MARK: - Decoding

    private func checkEnvelope(_ data: Data) throws(RouteParseError) {
        guard data.count <= maximumResponseSize else {
            throw RouteParseError.responseTooLarge(bytes: data.count, limit: maximumResponseSize)
        }
        guard let first = data.first(where: { !($0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09) }) else {
            throw RouteParseError.notJSON(excerpt: "(empty answer)", looksLikeHTML: false)
        }
        if first == UInt8(ascii: "<") {
            throw RouteParseError.notJSON(excerpt: Self.htmlSummary(data), looksLikeHTML: true)
        }
        guard first == UInt8(ascii: "{") else {
            throw RouteParseError.notJSON(excerpt: textExcerpt(data), looksLikeHTML: false)
        }
    }

    /// Reads `data` with `body` in one pass (``JSONReader``). Reading front to back, a wrong field can be met before
    /// the rest of the answer is seen: the error reported is still what the whole answer shows first, that it is not
    /// JSON at all, then that it is an engine's error answer, then the field.
    private func read<T>(_ data: Data, _ body: (inout JSONReader) throws -> T) throws(RouteParseError) -> T {
        do {
            return try JSONReader.read(data, body)
        } catch let error as JSONParser.Error {
            throw RouteParseError.malformedJSON(detail: error.description)
        } catch {
            if let syntax = JSONReader.firstError(in: data) { throw RouteParseError.malformedJSON(detail: syntax.description) }
            if let envelope = try? JSONReader.read(data, { reader in try OSRMResponseDTO(&reader, envelopeOnly: true) }),
                let engineError = engineError(in: envelope)
            {
                throw engineError
            }
            throw error as? RouteParseError ?? RouteParseError.malformedJSON(detail: "\(error)")
        }
    }

    private func decodeResponse(_ data: Data) throws(RouteParseError) -> OSRMResponseDTO {
        try checkEnvelope(data)
        return try read(data) { reader in try OSRMResponseDTO(&reader) }
    }

    private func engineError(in response: OSRMResponseDTO) -> RouteParseError? {
        if let code = response.code, code.lowercased() != "ok" {
            return .engineError(code: code, message: response.message)
        }
        if let valhallaCode = response.errorCode {
            return .engineError(code: "Valhalla error \(valhallaCode)", message: response.error)
        }
        if response.routes == nil, response.matchings == nil, let message = response.message ?? response.error {
            return .engineError(code: "error", message: message)
        }
        return nil
    }

    /// The `<title>` of an HTML page, or its first characters, for error messages.
    public static func htmlSummary(_ data: Data) -> String {
        // ASCII case folding is enough to find the tags; the title's own bytes are kept as they are.
        let bytes = Array(data.prefix(4096))
        let folded = bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        if let start = folded.firstRange(of: Array("<title>".utf8)),
            let end = folded[start.upperBound...].firstRange(of: Array("</title>".utf8))
        {
            return textExcerpt(Array(bytes[start.upperBound..<end.lowerBound]))
        }
        return textExcerpt(data)
    }

    // MARK: - Building routes

    func decodeGeometry(_ geometry: GeometryDTO?, path: @autoclosure () -> String) throws -> [GeographicCoordinate]? {
        guard let geometry else { return nil }
        let coordinates: [GeographicCoordinate]
        switch geometry {
        case .polyline(let encoded):
            do {
                coordinates = try Polyline.decode(encoded, precision: polylinePrecision)
            } catch {
                throw RouteParseError.invalidGeometry("\(path()): \(error)")
            }
        case .coordinates(let pairs):
            coordinates = try pairs.map { pair throws(RouteParseError) in
                guard pair.count >= 2 else { throw RouteParseError.invalidGeometry("\(path()).coordinates: a position has fewer than 2 numbers") }
                return GeographicCoordinate(latitude: pair[1], longitude: pair[0])
            }
        }
        if let bad = coordinates.first(where: { !$0.isValid }) {
            throw RouteParseError.invalidGeometry(
                "\(path()) has a point outside the world (\(bad.latitude), \(bad.longitude)): "
                    + "was it decoded with the wrong polyline precision (this parser uses \(polylinePrecision))?")
        }
        return coordinates
    }

    /// `serverTexts`: false to ignore the server's instruction texts, banners and prompts and write them here.
    func buildRoute(_ dto: OSRMRouteDTO, path: String, waypoints responseWaypoints: [Waypoint], serverTexts: Bool = true) throws -> Route {
        guard let legs = dto.legs, !legs.isEmpty else { throw RouteParseError.missingField("\(path).legs") }
        var steps: [RouteStep] = []
        var rawSteps: [(dto: OSRMStepDTO, legIndex: Int, isLastOfLeg: Bool)] = []
        for (legIndex, leg) in legs.enumerated() {
            let legSteps = leg.steps ?? []
            for (i, step) in legSteps.enumerated() {
                rawSteps.append((step, legIndex, i == legSteps.count - 1))
            }
        }
        let routeHasBanners = serverTexts && rawSteps.contains { !($0.dto.bannerInstructions ?? []).isEmpty }
        let routeHasVoice = serverTexts && rawSteps.contains { !($0.dto.voiceInstructions ?? []).isEmpty }

        // First pass: geometry, annotations, incidents, the step's own instruction.
        var legSegmentOffset = 0
        var previousLeg = -1
        var lastFeature: RoadFeature?
        for (index, raw) in rawSteps.enumerated() {
            if raw.legIndex != previousLeg {
                legSegmentOffset = 0
                previousLeg = raw.legIndex
            }
            // Written out only for an error: building it for every step was measurable.
            let stepPath = { "\(path).legs[\(raw.legIndex)].steps[\(index)]" }
            guard let maneuverDTO = raw.dto.maneuver else { throw RouteParseError.missingField("\(stepPath()).maneuver") }
            var geometry = try decodeGeometry(raw.dto.geometry, path: "\(stepPath()).geometry") ?? []
            let maneuverLocation: GeographicCoordinate
            if let l = maneuverDTO.location, let location = l.coordinate {
                maneuverLocation = location
                guard maneuverLocation.isValid else {
                    throw RouteParseError.typeMismatch(path: "\(stepPath()).maneuver.location", expected: "[lon, lat] on the globe, not \(l.numbers)")
                }
            } else if let first = geometry.first {
                maneuverLocation = first
            } else {
                throw RouteParseError.missingField("\(stepPath()).geometry")
            }
            if geometry.isEmpty { geometry = [maneuverLocation] }
            let leg = legs[raw.legIndex]
            let segmentCount = max(0, geometry.count - 1)
            let annotations = Self.annotations(leg.annotation, offset: legSegmentOffset, count: segmentCount)
            let incidents = Self.incidents(leg.incidents ?? [], offset: legSegmentOffset, pointCount: geometry.count)
            let features = Self.features(raw.dto.intersections ?? [], admins: leg.admins ?? [], last: &lastFeature)
            legSegmentOffset += segmentCount

            let type = ManeuverType(name: maneuverDTO.type ?? "turn")
            let modifier = maneuverDTO.modifier.map(ManeuverModifier.init(name:))
            let exits = (raw.dto.exits ?? "").split(separator: ";").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            let roadName = raw.dto.name.flatMap { $0.isEmpty ? nil : $0 }
            let context = InstructionSynthesizer.ManeuverContext(
                type: type, modifier: modifier, roadName: roadName, roadRef: raw.dto.ref,
                destinations: raw.dto.destinations, exits: exits, roundaboutExit: maneuverDTO.exit,
                rotaryName: raw.dto.rotaryName, bearingAfter: maneuverDTO.bearingAfter, legIndex: raw.legIndex,
                isFinalLeg: raw.legIndex == legs.count - 1)
            let instruction = maneuverDTO.instruction.flatMap { $0.isEmpty || !serverTexts ? nil : $0 }
                ?? synthesizer.instruction(for: context)

            steps.append(
                RouteStep(
                    geometry: geometry, distance: raw.dto.distance ?? Geodesy.length(of: geometry),
                    duration: raw.dto.duration ?? 0, roadName: roadName,
                    roadRef: raw.dto.ref.flatMap { $0.isEmpty ? nil : $0 },
                    destinations: raw.dto.destinations.flatMap { $0.isEmpty ? nil : $0 }, exits: exits,
                    instruction: instruction,
                    maneuver: Maneuver(
                        type: type, modifier: modifier, location: maneuverLocation,
                        bearingBefore: maneuverDTO.bearingBefore, bearingAfter: maneuverDTO.bearingAfter),
                    drivingSide: raw.dto.drivingSide.flatMap(DrivingSide.init(rawValue:)),
                    roundaboutExitNumber: type.entersRoundabout ? maneuverDTO.exit : nil,
                    annotations: annotations, incidents: incidents, features: features, legIndex: raw.legIndex))
        }

        // Second pass: banners and voice, from the server or planned here.
        for index in steps.indices {
            let raw = rawSteps[index]
            var spoken: [(text: String, ssml: String?, trigger: Double)] = []
            if routeHasBanners {
                steps[index].visualInstructions = (raw.dto.bannerInstructions ?? []).compactMap(Self.banner)
            }
            if routeHasVoice {
                spoken = (raw.dto.voiceInstructions ?? []).compactMap { voice in
                    guard let text = voice.announcement, !text.isEmpty else { return nil }
                    return (text, voice.ssmlAnnouncement, voice.distanceAlongGeometry ?? 0)
                }
            }
            if !raw.isLastOfLeg {
                let next = nextManeuver(after: index, steps: steps, rawSteps: rawSteps)
                if !routeHasBanners {
                    steps[index].visualInstructions = [promptPlanner.banner(forStepOfLength: steps[index].distance, next: next)]
                }
                if !routeHasVoice {
                    let departure = steps[index].maneuver.type == .depart ? steps[index].instruction : nil
                    spoken = promptPlanner.prompts(forStepOfLength: steps[index].distance, next: next, departure: departure)
                        .map { ($0.0, promptPlanner.ssml($0.0), $0.1) }
                }
            } else if spoken.isEmpty {
                // The arrival step has no maneuver after it; announce the arrival itself when it is reached.
                spoken = [(steps[index].instruction, promptPlanner.ssml(steps[index].instruction), 0)]
            }
            steps[index].spokenInstructions = spoken.enumerated().map { i, prompt in
                SpokenInstruction(
                    text: prompt.text, ssml: prompt.ssml, triggerDistanceBeforeManeuver: max(0, prompt.trigger),
                    utteranceId: SpokenInstruction.utteranceID(stepIndex: index, indexInStep: i, text: prompt.text))
            }
        }

        let geometry = try decodeGeometry(dto.geometry, path: "\(path).geometry") ?? Self.joinedGeometry(of: steps)
        guard geometry.count >= 2 || steps.count <= 1 else { throw RouteParseError.missingField("\(path).geometry") }
        let distance = dto.distance ?? steps.reduce(0) { $0 + $1.distance }
        let measured = Geodesy.length(of: geometry)
        if distance > 50, measured > 0, measured / distance > 5 || measured / distance < 0.2 {
            throw RouteParseError.invalidGeometry(
                "\(path): the geometry is \(CheckedNumber.clampedWhole(measured, rounding: .towardZero)) m long but the route is \(CheckedNumber.clampedWhole(distance, rounding: .towardZero)) m: "
                    + "was it decoded with the wrong polyline precision (this parser uses \(polylinePrecision))?")
        }
        let waypoints = Self.waypoints(
            responseWaypoints: responseWaypoints, legs: legs, routeGeometry: geometry, steps: steps)
        return Route(
            geometry: geometry, distance: distance, duration: dto.duration ?? steps.reduce(0) { $0 + $1.duration },
            waypoints: waypoints, steps: steps)
    }

    private func nextManeuver(
        after index: Int, steps: [RouteStep], rawSteps: [(dto: OSRMStepDTO, legIndex: Int, isLastOfLeg: Bool)]
    ) -> NextManeuver {
        let next = steps[index + 1]
        let lanes = (rawSteps[index + 1].dto.intersections?.first?.lanes ?? []).map { lane in
            let active = lane.active ?? lane.valid ?? false
            return LaneInfo(
                active: active, directions: lane.indications ?? [],
                activeDirection: active ? (lane.validIndication ?? lane.indications?.first) : nil)
        }
        let name = synthesizer.wayName(
            .init(type: next.maneuver.type, roadName: next.roadName, roadRef: next.roadRef))
        return NextManeuver(
            instruction: next.instruction, type: next.maneuver.type, modifier: next.maneuver.modifier,
            displayName: next.maneuver.type == .arrive ? nil : name, destinations: next.destinations, exits: next.exits,
            lanes: lanes.contains(where: \.active) ? lanes : [])
    }

    static func banner(_ dto: OSRMBannerDTO) -> VisualInstruction? {
        guard let primary = dto.primary.flatMap(content) else { return nil }
        return VisualInstruction(
            primary: primary, secondary: dto.secondary.flatMap(content), sub: dto.sub.flatMap(content),
            triggerDistanceBeforeManeuver: max(0, dto.distanceAlongGeometry ?? 0))
    }

    static func content(_ dto: OSRMBannerContentDTO) -> VisualInstructionContent? {
        let components = dto.components ?? []
        let text = dto.text ?? components.compactMap(\.text).joined(separator: " ")
        let lanes = components.filter { $0.type == "lane" }.map { c in
            LaneInfo(active: c.active ?? false, directions: c.directions ?? [], activeDirection: c.activeDirection)
        }
        let exitNumbers = components.filter { $0.type == "exit-number" }.compactMap(\.text)
        if text.isEmpty, lanes.isEmpty, exitNumbers.isEmpty { return nil }
        return VisualInstructionContent(
            text: text, maneuverType: dto.type.map(ManeuverType.init(name:)),
            maneuverModifier: dto.modifier.map(ManeuverModifier.init(name:)), roundaboutExitDegrees: dto.degrees,
            exitNumbers: exitNumbers, lanes: lanes)
    }

    /// The leg's annotation columns cut to one step: segments `offset ..< offset + count`. A column too short for
    /// the step is left out of it.
    static func annotations(_ columns: [String: [JSONValue]], offset: Int, count: Int) -> SegmentAnnotations {
        guard count > 0 else { return [] }
        let step = SegmentAnnotations(columns: columns, offset: offset, count: count)
        // No usable column: no annotations at all, not segments without members.
        return step.names.isEmpty ? [] : step
    }

    /// The step's road features where something changes (``RoadFeature``): an intersection is kept when its
    /// classes, tunnel name or country differ from the last one kept on the route (`last`, carried from step to
    /// step), or when it has a toll booth or a rest stop. Classes navd does not know and locations off the globe are
    /// dropped, not errors: a route is still a route without them.
    static func features(_ intersections: [OSRMIntersectionDTO], admins: [String], last: inout RoadFeature?) -> [RoadFeature] {
        var kept: [RoadFeature] = []
        // Each intersection's fields read in place, and a feature made only for one that is kept: most are not, and
        // copying each intersection and making its feature was most of this.
        for index in intersections.indices {
            guard let location = intersections[index].location, location.isValid else { continue }
            let known = intersections[index].classes
            let country = intersections[index].adminIndex.flatMap { $0 < admins.count ? admins[$0] : nil }.flatMap { $0.isEmpty ? nil : $0 }
            let tunnelName = known.contains("tunnel") ? intersections[index].tunnelName.flatMap { $0.isEmpty ? nil : $0 } : nil
            let tollCollection = intersections[index].tollCollection
            let restStopType = intersections[index].restStopType
            let classes = known.strings
            // A country not given is the last one kept: only a named one can change it.
            let changed =
                last.map { $0.classes != classes || $0.tunnelName != tunnelName || (country != nil && $0.country != country) }
                ?? (!classes.isEmpty || country != nil)
            guard changed || tollCollection != nil || restStopType != nil else { continue }
            let restStop = restStopType.map { RoadFeature.RestStop(type: $0, name: intersections[index].restStopName.flatMap { $0.isEmpty ? nil : $0 }) }
            let feature = RoadFeature(
                location: location, classes: classes, tunnelName: tunnelName, tollCollection: tollCollection, restStop: restStop,
                country: country ?? last?.country)
            kept.append(feature)
            last = feature
        }
        return kept
    }

    /// Incidents overlapping a step, with their geometry indices made relative to the step.
    static func incidents(_ dtos: [OSRMIncidentDTO], offset: Int, pointCount: Int) -> [Incident] {
        let lastPoint = offset + max(0, pointCount - 1)
        return dtos.compactMap { dto in
            let start = dto.geometryIndexStart ?? 0
            let end = dto.geometryIndexEnd ?? start
            guard end >= offset, start <= lastPoint, pointCount > 1 || start == offset else { return nil }
            return Incident(
                id: dto.id ?? "", type: dto.type ?? "unknown", description: dto.description, impact: dto.impact,
                geometryIndexStart: max(start, offset) - offset, geometryIndexEnd: min(end, lastPoint) - offset,
                properties: dto.properties)
        }
    }

    static func joinedGeometry(of steps: [RouteStep]) -> [GeographicCoordinate] {
        var result: [GeographicCoordinate] = []
        for step in steps {
            for c in step.geometry where result.last != c { result.append(c) }
        }
        return result
    }

    /// Stops from the response's `waypoints` (or the ends of each leg when absent), with Valhalla's
    /// via waypoints inserted into their legs.
    static func waypoints(
        responseWaypoints: [Waypoint], legs: [OSRMLegDTO], routeGeometry: [GeographicCoordinate], steps: [RouteStep]
    ) -> [Waypoint] {
        var stops = responseWaypoints
        if stops.count != legs.count + 1 {
            // Map matching, or a response without waypoints: the ends of the legs are the stops.
            stops = []
            for legIndex in 0..<legs.count {
                let legSteps = steps.filter { $0.legIndex == legIndex }
                if legIndex == 0, let first = legSteps.first?.geometry.first { stops.append(Waypoint(coordinate: first)) }
                if let last = legSteps.last?.geometry.last { stops.append(Waypoint(coordinate: last)) }
            }
        }
        var result: [Waypoint] = []
        for (legIndex, stop) in stops.enumerated() {
            result.append(stop)
            guard legIndex < legs.count else { continue }
            for via in legs[legIndex].viaWaypoints ?? [] {
                guard let index = via.geometryIndex, !routeGeometry.isEmpty else { continue }
                let coordinate = routeGeometry[min(max(0, index), routeGeometry.count - 1)]
                result.append(Waypoint(coordinate: coordinate, kind: .via))
            }
        }
        return result
    }
}
