import GRDB

struct SQLiteSyncLogRepository: SyncLogRepository {
    let db: Database

    func append(uid: Int, messageId: Int64?, body: String, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO event(uid, messageId, body, createdAt) VALUES (?, ?, ?, ?)")
            .execute(arguments: [uid, messageId, body, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func append(uids first: Int, _ second: Int, messageId: Int64, body: String, createdAt: Int) throws -> (Int, Int) {
        try db.cachedStatement(sql: """
            INSERT INTO event(uid, messageId, body, createdAt) VALUES (?1, ?3, ?4, ?5), (?2, ?3, ?4, ?5)
            """).execute(arguments: [first, second, messageId, body, createdAt])
        // One statement's rows take consecutive cursors, in VALUES order
        // (RETURNING would cost a third of the statement again).
        let last = Int(db.lastInsertedRowID)
        return (last - 1, last)
    }

    func rewrite(messageId: Int64, asMessage: String, asUpdate: String) throws {
        // Inside a JSON string a quote is escaped, so this pattern only matches the event's own key.
        try db.cachedStatement(sql: """
            UPDATE event SET body = CASE WHEN body LIKE '%"kind":"message_update"%' THEN ? ELSE ? END
            WHERE messageId = ?
            """).execute(arguments: [asUpdate, asMessage, messageId])
    }

    func deleteEntries(of uid: Int, messageIds: [Int64]) throws {
        for id in messageIds {
            try db.cachedStatement(sql: "DELETE FROM event WHERE uid = ? AND messageId = ?").execute(arguments: [uid, id])
        }
    }

    func unattachedEntries(containing text: String) throws -> [(cursor: Int, body: String)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT cursor, body FROM event WHERE messageId IS NULL AND instr(body, ?) > 0
            """), arguments: [text]).map { row in (row["cursor"], row["body"]) }
    }

    func replaceBody(cursor: Int, with body: String) throws {
        try db.cachedStatement(sql: "UPDATE event SET body = ? WHERE cursor = ?").execute(arguments: [body, cursor])
    }

    func newestCursor(uid: Int) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE uid = ?"), arguments: [uid])
    }

    func entries(of uid: Int, after cursor: Int, limit: Int,
                 _ visit: (_ cursor: Int, _ body: String) throws -> Void) throws -> Bool {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT cursor, body FROM event WHERE uid = ? AND cursor > ? ORDER BY cursor LIMIT ?
            """), arguments: [uid, cursor, limit + 1])
        var count = 0
        while let row = try rows.next() {
            if count == limit { return true }
            count += 1
            try visit(row[0], row[1])
        }
        return false
    }

    func floor() throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'event_floor'"))
    }

    func newestCursor(createdBefore ms: Int) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE createdAt < ?"), arguments: [ms])
    }

    func deleteEntries(through cursor: Int) throws {
        try db.cachedStatement(sql: "DELETE FROM event WHERE cursor <= ?").execute(arguments: [cursor])
    }

    func raiseFloor(to cursor: Int) throws {
        try db.cachedStatement(sql: """
            INSERT INTO meta(key, value) VALUES ('event_floor', ?)
            ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
            """).execute(arguments: [cursor])
    }
}
