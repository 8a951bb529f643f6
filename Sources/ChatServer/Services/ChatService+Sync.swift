import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Sync

    public func currentCursor(uid: Int) throws -> Int {
        try db.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE uid = ?"), arguments: [uid]) ?? 0
        }
    }

    /// One page of the caller's event log, as the `/chat/sync` body. The
    /// events go out as the JSON the server stored when it logged them,
    /// spliced in as they are (decoding and encoding every event again was a
    /// tenth of the server's CPU while a client pulled a flood); a stored
    /// body that is not a well-formed JSON object is left out, as one that
    /// failed to decode was, so a damaged row costs that event, not the page.
    public func syncPage(caller: Int, since: Int, limit: Int) throws -> [UInt8] {
        guard since >= 0 else { throw APIFailure.invalid("since must not be negative") }
        guard (1...1000).contains(limit) else { throw APIFailure.invalid("limit must be 1-1000") }
        return try db.read { db in
            let floor = try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'event_floor'")) ?? 0
            if since > 0 && since < floor {
                throw APIFailure(.cursorExpired, "cursor \(since) is older than the kept log; reload conversations")
            }
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT cursor, body FROM event WHERE uid = ? AND cursor > ? ORDER BY cursor LIMIT ?
                """), arguments: [caller, since, limit + 1])
            var out: [UInt8] = []
            out.reserveCapacity(64 + 320 * min(limit, 64))
            out.append(contentsOf: #"{"events":["#.utf8)
            var cursor = since, count = 0, hasMore = false, skipped = 0, written = 0
            while let row = try rows.next() {
                if count == limit { hasMore = true; break }
                count += 1
                cursor = row[0]
                let body: String = row[1]
                guard JSONSyntax.isObject(body) else { skipped += 1; continue }
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: body.utf8)
                written += 1
            }
            if skipped > 0 {
                logger.warning("sync for user \(caller): left out \(skipped) stored event(s) that are not well-formed JSON")
            }
            out.append(contentsOf: #"],"cursor":"#.utf8)
            JSONText.appendInt(cursor, to: &out)
            out.append(contentsOf: (hasMore ? #","hasMore":true}"# : #","hasMore":false}"#).utf8)
            return out
        }
    }

    /// Drops sync events older than the retention; later cursors below the
    /// newest dropped one get 410.
    public func pruneSyncLog(olderThanMs cutoff: Int? = nil) throws {
        let limit = cutoff ?? (nowMs() - config.syncRetentionSeconds * 1000)
        try db.write { db in
            guard let newest = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE createdAt < ?"), arguments: [limit]) else { return }
            try db.cachedStatement(sql: "DELETE FROM event WHERE cursor <= ?").execute(arguments: [newest])
            try db.cachedStatement(sql: """
                INSERT INTO meta(key, value) VALUES ('event_floor', ?)
                ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                """).execute(arguments: [newest + 1])
        }
    }
}
