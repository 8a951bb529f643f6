import ChatServer
import PostgresNIO

struct PostgresUsageRepository: UsageRepository {
    let conn: PostgresLink

    func used(uid: Int, kind: String, since: Int) throws -> (amount: Int, earliest: Int?) {
        guard let row = try conn.query("""
            SELECT COALESCE(SUM(amount), 0)::BIGINT, MIN(at) FROM usage WHERE uid = \(uid) AND kind = \(kind) AND at > \(since)
            """).first else { return (0, nil) }
        let (amount, earliest) = try row.decode((Int, Int?).self)
        return (amount, earliest)
    }

    func record(uid: Int, kind: String, amount: Int, at: Int) throws {
        try conn.execute("INSERT INTO usage(uid, kind, at, amount) VALUES (\(uid), \(kind), \(at), \(amount))")
    }

    func prune(through cutoff: Int) throws {
        try conn.execute("DELETE FROM usage WHERE at <= \(cutoff)")
    }
}
