import ChatServer
import PostgresNIO

/// The request-counting limits in the shared database, each one statement
/// on its own (no write lock: nothing here is in the sync log).
struct PostgresLimits: SharedLimits {
    let pool: PostgresPool

    func blockedFor(_ key: String, limit: Int, windowMs: Int, now: Int) throws -> Int? {
        guard limit > 0 else { return nil }
        // The newest `limit` events inside the window; blocked while there
        // are that many, until the oldest of them leaves the window.
        let since = now - windowMs
        let times = try pool.withConnection { conn in
            try conn.query("""
                SELECT at FROM login_failure WHERE account = \(key) AND at > \(since) ORDER BY at DESC LIMIT \(limit)
                """).map { try $0.decode(Int.self) }
        }
        guard times.count >= limit, let oldest = times.last else { return nil }
        let until = oldest + windowMs
        return until > now ? until - now : nil
    }

    func record(_ key: String, limit: Int, windowMs: Int, now: Int) throws {
        guard limit > 0 else { return }
        let since = now - windowMs
        try pool.withConnection { conn in
            try conn.execute("DELETE FROM login_failure WHERE account = \(key) AND at <= \(since)")
            try conn.execute("INSERT INTO login_failure(account, at) VALUES (\(key), \(now))")
            try conn.flush()
        }
    }

    /// The bucket of `TokenBucket` in one statement: refilled, less one
    /// token, never below −1; the request may go when what is left is not negative.
    func takeRequest(uid: Int, perSecond: Int, burst: Int, now: Int) throws -> Bool {
        let left = try pool.withConnection { conn in
            try conn.scalar("""
                INSERT INTO request_bucket(uid, tokens, at) VALUES (\(uid), \(Double(burst - 1)), \(now))
                ON CONFLICT (uid) DO UPDATE SET
                    tokens = GREATEST(-1, LEAST(\(Double(burst)), request_bucket.tokens
                        + GREATEST(0, \(now) - request_bucket.at) * \(Double(perSecond)) / 1000.0) - 1),
                    at = GREATEST(request_bucket.at, \(now))
                RETURNING tokens
                """, as: Double.self) ?? 0
        }
        return left >= 0
    }
}
