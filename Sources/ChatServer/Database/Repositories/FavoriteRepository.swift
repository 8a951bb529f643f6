/// One kept copy of a message (v3 favourites).
struct FavoriteRow: Sendable {
    var id: Int64
    var uid: Int
    var conversationId: String
    var conversationName: String
    var messageId: Int64
    /// The message's wire JSON when it was kept.
    var message: String
    var createdAt: Int
}

/// Each user's favourites, newest first, and the objects they keep readable.
protocol FavoriteRepository {
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
