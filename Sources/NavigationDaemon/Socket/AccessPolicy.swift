import CNavdSystem
import FoundationEssentials
import Glibc

/// The peer at the other end of a connection, from SO_PEERCRED (set by the kernel, so it cannot be forged).
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// Who a client is, by transport: a process on the Unix socket (the kernel says which), or a WebSocket peer
/// (its address; its rights come from the token, not from who it is).
public enum ClientPeer: Sendable, Hashable, CustomStringConvertible {
    case unix(PeerCredentials)
    case web(address: String)

    public var description: String {
        switch self {
        case .unix(let credentials): credentials.description
        case .web(let address): "web \(address)"
        }
    }
}

/// Who may send control commands. Everyone who can open the socket (its file mode and group decide that) may
/// read; control needs root, navd's own user, a listed user, or membership of a listed group.
public struct AccessPolicy: Sendable {
    public var ownUID: UInt32
    public var controlUIDs: Set<UInt32>
    public var controlGIDs: Set<UInt32>
    /// Names in the config that match no user or group (logged at start).
    public var unknownNames: [String]

    public init(ownUID: UInt32 = geteuid(), controlUIDs: Set<UInt32> = [], controlGIDs: Set<UInt32> = [], unknownNames: [String] = []) {
        self.ownUID = ownUID
        self.controlUIDs = controlUIDs
        self.controlGIDs = controlGIDs
        self.unknownNames = unknownNames
    }

    /// Resolves user and group names (or numeric ids) from the config.
    public init(socket: NavdConfig.Socket) {
        var uids: Set<UInt32> = []
        var gids: Set<UInt32> = []
        var unknown: [String] = []
        for user in socket.controlUsers {
            if let uid = UInt32(user) {
                uids.insert(uid)
            } else if let entry = getpwnam(user) {
                uids.insert(entry.pointee.pw_uid)
            } else {
                unknown.append("user \(user)")
            }
        }
        for group in socket.controlGroups {
            if let gid = UInt32(group) {
                gids.insert(gid)
            } else if let entry = getgrnam(group) {
                gids.insert(entry.pointee.gr_gid)
            } else {
                unknown.append("group \(group)")
            }
        }
        self.init(ownUID: geteuid(), controlUIDs: uids, controlGIDs: gids, unknownNames: unknown)
    }

    public func mayControl(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID || controlUIDs.contains(peer.uid) { return true }
        return controlGIDs.contains { navd_user_in_group(peer.uid, peer.gid, $0) == 1 }
    }
}
