import Synchronization

/// The counters behind the limits that count requests (PROTOCOL.md v4):
/// sign-ups and failed sign-ins per client address, failed logins per
/// (account, address), and each user's request bucket. One node keeps them
/// in memory; nodes sharing a database keep them there, so a limit holds
/// however a proxy spreads the requests.
package protocol SharedLimits: Sendable {
    /// Milliseconds until `key` may be counted again: `limit` events of it
    /// within `windowMs` block it until the oldest of them leaves the
    /// window. nil when it may be now.
    func blockedFor(_ key: String, limit: Int, windowMs: Int, now: Int) throws -> Int?
    /// Counts an event of `key` at `now`.
    func record(_ key: String, limit: Int, windowMs: Int, now: Int) throws
    /// Takes one request from `uid`'s token bucket (refilled at `perSecond`,
    /// holding at most `burst`); false when it is empty.
    func takeRequest(uid: Int, perSecond: Int, burst: Int, now: Int) throws -> Bool
}

/// The limits of a single node.
final class MemoryLimits: SharedLimits {
    private let windows = Mutex(SlidingWindows())
    private let buckets = Mutex<[Int: TokenBucket]>([:])

    func blockedFor(_ key: String, limit: Int, windowMs: Int, now: Int) -> Int? {
        windows.withLock { $0.blockedFor(key, limit: limit, windowMs: windowMs, now: now) }
    }

    func record(_ key: String, limit: Int, windowMs: Int, now: Int) {
        windows.withLock { $0.record(key, limit: limit, windowMs: windowMs, now: now) }
    }

    func takeRequest(uid: Int, perSecond: Int, burst: Int, now: Int) -> Bool {
        buckets.withLock { table in
            var bucket = table[uid] ?? TokenBucket(tokens: Double(burst), at: now)
            let allowed = bucket.take(perSecond: perSecond, burst: burst, now: now)
            table[uid] = bucket
            // Full buckets hold no information: past 10,000 users, they go.
            if table.count > 10_000 { table = table.filter { !$0.value.isFull(perSecond: perSecond, burst: burst, now: now) } }
            return allowed
        }
    }
}

/// A token bucket: refilled continuously, a request takes one token. A
/// refused request still takes what is there, down to −1, so a client that
/// keeps hammering stays refused until it pauses.
struct TokenBucket: Sendable {
    var tokens: Double
    var at: Int

    mutating func take(perSecond: Int, burst: Int, now: Int) -> Bool {
        let refilled = min(Double(burst), tokens + Double(max(0, now - at)) * Double(perSecond) / 1000)
        tokens = max(-1, refilled - 1)
        at = max(at, now)
        return tokens >= 0
    }

    func isFull(perSecond: Int, burst: Int, now: Int) -> Bool {
        tokens + Double(max(0, now - at)) * Double(perSecond) / 1000 >= Double(burst)
    }
}
