import GRDB

struct SQLiteMediaRepository: MediaRepository {
    let db: Database

    func insert(objectKey: String, uploader: Int, contentType: String, size: Int, createdAt: Int) throws {
        try db.cachedStatement(sql: "INSERT INTO media(objectKey, uploaderUid, contentType, size, createdAt) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [objectKey, uploader, contentType, size, createdAt])
    }

    func mayRead(_ key: String, uid: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM media m WHERE m.objectKey = ? AND m.destroyed = 0 AND (m.uploaderUid = ?2 OR EXISTS (
                SELECT 1 FROM media_grant g JOIN member mb ON mb.conversationId = g.conversationId
                JOIN message msg ON msg.id = g.messageId
                WHERE g.objectKey = m.objectKey AND mb.uid = ?2
                  AND msg.seq > mb.joinedSeq AND (mb.leftSeq IS NULL OR msg.seq <= mb.leftSeq)) OR EXISTS (
                SELECT 1 FROM media_grant g JOIN room_presence p ON g.conversationId = 'sr_' || p.rid
                WHERE g.objectKey = m.objectKey AND p.uid = ?2) OR EXISTS (
                SELECT 1 FROM favorite_object f WHERE f.objectKey = m.objectKey AND f.uid = ?2))
            """), arguments: [key, uid]) != nil
    }

    func uploader(of key: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT uploaderUid FROM media WHERE objectKey = ? AND destroyed = 0"),
                         arguments: [key])
    }

    func contentType(of key: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT contentType FROM media WHERE objectKey = ? AND destroyed = 0"),
                            arguments: [key])
    }

    func grant(_ key: String, conversationId: String, messageId: Int64) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO media_grant(objectKey, conversationId, messageId) VALUES (?, ?, ?)")
            .execute(arguments: [key, conversationId, messageId])
    }

    func firstMessage(naming key: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(messageId) FROM media_grant WHERE objectKey = ?"),
                           arguments: [key])
    }

    func revokeGrants(messageId: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM media_grant WHERE messageId = ?").execute(arguments: [messageId])
    }

    func markDestroyed(_ key: String) throws {
        try db.cachedStatement(sql: "UPDATE media SET destroyed = 1 WHERE objectKey = ?").execute(arguments: [key])
    }
}
