import ArgumentParser
import ChatServer

/// Every limit of `ServerLimits` as an option, with its default.
struct LimitOptions: ParsableArguments {
    private static let d = ServerLimits()

    @Option(name: .customLong("rate-limit"), help: "Requests per second per user, on average.")
    var rateLimit = d.requestsPerSecond
    @Option(name: .customLong("rate-burst"), help: "Requests a user may make at once.")
    var rateBurst = d.requestBurst
    @Option(name: .customLong("signups-per-hour"), help: "Sign-up attempts per client address per hour.")
    var signUpsPerHour = d.signUpsPerHour
    @Option(name: .customLong("failed-signins-per-minute"), help: "Failed sign-ins per client address per minute.")
    var failedSignInsPerMinute = d.failedSignInsPerMinute
    @Option(name: .customLong("failed-logins-per-account"), help: "Failed sign-ins per account and client address per minute.")
    var failedLoginsPerAccount = d.failedLoginsPerAccount
    @Option(name: .customLong("hash-threads"), help: "Threads that hash passwords (default: cores - 1, at least 1).")
    var hashThreads = d.hashThreads
    @Option(name: .customLong("hash-queue"), help: "Sign-ins waiting for a hashing thread before 429.")
    var hashQueue = d.hashQueue
    @Option(name: .customLong("refusal-delay-ms"),
            help: "Milliseconds a sign-in or sign-up over its address's limit waits for its 429 (a flood is answered at that pace).")
    var refusalDelayMs = d.refusalDelayMs
    @Option(name: .customLong("trusted-proxy"),
            help: "A proxy (address or CIDR block) whose X-Forwarded-For is believed; repeat for several (default: loopback).")
    var trustedProxies: [String] = []
    @Option(name: .customLong("groups-per-day"), help: "Groups one user may create per day.")
    var groupsPerDay = d.groupsPerDay
    @Option(name: .customLong("invites-per-day"), help: "People one user may put in groups per day.")
    var invitesPerDay = d.invitesPerDay
    @Option(name: .customLong("friend-requests-per-day"), help: "Friend requests one user may send per day.")
    var friendRequestsPerDay = d.friendRequestsPerDay
    @Option(name: .customLong("friend-request-cooldown"), help: "Seconds a declined sender waits before asking the same person again.")
    var friendRequestCooldown = d.friendRequestCooldownSeconds
    @Option(name: .customLong("rooms-per-day"), help: "Rooms one user may create per day.")
    var roomsPerDay = d.roomsPerDay
    @Option(name: .customLong("signals-per-day"), help: "Signals one user may post per day.")
    var signalsPerDay = d.signalsPerDay
    @Option(name: .customLong("upload-bytes-per-day"), help: "Bytes one user may upload per day.")
    var uploadBytesPerDay = d.uploadBytesPerDay
    @Option(name: .customLong("avatar-max-bytes"), help: "Largest picture accepted as an avatar, in bytes.")
    var avatarMaxBytes = d.avatarMaxBytes
    @Option(name: .customLong("avatar-max-pixels"), help: "Widest and tallest picture accepted as an avatar.")
    var avatarMaxPixels = d.avatarMaxPixels
    @Flag(name: .customLong("no-limits"),
          help: "Turn every count above off (a test rig or a benchmark that signs thousands up from one address).")
    var noLimits = false

    func validate() throws {
        let counts = [rateLimit, rateBurst, signUpsPerHour, failedSignInsPerMinute, failedLoginsPerAccount, hashQueue, groupsPerDay,
                      invitesPerDay, friendRequestsPerDay, friendRequestCooldown, roomsPerDay, signalsPerDay, uploadBytesPerDay,
                      refusalDelayMs]
        guard counts.allSatisfy({ $0 >= 0 }) else { throw ValidationError("limits must not be negative") }
        guard hashThreads >= 1, avatarMaxBytes > 0, avatarMaxPixels > 0 else {
            throw ValidationError("--hash-threads, --avatar-max-bytes and --avatar-max-pixels must be positive")
        }
        for proxy in trustedProxies where !ServerLimits.isValidNetwork(proxy) {
            throw ValidationError("--trusted-proxy \(proxy): not an address or CIDR block")
        }
    }

    var serverLimits: ServerLimits {
        var l = ServerLimits()
        l.requestsPerSecond = rateLimit
        l.requestBurst = rateBurst
        l.signUpsPerHour = signUpsPerHour
        l.failedSignInsPerMinute = failedSignInsPerMinute
        l.failedLoginsPerAccount = failedLoginsPerAccount
        l.hashThreads = hashThreads
        l.hashQueue = hashQueue
        l.refusalDelayMs = refusalDelayMs
        if !trustedProxies.isEmpty { l.trustedProxies = trustedProxies }
        l.groupsPerDay = groupsPerDay
        l.invitesPerDay = invitesPerDay
        l.friendRequestsPerDay = friendRequestsPerDay
        l.friendRequestCooldownSeconds = friendRequestCooldown
        l.roomsPerDay = roomsPerDay
        l.signalsPerDay = signalsPerDay
        l.uploadBytesPerDay = uploadBytesPerDay
        l.avatarMaxBytes = avatarMaxBytes
        l.avatarMaxPixels = avatarMaxPixels
        if noLimits { l.countNothing() }
        return l
    }
}
