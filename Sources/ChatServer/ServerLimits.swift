import Foundation

/// PROTOCOL.md v4 "Limits and consent": what a server on the open internet
/// refuses by default. Every number is a `tongban-server` option
/// (docs/server.md); tests and benchmarks raise the ones they need.
public struct ServerLimits: Sendable {
    /// Requests per second one user may make, on average (0 = unlimited)…
    public var requestsPerSecond: Int = 50
    /// …and in a burst.
    public var requestBurst: Int = 100
    /// Sign-up attempts per client address per hour (every answer counts).
    public var signUpsPerHour: Int = 20
    /// Failed sign-ins per client address per minute.
    public var failedSignInsPerMinute: Int = 20
    /// Failed sign-ins per (account, client address) per minute.
    public var failedLoginsPerAccount: Int = 10
    /// Threads that hash passwords (at most cores − 1, at least 1).
    public var hashThreads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
    /// Sign-ins and sign-ups waiting for a hashing thread; past it, 429 at once.
    public var hashQueue: Int = 16
    /// How long a sign-in or sign-up over its address's (or account's) limit
    /// waits for its 429: a flood that ignores Retry-After is answered at
    /// that pace, one connection at a time.
    public var refusalDelayMs: Int = 1000
    /// Peers whose `X-Forwarded-For` is believed (addresses or CIDR blocks).
    public var trustedProxies: [String] = ["127.0.0.0/8", "::1/128"]
    /// Per user and day (a sliding 24 hours).
    public var groupsPerDay: Int = 20
    public var invitesPerDay: Int = 500
    public var friendRequestsPerDay: Int = 50
    public var roomsPerDay: Int = 10
    public var signalsPerDay: Int = 10
    public var uploadBytesPerDay: Int = 1 << 30
    /// After a decline, the same sender cannot ask the same receiver again for this long.
    public var friendRequestCooldownSeconds: Int = 24 * 3600
    public var avatarMaxBytes: Int = 512 * 1024
    /// Width and height, in pixels.
    public var avatarMaxPixels: Int = 1024

    public init() {}

    /// Everything a test suite or a benchmark that signs many users up from
    /// one address needs: no limit that counts requests or uses.
    public static var unlimited: ServerLimits {
        var l = ServerLimits()
        l.countNothing()
        return l
    }

    /// Turns off every limit that counts requests or uses (`--no-limits`);
    /// the per-account login throttle, the cool-down and the avatar's size stay.
    public mutating func countNothing() {
        requestsPerSecond = 0
        signUpsPerHour = 0
        failedSignInsPerMinute = 0
        groupsPerDay = 0
        invitesPerDay = 0
        friendRequestsPerDay = 0
        roomsPerDay = 0
        signalsPerDay = 0
        uploadBytesPerDay = 0
        hashQueue = 1024
        refusalDelayMs = 0
    }
}

extension ServerLimits {
    /// Whether `text` names an address or a CIDR block (`--trusted-proxy`).
    public static func isValidNetwork(_ text: String) -> Bool { ClientAddress.Network(text) != nil }
}
