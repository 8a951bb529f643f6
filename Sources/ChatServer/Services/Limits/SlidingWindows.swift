/// Sliding windows of event times per key (failed logins of an account
/// from an address, sign-ups from an address): `limit` events within any
/// `windowMs` block the key until the oldest of them is `windowMs` old. A
/// sliding window, so events cannot be spread across a minute boundary to
/// double the allowance.
struct SlidingWindows: Sendable {
    /// The newest `limit` event times per key, oldest first.
    private var events: [String: [Int]] = [:]
    /// Past this many keys, ones with no event inside their window are dropped.
    private let maxTracked: Int
    /// The longest window seen, for dropping keys.
    private var longestWindowMs = 0

    init(maxTracked: Int = 10_000) { self.maxTracked = maxTracked }

    /// Milliseconds until `key` may be counted again, or nil if it may now.
    func blockedFor(_ key: String, limit: Int, windowMs: Int, now: Int) -> Int? {
        guard limit > 0, let times = events[key] else { return nil }
        let inside = times.filter { now - $0 < windowMs }
        guard inside.count >= limit, let oldest = inside.suffix(limit).first else { return nil }
        let until = oldest + windowMs
        return until > now ? until - now : nil
    }

    mutating func record(_ key: String, limit: Int, windowMs: Int, now: Int) {
        guard limit > 0 else { return }
        longestWindowMs = max(longestWindowMs, windowMs)
        var times = events[key, default: []].filter { now - $0 < windowMs }
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        events[key] = times
        if events.count > maxTracked {
            let keep = longestWindowMs
            events = events.filter { _, t in t.last.map { now - $0 < keep } ?? false }
        }
    }

    var trackedKeys: Int { events.count }
}
