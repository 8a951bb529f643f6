import ChatCore
import Foundation

/// Users as others see them: the caller's profile, search, renaming, and
/// profiles in bulk.
final class UserService: Sendable {
    let storage: any ChatStorage
    let conversations: ConversationService
    let syncLog: SyncLogService
    let notices: CommitNotifier

    init(storage: any ChatStorage, conversations: ConversationService, syncLog: SyncLogService, notices: CommitNotifier) {
        self.storage = storage
        self.conversations = conversations
        self.syncLog = syncLog
        self.notices = notices
    }

    func user(uid: Int) throws -> UserBasicInfo {
        guard let info = try storage.read({ tx in try tx.users.info(uid: uid) }) else { throw APIFailure.notFound("no such user") }
        return info
    }

    func search(query: String, caller: Int) throws -> [UserBasicInfo] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty else { return [] }
        guard q.count <= 64 else { throw APIFailure.invalid("q must be at most 64 characters") }
        return try storage.read { tx in try tx.users.search(prefix: q, excluding: caller, limit: 20) }
    }

    /// A new display name. Everyone with a visible conversation with the
    /// caller gets a `conversation` event carrying the new `showName`
    /// (PROTOCOL.md's sync: "profile"), so their lists follow at once.
    func rename(caller: Int, username raw: String) throws -> UserBasicInfo {
        let username = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(username.count) else { throw APIFailure.invalid("username must be 1-64 characters") }
        let (info, cursors) = try storage.write { tx -> (UserBasicInfo?, [Int: Int]) in
            try tx.users.setUsername(username, uid: caller)
            var cursors: [Int: Int] = [:]
            for (id, uid) in try tx.conversations.visiblePeers(of: caller) {
                cursors[uid] = try self.syncLog.append(.conversation(try self.conversations.summary(id, for: uid, in: tx)),
                                                       to: uid, in: tx)
            }
            return (try tx.users.info(uid: caller), cursors)
        }
        notices.committed(cursors)
        guard let info else { throw APIFailure.notFound("no such user") }
        return info
    }

    /// The profiles of `ids` that exist, in the order asked.
    func profiles(_ ids: [Int]) throws -> [UserBasicInfo] {
        guard ids.count <= 1000 else { throw APIFailure.invalid("at most 1000 user_ids") }
        return try storage.read { tx in try ids.compactMap { try tx.users.info(uid: $0) } }
    }
}
