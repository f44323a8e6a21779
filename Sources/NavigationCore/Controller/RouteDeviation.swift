import FoundationEssentials
import Glibc

/// Where the vehicle is relative to the route, as reported in every navigating state.
public enum RouteDeviation: Hashable, Sendable {
    /// On the current step.
    case none
    /// Off the current step but on the route: the vehicle matches a later step and is more than
    /// ``NavigationController/offStepDistance`` from the current one (the step has not advanced, e.g. under the
    /// `manual` condition). `distance`: metres from the current step's geometry.
    case offStep(distance: Double)
    /// Off the route. `distance`: metres from the route.
    case offRoute(distance: Double)
    /// Possibly leaving the route: the fix lies beyond the off-route threshold in force (or the roadways are seen
    /// parting) and the evidence is still being gathered. Too far from the route for the route to be where the vehicle
    /// is, not yet enough to call it off the route: the snapped position is the fix, progress holds, and no new prompt
    /// is said (the banner stays). `distance`: metres from the route.
    case leaving(distance: Double)
    /// Not on the route yet: the trip started away from it and the vehicle stands or heads there
    /// (``NavigatingState/approach``). `distance`: metres from the route.
    case approaching(distance: Double)

    public var isOffRoute: Bool {
        if case .offRoute = self { return true }
        return false
    }
}

/// How deviation from the route is decided.
public enum RouteDeviationTracking: Sendable {
    /// Never report off-route.
    case none
    /// Distance thresholds with hysteresis and evidence (see ``StaticThresholdDeviation``).
    case staticThreshold(StaticThresholdDeviation)
    /// Application code decides.
    case custom(any RouteDeviationDetector)
}

/// Application-defined deviation detection. Called once per fix, before step advance; it may keep state
/// in the value it returns.
public protocol RouteDeviationDetector: Sendable {
    /// Decides whether the vehicle is off the route for this fix.
    /// - Parameters:
    ///   - distanceFromRoute: metres from the fix to the route (within the matching window).
    ///   - previous: the deviation reported for the previous fix.
    func isOffRoute(location: UserLocation, distanceFromRoute: Double, route: Route, currentStepIndex: Int, previous: RouteDeviation)
        -> Bool
}

/// Off-route detection that does not flap on GNSS jitter or city error, yet catches a wrong turn within about 30 m
/// and a U-turn within `wrongWayDistance`:
///
/// - **Enter thresholds** (metres from the route): `enterDistance` in general; the tighter
///   `maneuverEnterDistance` within `maneuverZone` of a maneuver (where wrong turns happen) and whenever the
///   vehicle's course disagrees with the route's direction by at least `headingMismatch` degrees at
///   `minimumSpeedForHeading` or more (it is driving somewhere else, not drifting in GNSS noise).
/// - **Scaled by the fix's accuracy**: no enter threshold is below `accuracyMultiplier` × the fix's 68% radius
///   (2.5 × r68 is the radius of about 99.9% of honest error), and the exit threshold is never below the radius
///   itself: a receiver that honestly says "15 m" is not called off the route for being 25 m from it.
/// - **Exit threshold**: once off the route, the vehicle is back on it only within `exitDistance` and not driving
///   against the route, so a position near a threshold cannot flap.
/// - **Evidence counts epochs and time, not updates**: beyond the enter threshold, off-route is reported after
///   `requiredConsecutiveFixes` fixes with distinct times spanning at least `requiredDuration` seconds (3 fixes
///   at 1 Hz, 21 at 10 Hz); a fix whose time is not after the last one's is no evidence, and neither is a fix
///   taken while the vehicle stands still (jitter).
/// - **Driving away**: at once when the course has disagreed with the route for two epochs, holding steady (within
///   `steadyCourse`, 20°: a vehicle turning through a corner changes course faster), and the distance from
///   the route has grown on at least two fixes in a row by `minimumDistanceMovingAway` metres in all, with the
///   fix beyond both `maneuverEnterDistance` and its own 68% radius (GNSS error moves the position, but turns
///   neither the course nor a steady growth with it, so this path needs no 99.9% margin).
/// - **Wrong way**: driving against the route's direction (course at least `wrongWayAngle` degrees from it, at
///   `minimumSpeedForHeading` or more) for `wrongWayDistance` metres is off the route even on the route's own
///   street (a U-turn on a two-way street).
/// - **Parting roads**: a motorway exit, a fork or a slip road leaves at 3-10°, closer than `enterDistance` for
///   hundreds of metres. Beyond `partingDistance` (and the 99.9% radius) a fix is evidence like one beyond the enter
///   threshold when, over the last `partingWindow` metres driven, the course held steady (within `partingCourse`
///   degrees), the distance from the route grew by `partingGrowth` metres (least squares over the window, so single
///   fixes' noise averages out), and the route where the fix matches runs at an angle of at least `partingAngle` to
///   the course (its geometry bends away): two roadways parting, not a biased fix beside the road.
/// - **Accuracy gate**: a fix whose 68% accuracy radius is worse than `minimumHorizontalAccuracy` changes
///   nothing: it neither raises nor clears a deviation, and it is not evidence.
///
/// Defaults: enter 50 m (MapLibre's and Mapbox's off-route radius); 20 m near maneuvers (Mapbox uses 25 m near
/// intersections) and on a heading mismatch of 45° at 4 m/s or more; maneuver zone 40 m; exit 15 m; 3 fixes over
/// 2 s; 15 m moving away; accuracy multiplier 2.5; wrong way 135° for 30 m (a U-turn and half a block); accuracy
/// 25 m (a 95% radius of about 40 m: worse fixes are not trusted to place the vehicle on one street rather than
/// the next).
public struct StaticThresholdDeviation: Hashable, Sendable {
    public var minimumHorizontalAccuracy: Double
    public var enterDistance: Double
    public var maneuverEnterDistance: Double
    public var maneuverZone: Double
    public var headingMismatch: Double
    public var minimumSpeedForHeading: Double
    public var exitDistance: Double
    public var requiredConsecutiveFixes: Int
    public var minimumDistanceMovingAway: Double
    /// Seconds the evidence fixes must span.
    public var requiredDuration: Double
    /// Enter thresholds are at least this many times the fix's 68% radius.
    public var accuracyMultiplier: Double
    /// Degrees between course and route beyond which the vehicle drives against the route.
    public var wrongWayAngle: Double
    /// Metres driven against the route before it is off the route.
    public var wrongWayDistance: Double
    /// Degrees a course may change between two epochs and still count as steady (driving straight, not turning).
    public var steadyCourse: Double = 20
    /// Metres from the route beyond which parting roads count as evidence (see the type's documentation).
    public var partingDistance: Double = 25
    /// Metres of driving over which parting is judged.
    public var partingWindow: Double = 200
    /// Metres the distance from the route must have grown over the window.
    public var partingGrowth: Double = 6
    /// Degrees the course may vary over the window.
    public var partingCourse: Double = 10
    /// Smallest angle, degrees, between the course and the route where the fix matches.
    public var partingAngle: Double = 1.5
    /// Metres of driving between the samples parting is judged on.
    static let partingSampleSpacing = 10.0
    /// Metres: the least error assumed of any fix, whatever accuracy it claims.
    static let standstillNoise = 3.0

    public init(
        minimumHorizontalAccuracy: Double = 25, enterDistance: Double = 50, maneuverEnterDistance: Double = 20,
        maneuverZone: Double = 40, headingMismatch: Double = 45, minimumSpeedForHeading: Double = 4, exitDistance: Double = 15,
        requiredConsecutiveFixes: Int = 3, minimumDistanceMovingAway: Double = 15, requiredDuration: Double = 2,
        accuracyMultiplier: Double = 2.5, wrongWayAngle: Double = 135, wrongWayDistance: Double = 30
    ) {
        self.minimumHorizontalAccuracy = minimumHorizontalAccuracy
        self.enterDistance = enterDistance
        self.maneuverEnterDistance = maneuverEnterDistance
        self.maneuverZone = maneuverZone
        self.headingMismatch = headingMismatch
        self.minimumSpeedForHeading = minimumSpeedForHeading
        self.exitDistance = exitDistance
        self.requiredConsecutiveFixes = requiredConsecutiveFixes
        self.minimumDistanceMovingAway = minimumDistanceMovingAway
        self.requiredDuration = requiredDuration
        self.accuracyMultiplier = accuracyMultiplier
        self.wrongWayAngle = wrongWayAngle
        self.wrongWayDistance = wrongWayDistance
    }
}

/// Evidence kept between fixes by ``StaticThresholdDeviation``.
public struct DeviationEvidence: Hashable, Sendable {
    /// Consecutive accurate epochs beyond the enter threshold.
    public var consecutiveFixes: Int = 0
    /// Time of the first of them.
    public var firstEvidenceTime: Date?
    /// Time of the last fix that counted (a fix not after it is no new evidence).
    public var lastTime: Date?
    /// Distance from the route where the current run of growing distances began, metres.
    public var growthStart: Double?
    /// Distance from the route at the previous accurate fix, metres.
    public var lastDistance: Double?
    /// Fixes in the current run of growing distances.
    public var growingFixes: Int = 0
    /// Metres driven against the route's direction in a row.
    public var wrongWayDistance: Double = 0
    /// Consecutive epochs whose course disagrees with the route's direction and holds steady (within
    /// ``StaticThresholdDeviation/steadyCourse`` degrees of the epoch before): the vehicle drives straight somewhere
    /// else, rather than turning through a corner where the match lags.
    public var disagreeingFixes: Int = 0
    /// The course of the last accurate epoch, degrees.
    public var lastCourse: Double?
    /// Metres driven on accurate, moving epochs (the odometer parting samples are placed on).
    public var odometer: Double = 0
    /// Samples for parting roads, oldest first, one per ``StaticThresholdDeviation/partingSampleSpacing`` metres
    /// driven, reaching back ``StaticThresholdDeviation/partingWindow`` metres.
    public var partingSamples: [PartingSample] = []
    /// True while the roadways are seen parting and the vehicle stays beyond the parting distance.
    public var isParting = false
    public var isOffRoute: Bool = false

    /// True while a fix beyond the threshold in force has started the count but off-route is not decided yet
    /// (``RouteDeviation/leaving``).
    public var isLeaving: Bool { !isOffRoute && consecutiveFixes > 0 }

    public init() {}
}

/// One sample of the vehicle's distance from the route, for parting roads.
public struct PartingSample: Hashable, Sendable {
    /// ``DeviationEvidence/odometer`` at the sample, metres.
    public var odometer: Double
    /// Metres from the route.
    public var distance: Double
    /// Course over ground, degrees.
    public var course: Double
}

/// What the deviation tracker sees of one fix.
public struct DeviationInput: Sendable {
    public var location: UserLocation
    /// Metres from the fix to the route.
    public var distanceFromRoute: Double
    /// Metres along the route to the closest maneuver (behind or ahead).
    public var distanceToNearestManeuver: Double
    /// Direction of the route where the fix matches, degrees.
    public var routeBearing: Double?
    /// Metres between the previous fix and this one.
    public var travelled: Double
    /// True when the vehicle stands still (see ``NavigationController/standstillSpeed``).
    public var isStationary: Bool

    public init(
        location: UserLocation, distanceFromRoute: Double, distanceToNearestManeuver: Double, routeBearing: Double?, travelled: Double = 0,
        isStationary: Bool = false
    ) {
        self.location = location
        self.distanceFromRoute = distanceFromRoute
        self.distanceToNearestManeuver = distanceToNearestManeuver
        self.routeBearing = routeBearing
        self.travelled = travelled
        self.isStationary = isStationary
    }
}

extension StaticThresholdDeviation {
    /// Updates the evidence with one fix and says whether the vehicle is off the route.
    public func update(_ evidence: DeviationEvidence, _ input: DeviationInput) -> DeviationEvidence {
        let location = input.location
        let distanceFromRoute = input.distanceFromRoute
        guard location.horizontalAccuracy <= minimumHorizontalAccuracy else { return evidence }
        if let last = evidence.lastTime, location.timestamp <= last { return evidence }
        var next = evidence
        next.lastTime = location.timestamp
        next.lastDistance = distanceFromRoute
        if let last = evidence.lastDistance, distanceFromRoute > last {
            next.growthStart = evidence.growthStart ?? last
            next.growingFixes += 1
        } else {
            next.growthStart = distanceFromRoute
            next.growingFixes = 0
        }
        var angle: Double?
        if let course = location.course?.degrees, let routeBearing = input.routeBearing,
            (location.speed?.metersPerSecond ?? 0) >= minimumSpeedForHeading
        {
            angle = Geodesy.angleBetween(course, routeBearing)
        }
        let wrongWay = (angle ?? 0) >= wrongWayAngle
        next.wrongWayDistance = wrongWay ? evidence.wrongWayDistance + input.travelled : 0
        if evidence.isOffRoute {
            if distanceFromRoute <= max(exitDistance, location.horizontalAccuracy), !wrongWay {
                next.isOffRoute = false
                next.consecutiveFixes = 0
                next.firstEvidenceTime = nil
            }
            return next
        }
        if next.wrongWayDistance >= wrongWayDistance {
            next.isOffRoute = true
            return next
        }
        let scaled = accuracyMultiplier * location.horizontalAccuracy
        var threshold = max(enterDistance, scaled)
        let tight = max(maneuverEnterDistance, scaled)
        if input.distanceToNearestManeuver <= maneuverZone { threshold = min(threshold, tight) }
        let headingDisagrees = (angle ?? 0) >= headingMismatch
        let course = (location.speed?.metersPerSecond ?? 0) >= minimumSpeedForHeading ? location.course?.degrees : nil
        next.lastCourse = course
        let steady = course.flatMap { c in evidence.lastCourse.map { Geodesy.angleBetween(c, $0) <= steadyCourse } } ?? false
        next.disagreeingFixes = headingDisagrees && steady ? evidence.disagreeingFixes + 1 : (headingDisagrees ? 1 : 0)
        if headingDisagrees { threshold = min(threshold, tight) }
        if !input.isStationary { next.odometer += input.travelled }
        next.partingSamples = partingSamples(evidence.partingSamples, odometer: next.odometer, distance: distanceFromRoute, course: course)
        // Once the roadways are seen parting, it holds while the vehicle stays beyond the parting distance less the
        // fix's error: one fix whose noise hides the trend or dips under the distance does not start the count again
        // (at 10 Hz a fix near the threshold would otherwise reset the evidence many times a second).
        let partingThreshold = max(partingDistance, scaled)
        let margin = max(Self.standstillNoise, location.horizontalAccuracy)
        if evidence.isParting, distanceFromRoute > partingThreshold - margin {
            next.isParting = true
            threshold = min(threshold, partingThreshold - margin)
        } else {
            next.isParting = distanceFromRoute > partingThreshold && parting(next.partingSamples, routeBearing: input.routeBearing)
            if next.isParting { threshold = min(threshold, partingThreshold) }
        }
        // Driving away: the course has disagreed with the route, steadily, for two epochs and the distance from the route has
        // grown on each by `minimumDistanceMovingAway` in all. Position error, however biased, moves the fixes but
        // neither turns the course nor makes the distance grow with it, so this needs only the fix to lie beyond
        // its own accuracy (and the maneuver threshold), not beyond the 99.9% radius.
        let growth = distanceFromRoute - (next.growthStart ?? distanceFromRoute)
        let drivingAway =
            next.disagreeingFixes >= 2 && next.growingFixes >= 2 && growth >= minimumDistanceMovingAway
            && distanceFromRoute > max(maneuverEnterDistance, location.horizontalAccuracy) && !input.isStationary
        guard distanceFromRoute > threshold || drivingAway else {
            next.consecutiveFixes = 0
            next.firstEvidenceTime = nil
            return next
        }
        // Jitter while standing still is no evidence of having left.
        guard !input.isStationary else { return next }
        next.consecutiveFixes += 1
        let firstTime = next.firstEvidenceTime ?? location.timestamp
        next.firstEvidenceTime = firstTime
        let enough = next.consecutiveFixes >= requiredConsecutiveFixes && location.timestamp.timeIntervalSince(firstTime) >= requiredDuration - 0.001
        if enough || drivingAway { next.isOffRoute = true }
        return next
    }

    /// The samples with this fix added (when it lies `partingSampleSpacing` beyond the last), trimmed to the window.
    /// Without a course (slow, or unknown) the run is broken: parting is judged on steady driving only.
    private func partingSamples(_ samples: [PartingSample], odometer: Double, distance: Double, course: Double?) -> [PartingSample] {
        guard let course else { return [] }
        var next = samples
        if let last = next.last, odometer - last.odometer < Self.partingSampleSpacing { return next }
        next.append(PartingSample(odometer: odometer, distance: distance, course: course))
        let cut = next.firstIndex { odometer - $0.odometer <= partingWindow } ?? next.count
        // Keep one sample at or beyond the window's start, so a full window can be judged.
        next.removeFirst(max(0, cut - 1))
        return next
    }

    /// True when the samples show two roadways parting: a full window of steady course, the distance from the route
    /// growing along the window (its least-squares slope over the window's length at least `partingGrowth`: single
    /// fixes' noise averages out), and the route at the match (`routeBearing`, degrees) bending away from the
    /// window's mean course by `partingAngle` or more.
    private func parting(_ samples: [PartingSample], routeBearing: Double?) -> Bool {
        guard samples.count >= 3, let first = samples.first, let last = samples.last, let routeBearing,
            last.odometer - first.odometer >= partingWindow,
            samples.allSatisfy({ Geodesy.angleBetween($0.course, last.course) <= partingCourse })
        else { return false }
        // The course averaged over the window (a single fix's Doppler course wanders by a degree or two).
        let east = samples.reduce(0) { $0 + sin(Geodesy.radians($1.course)) }
        let north = samples.reduce(0) { $0 + cos(Geodesy.radians($1.course)) }
        let angle = Geodesy.angleBetween(Geodesy.normalizedDegrees(Geodesy.degrees(atan2(east, north))), routeBearing)
        guard angle >= partingAngle, angle < headingMismatch else { return false }
        let n = Double(samples.count)
        let meanX = samples.reduce(0) { $0 + $1.odometer } / n
        let meanY = samples.reduce(0) { $0 + $1.distance } / n
        var covariance = 0.0, variance = 0.0
        for sample in samples {
            covariance += (sample.odometer - meanX) * (sample.distance - meanY)
            variance += (sample.odometer - meanX) * (sample.odometer - meanX)
        }
        guard variance > 0 else { return false }
        return covariance / variance * (last.odometer - first.odometer) >= partingGrowth
    }
}
