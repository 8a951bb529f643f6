import GRDB

struct SQLiteFavoriteRepository: FavoriteRepository {
    let db: Database

    func insert(uid: Int, conversationId: String, conversationName: String, messageId: Int64, message: String,
                objectKeys: [String], createdAt: Int) throws -> Int64 {
        try db.cachedStatement(sql: """
            INSERT INTO favorite(uid, conversationId, conversationName, messageId, message, createdAt) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [uid, conversationId, conversationName, messageId, message, createdAt])
        let id = db.lastInsertedRowID
        for key in Set(objectKeys) {
            try db.cachedStatement(sql: "INSERT INTO favorite_object(favoriteId, uid, objectKey) VALUES (?, ?, ?)")
                .execute(arguments: [id, uid, key])
        }
        return id
    }

    func favorite(uid: Int, messageId: Int64) throws -> FavoriteRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM favorite WHERE uid = ? AND messageId = ?"),
                         arguments: [uid, messageId]).map(Self.row)
    }

    func favorites(uid: Int, before: Int64?, limit: Int) throws -> [FavoriteRow] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM favorite WHERE uid = ? AND id < ? ORDER BY id DESC LIMIT ?"),
                         arguments: [uid, before ?? Int64.max, limit]).map(Self.row)
    }

    func remove(id: Int64, uid: Int) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM favorite_object WHERE favoriteId = ? AND uid = ?").execute(arguments: [id, uid])
        try db.cachedStatement(sql: "DELETE FROM favorite WHERE id = ? AND uid = ?").execute(arguments: [id, uid])
        return db.changesCount > 0
    }

    func removeAll(messageId: Int64) throws {
        try db.cachedStatement(sql: """
            DELETE FROM favorite_object WHERE favoriteId IN (SELECT id FROM favorite WHERE messageId = ?)
            """).execute(arguments: [messageId])
        try db.cachedStatement(sql: "DELETE FROM favorite WHERE messageId = ?").execute(arguments: [messageId])
    }

    static func row(_ r: Row) -> FavoriteRow {
        FavoriteRow(id: r["id"], uid: r["uid"], conversationId: r["conversationId"], conversationName: r["conversationName"],
                    messageId: r["messageId"], message: r["message"], createdAt: r["createdAt"])
    }
}
