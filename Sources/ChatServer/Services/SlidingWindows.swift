/// Caps password guessing (and the KDF's CPU) per account: `limit` failed
/// logins within any `windowMs` block that account's logins until the
/// oldest of them is `windowMs` old. A sliding window, so failures cannot
/// be spread across a minute boundary to double the allowance.
struct LoginThrottle: Sendable {
    let limit: Int
    let windowMs: Int
    /// The newest `limit` failure times per account, oldest first.
    private var failures: [String: [Int]] = [:]
    /// Past this many accounts, ones with no failure inside the window are dropped.
    private let maxTracked: Int

    init(limit: Int, windowMs: Int, maxTracked: Int = 10_000) {
        self.limit = limit; self.windowMs = windowMs; self.maxTracked = maxTracked
    }

    /// Milliseconds until `account` may try again, or nil if it may now.
    func blockedFor(_ account: String, now: Int) -> Int? {
        guard let times = failures[account], times.count >= limit, let oldest = times.first else { return nil }
        let until = oldest + windowMs
        return until > now ? until - now : nil
    }

    mutating func recordFailure(_ account: String, now: Int) {
        var times = failures[account, default: []].filter { now - $0 < windowMs }
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        failures[account] = times
        if failures.count > maxTracked {
            failures = failures.filter { _, t in t.last.map { now - $0 < windowMs } ?? false }
        }
    }

    var trackedAccounts: Int { failures.count }
}
