import Synchronization

/// The counters behind login throttling and the per-user request rate.
/// One node keeps them in memory; nodes sharing a database keep them there,
/// so a limit holds however a proxy spreads the requests.
package protocol SharedLimits: Sendable {
    /// Milliseconds until `account` may try to log in again, or nil if it may now.
    func loginBlockedFor(_ account: String, now: Int) throws -> Int?
    func recordLoginFailure(_ account: String, now: Int) throws
    /// Counts a request of `uid` in Unix second `second`; returns the count so far in that second.
    func countRequest(uid: Int, second: Int) throws -> Int
}

/// The limits of a single node.
final class MemoryLimits: SharedLimits {
    private let throttle: Mutex<LoginThrottle>
    private let rate = Mutex<[Int: (second: Int, count: Int)]>([:])

    init(loginLimit: Int, windowMs: Int) {
        throttle = Mutex(LoginThrottle(limit: loginLimit, windowMs: windowMs))
    }

    func loginBlockedFor(_ account: String, now: Int) -> Int? {
        throttle.withLock { $0.blockedFor(account, now: now) }
    }

    func recordLoginFailure(_ account: String, now: Int) {
        throttle.withLock { $0.recordFailure(account, now: now) }
    }

    func countRequest(uid: Int, second: Int) -> Int {
        rate.withLock { table in
            var entry = table[uid] ?? (second, 0)
            if entry.second != second { entry = (second, 0) }
            entry.count += 1
            table[uid] = entry
            if table.count > 10_000 { table = table.filter { $0.value.second == second } }
            return entry.count
        }
    }

}
