import Foundation
import GRDB

/// The search index (`message_fts`, a trigram FTS5 table over each
/// message's `searchText`) and its backlog. Every function but
/// `indexBacklog` runs inside a transaction the caller opened.
enum SearchTable {
    /// Messages whose text contains `query` (Chinese included), newest first.
    /// Three characters or more use the trigram index, plus a scan of the
    /// messages the index has not taken in yet (`SearchIndexer`); shorter
    /// queries scan with an escaped LIKE.
    static func search(_ query: String, conversationId: String?, limit: Int, db: Database) throws -> [StoredMessage] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty else { return [] }
        let like = "%" + q.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        var args: StatementArguments
        var sql: String
        if q.count >= 3 {
            let phrase = "\"" + q.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            // Newest first straight from the index (rowid order), so a
            // common word in a million messages does not sort them all.
            let candidates = conversationId == nil ? "ORDER BY rowid DESC LIMIT \(limit * 4)" : ""
            sql = """
                SELECT m.* FROM (
                    SELECT id FROM (SELECT rowid AS id FROM message_fts WHERE message_fts MATCH ? \(candidates))
                    UNION ALL
                    SELECT id FROM message
                    WHERE id > (SELECT indexedThrough FROM search_index_state WHERE id = 1)
                      AND searchText LIKE ? ESCAPE '\\'
                ) f
                JOIN message m ON m.id = f.id
                JOIN conversation c ON c.id = m.conversationId
                WHERE m.revoked = 0 AND (m.seq IS NULL OR m.seq > c.clearedSeq)
                """
            args = [phrase, like]
        } else {
            sql = """
                SELECT m.* FROM message m JOIN conversation c ON c.id = m.conversationId
                WHERE m.searchText LIKE ? ESCAPE '\\' AND m.revoked = 0 AND (m.seq IS NULL OR m.seq > c.clearedSeq)
                """
            args = [like]
        }
        if let conversationId {
            sql += " AND m.conversationId = ?"
            args += [conversationId]
        }
        sql += " ORDER BY m.sendTime DESC, m.id DESC LIMIT ?"
        args += [limit]
        return try MessageRecord.fetchAll(db, sql: sql, arguments: args).map(\.stored)
    }

    /// How many stored messages the search index has not taken in yet.
    static func backlog(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM message WHERE id > (SELECT indexedThrough FROM search_index_state WHERE id = 1)
            """) ?? 0
    }

    /// Adds up to `limit` messages of the backlog to the search index in one
    /// transaction of its own; true when more are waiting.
    static func indexBacklog(_ dbPool: DatabasePool, limit: Int) throws -> Bool {
        // IMMEDIATE: another process with the same store (a CLI command
        // beside the TUI) may index too; the watermark is read under the
        // write lock, so both never add the same rows.
        try dbPool.writeWithoutTransaction { db in
            var more = false
            try db.inTransaction(.immediate) {
                let from = try Int.fetchOne(db, sql: "SELECT indexedThrough FROM search_index_state WHERE id = 1") ?? 0
                guard let upTo = try Int.fetchOne(db, sql: """
                    SELECT MAX(id) FROM (SELECT id FROM message WHERE id > ? ORDER BY id LIMIT ?)
                    """, arguments: [from, max(1, limit)]) else { return .commit }
                try db.execute(sql: """
                    INSERT INTO message_fts(rowid, searchText)
                    SELECT id, searchText FROM message WHERE id > ? AND id <= ? AND searchText <> ''
                    """, arguments: [from, upTo])
                try db.execute(sql: "UPDATE search_index_state SET indexedThrough = ? WHERE id = 1", arguments: [upTo])
                more = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM message WHERE id > ?)", arguments: [upTo]) ?? false
                return .commit
            }
            return more
        }
    }
}
