import ChatCore

/// The daily quotas of PROTOCOL.md v4, counted in the database (`usage`),
/// so they hold across a cluster's nodes. A limit of 0 is no limit.
struct Quotas: Sendable {
    static let dayMs = 86_400_000
    let config: ServerConfig

    enum Kind: String {
        case groups = "group", invites = "invite", friendRequests = "friend_request", rooms = "room", signals = "signal"
        case uploadBytes = "upload"
    }

    func limit(of kind: Kind) -> Int {
        let l = config.limits
        switch kind {
        case .groups: return l.groupsPerDay
        case .invites: return l.invitesPerDay
        case .friendRequests: return l.friendRequestsPerDay
        case .rooms: return l.roomsPerDay
        case .signals: return l.signalsPerDay
        case .uploadBytes: return l.uploadBytesPerDay
        }
    }

    /// Counts `amount` uses of `kind` by `uid`, or refuses them all: 413
    /// `quota` for upload bytes, 429 with the wait otherwise.
    func take(_ kind: Kind, amount: Int = 1, by uid: Int, in tx: any StorageTransaction) throws {
        guard limit(of: kind) > 0, amount > 0 else { return }
        try check(kind, amount: amount, by: uid, in: tx)
        try tx.usage.record(uid: uid, kind: kind.rawValue, amount: amount, at: config.clock.nowMs())
    }

    /// Refuses as `take` would, counting nothing (an upload asks before its
    /// bytes touch the disk, and takes in the write that stores them).
    func check(_ kind: Kind, amount: Int = 1, by uid: Int, in tx: any StorageTransaction) throws {
        let limit = limit(of: kind)
        guard limit > 0, amount > 0 else { return }
        let now = config.clock.nowMs()
        let (used, earliest) = try tx.usage.used(uid: uid, kind: kind.rawValue, since: now - Self.dayMs)
        guard used + amount <= limit else {
            let wait = max(1, ((earliest ?? now) + Self.dayMs - now + 999) / 1000)
            switch kind {
            case .uploadBytes:
                throw APIFailure(.quota, "today's upload quota of \(limit / (1 << 20)) MiB is spent", retryAfter: wait)
            default:
                throw APIFailure(.rateLimited, "at most \(limit) \(kind.noun) a day", retryAfter: wait)
            }
        }
    }

    /// `receiver` declined `sender`'s friend request now.
    func noteDeclined(sender: Int, receiver: Int, in tx: any StorageTransaction) throws {
        try tx.usage.record(uid: sender, kind: Self.declinedKind(receiver), amount: 1, at: config.clock.nowMs())
    }

    /// 429 while `receiver` declined `sender` within the cool-down.
    func checkCooldown(sender: Int, receiver: Int, in tx: any StorageTransaction) throws {
        let coolMs = config.limits.friendRequestCooldownSeconds * 1000
        guard coolMs > 0 else { return }
        let now = config.clock.nowMs()
        let (_, declined) = try tx.usage.used(uid: sender, kind: Self.declinedKind(receiver), since: now - coolMs)
        if let declined {
            throw APIFailure(.rateLimited, "this user declined your request; you can ask again later",
                             retryAfter: max(1, (declined + coolMs - now + 999) / 1000))
        }
    }

    private static func declinedKind(_ receiver: Int) -> String { "declined:\(receiver)" }

    /// Forgets uses older than any window reads.
    func prune(in tx: any StorageTransaction) throws {
        let window = max(Self.dayMs, config.limits.friendRequestCooldownSeconds * 1000)
        try tx.usage.prune(through: config.clock.nowMs() - window)
    }
}

private extension Quotas.Kind {
    var noun: String {
        switch self {
        case .groups: "groups can be created"
        case .rooms: "rooms can be created"
        case .signals: "signals can be posted"
        case .friendRequests: "friend requests can be sent"
        case .invites: "people can be invited"
        case .uploadBytes: "bytes can be uploaded"
        }
    }
}
