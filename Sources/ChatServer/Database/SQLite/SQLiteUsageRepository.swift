import GRDB

struct SQLiteUsageRepository: UsageRepository {
    let db: Database

    func used(uid: Int, kind: String, since: Int) throws -> (amount: Int, earliest: Int?) {
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT COALESCE(SUM(amount), 0), MIN(at) FROM usage WHERE uid = ? AND kind = ? AND at > ?
            """), arguments: [uid, kind, since])
        return (row?[0] ?? 0, row?[1])
    }

    func record(uid: Int, kind: String, amount: Int, at: Int) throws {
        try db.cachedStatement(sql: "INSERT INTO usage(uid, kind, at, amount) VALUES (?, ?, ?, ?)")
            .execute(arguments: [uid, kind, at, amount])
    }

    func prune(through cutoff: Int) throws {
        try db.cachedStatement(sql: "DELETE FROM usage WHERE at <= ?").execute(arguments: [cutoff])
    }
}
