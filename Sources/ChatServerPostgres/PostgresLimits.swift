import ChatServer
import PostgresNIO

/// Login throttling and request counts in the shared database, each one
/// statement on its own (no write lock: nothing here is in the sync log).
struct PostgresLimits: SharedLimits {
    let pool: PostgresPool
    let loginLimit: Int
    let windowMs: Int

    func loginBlockedFor(_ account: String, now: Int) throws -> Int? {
        // The newest `loginLimit` failures inside the window; blocked while
        // there are that many, until the oldest of them leaves the window.
        let since = now - windowMs
        let times = try pool.withConnection { conn in
            try conn.query("""
                SELECT at FROM login_failure WHERE account = \(account) AND at > \(since) ORDER BY at DESC LIMIT \(loginLimit)
                """).map { try $0.decode(Int.self) }
        }
        guard times.count >= loginLimit, let oldest = times.last else { return nil }
        let until = oldest + windowMs
        return until > now ? until - now : nil
    }

    func recordLoginFailure(_ account: String, now: Int) throws {
        let since = now - windowMs
        try pool.withConnection { conn in
            try conn.execute("DELETE FROM login_failure WHERE account = \(account) AND at <= \(since)")
            try conn.execute("INSERT INTO login_failure(account, at) VALUES (\(account), \(now))")
            try conn.flush()
        }
    }

    func countRequest(uid: Int, second: Int) throws -> Int {
        try pool.withConnection { conn in
            try conn.scalar("""
                INSERT INTO request_rate(uid, second, count) VALUES (\(uid), \(second), 1)
                ON CONFLICT (uid) DO UPDATE SET
                    count = CASE WHEN request_rate.second = EXCLUDED.second THEN request_rate.count + 1 ELSE 1 END,
                    second = EXCLUDED.second
                RETURNING count
                """, as: Int.self) ?? 0
        }
    }
}
