/// One kept copy of a message (v3 favourites).
package struct FavoriteRow: Sendable {
    package var id: Int64
    package var uid: Int
    package var conversationId: String
    package var conversationName: String
    package var messageId: Int64
    /// The message's wire JSON when it was kept.
    package var message: String
    package var createdAt: Int

    package init(id: Int64, uid: Int, conversationId: String, conversationName: String, messageId: Int64, message: String, createdAt: Int) {
        self.id = id; self.uid = uid; self.conversationId = conversationId; self.conversationName = conversationName; self.messageId = messageId; self.message = message; self.createdAt = createdAt
    }
}

/// Each user's favourites, newest first, and the objects they keep readable.
package protocol FavoriteRepository {
    /// Stores a copy; `objectKeys` stay readable by `uid` while it exists.
    func insert(uid: Int, conversationId: String, conversationName: String, messageId: Int64, message: String,
                objectKeys: [String], createdAt: Int) throws -> Int64
    func favorite(uid: Int, messageId: Int64) throws -> FavoriteRow?
    /// Up to `limit` of `uid`'s favourites with an id below `before`, newest first.
    func favorites(uid: Int, before: Int64?, limit: Int) throws -> [FavoriteRow]
    /// Removes `uid`'s favourite `id`; false when there is none.
    func remove(id: Int64, uid: Int) throws -> Bool
    /// Removes every favourite of a message (its sender revoked it).
    func removeAll(messageId: Int64) throws
}
