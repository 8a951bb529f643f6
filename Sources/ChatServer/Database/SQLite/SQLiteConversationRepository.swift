import GRDB

struct SQLiteConversationRepository: ConversationRepository {
    let db: Database

    func exists(_ id: String) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [id]) != nil
    }

    func create(_ id: String, uidLow: Int, uidHigh: Int, createdAt: Int) throws {
        try db.cachedStatement(sql: """
            INSERT INTO conversation(id, uidLow, uidHigh, maxSeq, createdAt) VALUES (?, ?, ?, 0, ?)
            ON CONFLICT(id) DO NOTHING
            """).execute(arguments: [id, uidLow, uidHigh, createdAt])
    }

    func addMember(_ id: String, uid: Int, hidden: Bool) throws {
        try db.cachedStatement(sql: """
            INSERT INTO member(conversationId, uid, hidden) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """).execute(arguments: [id, uid, hidden])
    }

    func member(_ id: String, uid: Int) throws -> MemberRow? {
        try MemberRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM member WHERE conversationId = ? AND uid = ?"), arguments: [id, uid])
    }

    func update(_ member: MemberRow) throws {
        try member.update(db)
    }

    func maxSeq(of id: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [id])
    }

    func createdAt(of id: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT createdAt FROM conversation WHERE id = ?"), arguments: [id])
    }

    func takeNextSeq(_ id: String) throws -> Int? {
        // One statement takes the next seq and hands it back (RETURNING, SQLite ≥ 3.35).
        try Int.fetchOne(db.cachedStatement(sql: "UPDATE conversation SET maxSeq = maxSeq + 1 WHERE id = ? RETURNING maxSeq"),
                         arguments: [id])
    }

    func noteAppended(_ id: String, seq: Int, sender: Int, senderRead: Bool) throws {
        // Only the rows it changes: in a big group, rewriting every
        // member's row would cost a write per member per message.
        try db.cachedStatement(sql: """
            UPDATE member SET hidden = hidden AND (clearedSeq >= ?1 OR leftSeq IS NOT NULL),
                              readSeq = CASE WHEN uid = ?2 AND ?3 THEN MAX(readSeq, ?1) ELSE readSeq END
            WHERE conversationId = ?4 AND (hidden OR (uid = ?2 AND ?3 AND readSeq < ?1))
            """).execute(arguments: [seq, sender, senderRead, id])
    }

    func join(_ id: String, uid: Int, joinedSeq: Int, joinedAt: Int) throws {
        try db.cachedStatement(sql: """
            INSERT INTO member(conversationId, uid, hidden, joinedSeq, joinedAt) VALUES (?1, ?2, 0, ?3, ?4)
            ON CONFLICT(conversationId, uid) DO UPDATE SET hidden = 0, leftSeq = NULL, joinedSeq = ?3, joinedAt = ?4
            """).execute(arguments: [id, uid, joinedSeq, joinedAt])
    }

    func activeMembers(_ id: String) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: """
            SELECT uid FROM member WHERE conversationId = ? AND leftSeq IS NULL ORDER BY joinedAt, uid
            """), arguments: [id])
    }

    func activeMembers(_ id: String, afterUid uid: Int, limit: Int) throws -> [MemberRow] {
        try MemberRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM member WHERE conversationId = ? AND leftSeq IS NULL AND uid > ? ORDER BY uid LIMIT ?
            """), arguments: [id, uid, limit])
    }

    func readStates(_ id: String) throws -> [MemberReadState] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT uid, readSeq, joinedSeq FROM member WHERE conversationId = ? AND leftSeq IS NULL
            """), arguments: [id])
        var out: [MemberReadState] = []
        while let row = try rows.next() { out.append(MemberReadState(uid: row[0], readSeq: row[1], joinedSeq: row[2])) }
        return out
    }

    func activeMemberCount(_ id: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM member WHERE conversationId = ? AND leftSeq IS NULL"),
                         arguments: [id]) ?? 0
    }

    func noteMention(_ id: String, seq: Int, uids: [Int]) throws {
        let statement = try db.cachedStatement(sql: """
            UPDATE member SET mentionSeq = MAX(mentionSeq, ?) WHERE conversationId = ? AND uid = ? AND leftSeq IS NULL
            """)
        for uid in uids { try statement.execute(arguments: [seq, id, uid]) }
    }

    func visibleConversations(of uid: Int) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT conversationId FROM member WHERE uid = ? AND hidden = 0"), arguments: [uid])
    }

    func unhide(_ id: String, uid: Int) throws {
        try db.cachedStatement(sql: "UPDATE member SET hidden = 0 WHERE conversationId = ? AND uid = ?").execute(arguments: [id, uid])
    }

    func markOpened(_ id: String) throws {
        try db.cachedStatement(sql: "UPDATE member SET isImOpened = 1 WHERE conversationId = ?").execute(arguments: [id])
    }

    func visiblePeers(of uid: Int) throws -> [(conversationId: String, uid: Int)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT peer.conversationId, peer.uid FROM member me
            JOIN member peer ON peer.conversationId = me.conversationId AND peer.uid <> me.uid
            WHERE me.uid = ? AND peer.hidden = 0 AND substr(me.conversationId, 1, 3) = 'si_'
            """), arguments: [uid]).map { row in (row[0], row[1]) }
    }

    func secretPeers(of uid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: """
            SELECT CASE WHEN uidLow = ?1 THEN uidHigh ELSE uidLow END FROM conversation
            WHERE (uidLow = ?1 OR uidHigh = ?1) AND substr(id, 1, 3) = 'ss_'
            """), arguments: [uid])
    }

    func contacts(of uid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: """
            SELECT peer FROM (SELECT CASE WHEN uidLow = ?1 THEN uidHigh ELSE uidLow END AS peer FROM conversation
                              WHERE uidLow = ?1 OR uidHigh = ?1)
            WHERE NOT EXISTS (SELECT 1 FROM block b WHERE (b.uid = ?1 AND b.blockedUid = peer) OR (b.uid = peer AND b.blockedUid = ?1))
            """), arguments: [uid])
    }
}

extension MemberRow: FetchableRecord, PersistableRecord {
    package static let databaseTableName = "member"
}
