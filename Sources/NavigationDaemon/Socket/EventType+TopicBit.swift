import NavigationProtocol

extension EventType {
    /// This type's bit in a client's subscription mask: one bit per case, so the mask fits a `UInt32`.
    var topicBit: UInt32 {
        switch self {
        case .tripState: 1 << 0
        case .instruction: 1 << 1
        case .instructionRetracted: 1 << 2
        case .deviation: 1 << 3
        case .route: 1 << 4
        case .routeCalculation: 1 << 5
        case .waypointReached: 1 << 6
        case .arrived: 1 << 7
        case .gnss: 1 << 8
        case .speedAlert: 1 << 9
        case .routeRefreshed: 1 << 10
        case .routeAlternatives: 1 << 11
        case .fasterRoute: 1 << 12
        case .announcement: 1 << 13
        case .voice: 1 << 14
        }
    }
}
