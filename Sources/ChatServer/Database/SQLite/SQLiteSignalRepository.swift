import GRDB

struct SQLiteSignalRepository: SignalRepository {
    let db: Database

    func insertSignal(owner: Int, content: String, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO signal(ownerUid, content, createdAt) VALUES (?, ?, ?)")
            .execute(arguments: [owner, content, createdAt])
        return Int(db.lastInsertedRowID)
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

    func signal(_ id: Int) throws -> SignalRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT id, ownerUid, content, createdAt, deleted FROM signal WHERE id = ?"),
                         arguments: [id]).map(Self.row)
    }

    func hasReplied(to signalId: Int, from uid: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM signal_reply WHERE signalId = ? AND fromUid = ? LIMIT 1"),
                         arguments: [signalId, uid]) != nil
    }

    func feed(for reader: Int, before: Int?, limit: Int) throws -> [SignalRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT s.id, s.ownerUid, s.content, s.createdAt, s.deleted,
                   EXISTS (SELECT 1 FROM signal_reply r WHERE r.signalId = s.id AND r.fromUid = ?1) AS replied
            FROM signal s
            WHERE s.id < ?2 AND NOT s.deleted AND s.ownerUid <> ?1
              AND NOT EXISTS (SELECT 1 FROM signal_hide h WHERE h.uid = ?1 AND h.signalId = s.id)
              AND NOT EXISTS (SELECT 1 FROM block b WHERE (b.uid = ?1 AND b.blockedUid = s.ownerUid)
                                                      OR (b.uid = s.ownerUid AND b.blockedUid = ?1))
            ORDER BY s.id DESC LIMIT ?3
            """), arguments: [reader, before ?? Int.max, limit]).map { row in
            var s = Self.row(row)
            s.replied = row["replied"]
            return s
        }
    }

    func signals(of owner: Int, limit: Int) throws -> [SignalRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT s.id, s.ownerUid, s.content, s.createdAt, s.deleted,
                   (SELECT COUNT(*) FROM signal_reply r WHERE r.signalId = s.id) AS replyCount
            FROM signal s WHERE s.ownerUid = ? AND NOT s.deleted ORDER BY s.id DESC LIMIT ?
            """), arguments: [owner, limit]).map { row in
            var s = Self.row(row)
            s.replyCount = row["replyCount"]
            return s
        }
    }

    func markDeleted(_ id: Int) throws {
        try db.cachedStatement(sql: "UPDATE signal SET deleted = 1 WHERE id = ?").execute(arguments: [id])
    }

    func hide(_ id: Int, for uid: Int) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO signal_hide(uid, signalId) VALUES (?, ?)").execute(arguments: [uid, id])
    }

    func report(_ id: Int, by uid: Int, reason: String, at: Int) throws {
        try db.cachedStatement(sql: "INSERT INTO signal_report(signalId, reporterUid, reason, createdAt) VALUES (?, ?, ?, ?)")
            .execute(arguments: [id, uid, reason, at])
    }

    func reports(limit: Int) throws -> [SignalReportRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, signalId, reporterUid, reason, createdAt FROM signal_report ORDER BY id DESC LIMIT ?
            """), arguments: [limit]).map { row in
            SignalReportRow(id: row["id"], signalId: row["signalId"], reporterUid: row["reporterUid"], reason: row["reason"],
                            createdAt: row["createdAt"])
        }
    }

    static func row(_ row: Row) -> SignalRow {
        SignalRow(id: row["id"], ownerUid: row["ownerUid"], content: row["content"], createdAt: row["createdAt"],
                  deleted: row["deleted"])
    }
}
