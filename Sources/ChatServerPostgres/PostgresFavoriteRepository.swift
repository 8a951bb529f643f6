import ChatServer
import PostgresNIO

struct PostgresFavoriteRepository: FavoriteRepository {
    let conn: PostgresLink

    func insert(uid: Int, conversationId: String, conversationName: String, messageId: Int64, message: String,
                objectKeys: [String], createdAt: Int) throws -> Int64 {
        let id = try conn.scalar("""
            INSERT INTO favorite(uid, conversation_id, conversation_name, message_id, message, created_at)
            VALUES (\(uid), \(conversationId), \(conversationName), \(messageId), \(message), \(createdAt)) RETURNING id
            """, as: Int64.self) ?? 0
        let keys = Array(Set(objectKeys))
        if !keys.isEmpty {
            try conn.execute("""
                INSERT INTO favorite_object(favorite_id, uid, object_key) SELECT \(id), \(uid), unnest(\(keys)::TEXT[])
                """)
        }
        return id
    }

    func favorite(uid: Int, messageId: Int64) throws -> FavoriteRow? {
        try conn.query("\(unescaped: Self.columns) WHERE uid = \(uid) AND message_id = \(messageId)").first.map(Self.row)
    }

    func favorites(uid: Int, before: Int64?, limit: Int) throws -> [FavoriteRow] {
        try conn.query("""
            \(unescaped: Self.columns) WHERE uid = \(uid) AND id < \(before ?? Int64.max) ORDER BY id DESC LIMIT \(limit)
            """).map(Self.row)
    }

    func remove(id: Int64, uid: Int) throws -> Bool {
        try conn.execute("DELETE FROM favorite_object WHERE favorite_id = \(id) AND uid = \(uid)")
        return try conn.scalar("DELETE FROM favorite WHERE id = \(id) AND uid = \(uid) RETURNING id", as: Int64.self) != nil
    }

    func removeAll(messageId: Int64) throws {
        try conn.execute("DELETE FROM favorite_object WHERE favorite_id IN (SELECT id FROM favorite WHERE message_id = \(messageId))")
        try conn.execute("DELETE FROM favorite WHERE message_id = \(messageId)")
    }

    static let columns = "SELECT id, uid, conversation_id, conversation_name, message_id, message, created_at FROM favorite"

    static func row(_ row: PostgresRow) throws -> FavoriteRow {
        let r = row.makeRandomAccess()
        return FavoriteRow(id: try r[0].decode(Int64.self), uid: try r[1].decode(Int.self), conversationId: try r[2].decode(String.self),
                           conversationName: try r[3].decode(String.self), messageId: try r[4].decode(Int64.self),
                           message: try r[5].decode(String.self), createdAt: try r[6].decode(Int.self))
    }
}
