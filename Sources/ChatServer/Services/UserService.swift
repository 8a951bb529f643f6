import ChatCore
import Foundation

/// Users as others see them: the caller's profile, search, renaming, and
/// profiles in bulk.
final class UserService: Sendable {
    let storage: any ChatStorage
    let conversations: ConversationService
    let media: MediaService
    let syncLog: SyncLogService
    let notices: CommitNotifier

    init(storage: any ChatStorage, conversations: ConversationService, media: MediaService, syncLog: SyncLogService,
         notices: CommitNotifier) {
        self.storage = storage
        self.media = media
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

    /// Changes the caller's name, signature or picture (those given).
    /// Everyone with a visible conversation with the caller gets a
    /// `conversation` event carrying the new `showName` (PROTOCOL.md's sync:
    /// "profile"), and every friend a `contact` event, so their lists follow at once.
    func updateProfile(caller: Int, _ r: UpdateProfileRequest) throws -> UserBasicInfo {
        let username = r.username?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let username, !(1...64).contains(username.count) { throw APIFailure.invalid("username must be 1-64 characters") }
        let signature = r.signature?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let signature, signature.count > 100 { throw APIFailure.invalid("signature must be at most 100 characters") }
        guard username != nil || signature != nil || r.avatar != nil else {
            throw APIFailure.invalid("give at least one of username, signature, avatar")
        }
        let (info, cursors) = try storage.write { tx -> (UserBasicInfo?, [Int: Int]) in
            if let username { try tx.users.setUsername(username, uid: caller) }
            if let signature { try tx.users.setSignature(signature, uid: caller) }
            if let avatar = r.avatar { try tx.users.setAvatar(try self.media.checkAvatar(avatar, caller: caller, in: tx), uid: caller) }
            guard let info = try tx.users.info(uid: caller) else { return (nil, [:]) }
            var cursors: [Int: Int] = [:]
            for (id, uid) in try tx.conversations.visiblePeers(of: caller) {
                cursors[uid] = try self.syncLog.append(.conversation(try self.conversations.summary(id, for: uid, in: tx)),
                                                       to: uid, in: tx)
            }
            for friend in try tx.people.friends(of: caller) {
                let theirs = try tx.people.friend(friend.peerUid, caller)
                let contact = Contact(user: info, remark: theirs?.remark ?? "", since: theirs?.since ?? friend.since)
                cursors[friend.peerUid] = try self.syncLog.append(.contact(contact, removed: false), to: friend.peerUid, in: tx)
            }
            return (info, cursors)
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
