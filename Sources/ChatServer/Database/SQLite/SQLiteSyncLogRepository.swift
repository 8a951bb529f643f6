import GRDB

struct SQLiteSyncLogRepository: SyncLogRepository {
    let db: Database

    func append(uid: Int, messageId: Int64?, summaryKey: String?, body: String, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO event(uid, messageId, summaryKey, body, createdAt) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [uid, messageId, summaryKey, body, createdAt])
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

    func appendShared(conversationId: String, messageId: Int64?, body: String, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO event(uid, conversationId, messageId, body, createdAt) VALUES (0, ?, ?, ?, ?)")
            .execute(arguments: [conversationId, messageId, body, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func openSpan(uid: Int, conversationId: String, afterSeq: Int) throws {
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO timeline_span(uid, conversationId, fromCursor, fromSeq) VALUES (?, ?, ?, ?)
            """).execute(arguments: [uid, conversationId, try lastCursor(), afterSeq])
    }

    func closeSpan(uid: Int, conversationId: String) throws {
        try db.cachedStatement(sql: """
            UPDATE timeline_span SET toCursor = ? WHERE uid = ? AND conversationId = ? AND toCursor IS NULL
            """).execute(arguments: [try lastCursor(), uid, conversationId])
    }

    /// The newest cursor ever handed out (AUTOINCREMENT keeps it after the rows are pruned).
    private func lastCursor() throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'")) ?? 0
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

    func summaries(of summaryKey: String) throws -> [(cursor: Int, body: String)] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT cursor, body FROM event WHERE summaryKey = ?"),
                         arguments: [summaryKey]).map { row in (row["cursor"], row["body"]) }
    }

    func replaceBody(cursor: Int, with body: String) throws {
        try db.cachedStatement(sql: "UPDATE event SET body = ? WHERE cursor = ?").execute(arguments: [body, cursor])
    }

    func newestCursor(uid: Int) throws -> Int? {
        var newest = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE uid = ?"), arguments: [uid])
        for span in try spans(of: uid, endingAfter: 0) {
            let last = try Int.fetchOne(db.cachedStatement(sql: """
                SELECT MAX(cursor) FROM event WHERE uid = 0 AND conversationId = ? AND cursor > ? AND cursor <= ?
                  AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = ? AND h.messageId = event.messageId)
                  \(Self.inSpan)
                """), arguments: [span.conversationId, span.from, span.to ?? Int.max, uid, span.fromSeq])
            if let last, last > newest ?? 0 { newest = last }
        }
        return newest
    }

    /// Merges the user's own entries with each timeline span's, stepping
    /// one statement per stream: a page reads `limit` rows plus one per
    /// stream, however busy the groups are.
    func entries(of uid: Int, after cursor: Int, limit: Int,
                 _ visit: (_ cursor: Int, _ body: String) throws -> Void) throws -> Bool {
        var streams = [try stream(db.cachedStatement(sql: """
            SELECT cursor, body FROM event WHERE uid = ? AND cursor > ? ORDER BY cursor
            """), [uid, cursor])]
        for span in try spans(of: uid, endingAfter: cursor) {
            // A statement of its own per span: they are all stepped at once.
            streams.append(try stream(db.makeStatement(sql: """
                SELECT cursor, body FROM event
                WHERE uid = 0 AND conversationId = ? AND cursor > ? AND cursor <= ?
                  AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.uid = ? AND h.messageId = event.messageId)
                  \(Self.inSpan)
                ORDER BY cursor
                """), [span.conversationId, max(cursor, span.from), span.to ?? Int.max, uid, span.fromSeq]))
        }
        // The next entry of each stream, the smallest cursor first: a user in
        // hundreds of groups pays log(streams) per entry, not a scan of them all.
        var heads = MinHeap()
        for (i, s) in streams.enumerated() { if let e = try s.next() { heads.push(e, from: i) } }
        var count = 0
        while let (entry, i) = heads.pop() {
            if count == limit { return true }
            count += 1
            try visit(entry.cursor, entry.body)
            if let next = try streams[i].next() { heads.push(next, from: i) }
        }
        return false
    }

    private typealias Entry = (cursor: Int, body: String)

    private func stream(_ statement: Statement, _ arguments: StatementArguments) throws -> AnyCursor<Entry> {
        AnyCursor(try Row.fetchCursor(statement, arguments: arguments).map { row in (cursor: row[0], body: row[1]) })
    }

    /// A timeline entry about a message from before the span's member joined stays out.
    private static let inSpan = """
        AND NOT EXISTS (SELECT 1 FROM message m WHERE m.id = event.messageId AND m.seq <= ?)
        """

    private func spans(of uid: Int, endingAfter cursor: Int) throws -> [(conversationId: String, from: Int, to: Int?, fromSeq: Int)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT conversationId, fromCursor, toCursor, fromSeq FROM timeline_span WHERE uid = ? AND (toCursor IS NULL OR toCursor > ?)
            """), arguments: [uid, cursor]).map { row in (conversationId: row[0], from: row[1], to: row[2], fromSeq: row[3]) }
    }

    func floor() throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'event_floor'"))
    }

    func newestCursor(createdBefore ms: Int) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE createdAt < ?"), arguments: [ms])
    }

    func deleteEntries(through cursor: Int) throws {
        try db.cachedStatement(sql: "DELETE FROM event WHERE cursor <= ?").execute(arguments: [cursor])
        try db.cachedStatement(sql: "DELETE FROM timeline_span WHERE toCursor <= ?").execute(arguments: [cursor])
    }

    func raiseFloor(to cursor: Int) throws {
        try db.cachedStatement(sql: """
            INSERT INTO meta(key, value) VALUES ('event_floor', ?)
            ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
            """).execute(arguments: [cursor])
    }
}

/// A binary min-heap of stream heads by cursor (cursors are unique in the log).
private struct MinHeap {
    private var items: [(entry: (cursor: Int, body: String), stream: Int)] = []

    mutating func push(_ entry: (cursor: Int, body: String), from stream: Int) {
        items.append((entry, stream))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].entry.cursor < items[parent].entry.cursor else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> ((cursor: Int, body: String), Int)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < items.count, items[l].entry.cursor < items[smallest].entry.cursor { smallest = l }
            if r < items.count, items[r].entry.cursor < items[smallest].entry.cursor { smallest = r }
            guard smallest != i else { break }
            items.swapAt(i, smallest)
            i = smallest
        }
        return (top.entry, top.stream)
    }
}
