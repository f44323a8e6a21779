import LocationSources
import NavigationCore

/// GNSS health as clients see it in `gnss` events.
public struct GNSSHealth: Equatable, Sendable {
    public enum Status: String, Sendable {
        /// Fixes arrive and are accurate enough to navigate.
        case ok
        /// Fixes arrive but are poor (accuracy worse than the configured limit), or the receiver says it has none.
        case degraded
        /// No fixes: the source is disconnected, silent or failed.
        case lost
    }

    public var status: Status
    /// A sentence saying why.
    public var detail: String

    public init(status: Status, detail: String) {
        self.status = status
        self.detail = detail
    }

    /// Health implied by one reading.
    public static func of(_ reading: GNSSReading, degradedAccuracy: Double) -> GNSSHealth {
        switch reading {
        case .fix(let fix):
            if fix.location.horizontalAccuracy > degradedAccuracy {
                return GNSSHealth(
                    status: .degraded,
                    detail: "fix accuracy \(CheckedNumber.clampedWhole(fix.location.horizontalAccuracy)) m is worse than \(CheckedNumber.clampedWhole(degradedAccuracy, rounding: .towardZero)) m")
            }
            return GNSSHealth(status: .ok, detail: fix.quality.mode == .threeDimensional ? "3D fix" : "2D fix")
        case .noFix:
            return GNSSHealth(status: .degraded, detail: "receiver reports no fix")
        }
    }

    /// Health implied by a source status, or nil when the status says nothing about fixes.
    public static func of(_ status: GNSSSourceStatus) -> GNSSHealth? {
        switch status {
        case .connecting, .connected, .receiverBack: nil
        case .disconnected(let reason, _): GNSSHealth(status: .lost, detail: "source disconnected: \(reason)")
        case .receiverLost(let silent): GNSSHealth(status: .lost, detail: "no fix for \(CheckedNumber.clampedWhole(silent)) s")
        case .failed(let reason): GNSSHealth(status: .lost, detail: "source failed: \(reason)")
        case .finished: GNSSHealth(status: .lost, detail: "replay finished")
        }
    }
}
