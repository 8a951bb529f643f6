/// v3 favourites (收藏): a copy of a message that outlives leaving the group
/// or deleting the chat, until its sender revokes it.
public struct Favorite: Codable, Sendable, Hashable {
    public var favoriteId: Int
    public var conversationId: String
    /// The chat's name as the owner saw it when they kept it.
    public var conversationName: String
    public var message: WireMessage
    /// Unix milliseconds.
    public var createdAt: Int
    public init(favoriteId: Int, conversationId: String, conversationName: String, message: WireMessage, createdAt: Int) {
        self.favoriteId = favoriteId; self.conversationId = conversationId; self.conversationName = conversationName
        self.message = message; self.createdAt = createdAt
    }
}

public struct FavoriteListResponse: Codable, Sendable, Hashable {
    public var favorites: [Favorite]
    public var hasMore: Bool
    public init(favorites: [Favorite], hasMore: Bool) { self.favorites = favorites; self.hasMore = hasMore }
}

/// `POST /favorite/add`.
public struct FavoriteAddRequest: Codable, Sendable {
    public var conversationId: String
    public var clientMsgId: String
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", clientMsgId = "client_msg_id" }
    public init(conversationId: String, clientMsgId: String) { self.conversationId = conversationId; self.clientMsgId = clientMsgId }
}

/// `POST /favorite/remove`.
public struct FavoriteRemoveRequest: Codable, Sendable {
    public var favoriteId: Int
    enum CodingKeys: String, CodingKey { case favoriteId = "favorite_id" }
    public init(favoriteId: Int) { self.favoriteId = favoriteId }
}
