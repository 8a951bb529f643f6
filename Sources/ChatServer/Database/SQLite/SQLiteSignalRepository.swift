import GRDB

struct SQLiteSignalRepository: SignalRepository {
    let db: Database

    func insertSignal(owner: Int, content: String, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO signal(ownerUid, content, createdAt) VALUES (?, ?, ?)")
            .execute(arguments: [owner, content, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func owner(ofSignal id: Int) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT ownerUid FROM signal WHERE id = ?"), arguments: [id])
    }

    func insertReply(signalId: Int, from: Int, content: String, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO signal_reply(signalId, fromUid, content, createdAt) VALUES (?, ?, ?, ?)")
            .execute(arguments: [signalId, from, content, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func inbox(owner: Int, limit: Int) throws -> [SignalReplyRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.id, r.signalId, s.content AS signalContent, r.content AS replyContent, r.fromUid, r.isImOpened
            FROM signal_reply r JOIN signal s ON s.id = r.signalId
            WHERE s.ownerUid = ? ORDER BY r.id DESC LIMIT ?
            """), arguments: [owner, limit]).map { row in
            SignalReplyRow(id: row["id"], signalId: row["signalId"], signalContent: row["signalContent"],
                           replyContent: row["replyContent"], fromUid: row["fromUid"], isImOpened: row["isImOpened"])
        }
    }

    func parties(ofReply id: Int) throws -> (from: Int, owner: Int)? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT r.fromUid, s.ownerUid FROM signal_reply r JOIN signal s ON s.id = r.signalId WHERE r.id = ?
            """), arguments: [id]).map { row in (row["fromUid"], row["ownerUid"]) }
    }

    func markOpened(reply id: Int) throws {
        try db.cachedStatement(sql: "UPDATE signal_reply SET isImOpened = 1 WHERE id = ?").execute(arguments: [id])
    }

    func isReply(_ id: Int, between a: Int, and b: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM signal_reply r JOIN signal s ON s.id = r.signalId
            WHERE r.id = ? AND ((s.ownerUid = ? AND r.fromUid = ?) OR (s.ownerUid = ? AND r.fromUid = ?))
            """), arguments: [id, a, b, b, a]) != nil
    }
}
