import ChatCore
import Foundation

/// Favourites (收藏, PROTOCOL.md v3): each user's copies of messages, kept
/// after leaving the group or deleting the chat, gone when the sender
/// revokes the message; their pictures stay readable by their owner.
extension MessageService {
    /// Keeps a copy of a message the caller can see. Keeping the same one
    /// again answers with the copy already kept.
    func addFavorite(caller: Int, conversationId: String, clientMsgID: String) throws -> Favorite {
        try Self.refuseSecret(conversationId, "favourites")
        let target = try ConversationService.target(of: conversationId, caller: caller)
        return try storage.write { tx -> Favorite in
            let msg = try self.visibleMessage(clientMsgID, in: conversationId, caller: caller, in: tx)
            guard !msg.revoked else { throw APIFailure.invalid("a revoked message cannot be kept") }
            guard Self.kind(of: msg).capabilities.contains(.keepable) else {
                throw APIFailure.invalid("a message of this kind (a notice, a flash image) cannot be kept")
            }
            let (_, content) = IMMessageMapper.decode(contentType: msg.contentType, content: msg.content)
            if let kept = try tx.favorites.favorite(uid: caller, messageId: msg.id) { return try Self.favorite(kept) }
            let name: String
            switch target {
            case .group(let gid): name = try tx.groups.group(gid)?.name ?? ""
            case .single(let peer): name = try tx.users.info(uid: peer)?.username ?? ""
            case .room(let rid): name = try tx.rooms.room(rid)?.name ?? ""
            }
            var copy = msg.wire
            copy.reactions = nil
            let body = try SyncLogService.encode(.message(copy))
            let now = self.config.clock.nowMs()
            let id = try tx.favorites.insert(uid: caller, conversationId: conversationId, conversationName: name,
                                             messageId: msg.id, message: body, objectKeys: MessageKinds.objectKeys(in: content),
                                             createdAt: now)
            return Favorite(favoriteId: Int(id), conversationId: conversationId, conversationName: name, message: copy, createdAt: now)
        }
    }

    /// The caller's favourites, newest first, `limit` (1-100) at a time below `before`.
    func favorites(caller: Int, before: Int?, limit: Int) throws -> FavoriteListResponse {
        guard (1...100).contains(limit) else { throw APIFailure.invalid("limit must be 1-100") }
        return try storage.read { tx in
            let rows = try tx.favorites.favorites(uid: caller, before: before.map(Int64.init), limit: limit + 1)
            return FavoriteListResponse(favorites: try rows.prefix(limit).map(Self.favorite), hasMore: rows.count > limit)
        }
    }

    func removeFavorite(caller: Int, favoriteId: Int) throws {
        guard try storage.write({ tx in try tx.favorites.remove(id: Int64(favoriteId), uid: caller) }) else {
            throw APIFailure.notFound("no favourite \(favoriteId)")
        }
    }

    static func favorite(_ row: FavoriteRow) throws -> Favorite {
        guard case .message(let m) = try JSONDecoder().decode(SyncEvent.self, from: Data(row.message.utf8)) else {
            throw APIFailure.invalid("favourite \(row.id) is damaged")
        }
        return Favorite(favoriteId: Int(row.id), conversationId: row.conversationId, conversationName: row.conversationName,
                        message: m, createdAt: row.createdAt)
    }
}
