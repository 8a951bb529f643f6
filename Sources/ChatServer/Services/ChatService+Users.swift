import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Users

    public func user(uid: Int) throws -> UserBasicInfo {
        guard let info = try db.read({ db in try Self.userInfo(uid, db: db) }) else { throw APIFailure.notFound("no such user") }
        return info
    }

    static func userInfo(_ uid: Int, db: Database) throws -> UserBasicInfo? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT uid, username, avatar, account FROM user WHERE uid = ?"), arguments: [uid]).map {
            UserBasicInfo(uid: $0["uid"], username: $0["username"], avatar: $0["avatar"], account: $0["account"])
        }
    }

    public func searchUsers(query: String, caller: Int) throws -> [UserBasicInfo] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty else { return [] }
        guard q.count <= 64 else { throw APIFailure.invalid("q must be at most 64 characters") }
        let escaped = q.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try db.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT uid, username, avatar, account FROM user
                WHERE uid <> ? AND (account LIKE ? ESCAPE '\\' OR username LIKE ? ESCAPE '\\')
                ORDER BY account LIMIT 20
                """), arguments: [caller, escaped, escaped]).map {
                UserBasicInfo(uid: $0["uid"], username: $0["username"], avatar: $0["avatar"], account: $0["account"])
            }
        }
    }

    /// A new display name. Everyone with a visible conversation with the
    /// caller gets a `conversation` event carrying the new `showName`
    /// (PROTOCOL.md's sync: "profile"), so their lists follow at once.
    public func rename(caller: Int, username raw: String) throws -> UserBasicInfo {
        let username = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(username.count) else { throw APIFailure.invalid("username must be 1-64 characters") }
        let (info, cursors) = try db.write { db -> (UserBasicInfo?, [Int: Int]) in
            try db.cachedStatement(sql: "UPDATE user SET username = ? WHERE uid = ?").execute(arguments: [username, caller])
            var cursors: [Int: Int] = [:]
            let peers = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT peer.conversationId, peer.uid FROM member me
                JOIN member peer ON peer.conversationId = me.conversationId AND peer.uid <> me.uid
                WHERE me.uid = ? AND peer.hidden = 0
                """), arguments: [caller])
            for row in peers {
                let (id, uid): (String, Int) = (row[0], row[1])
                cursors[uid] = try self.log(.conversation(try self.summary(id, for: uid, db: db)), to: uid, db: db)
            }
            return (try Self.userInfo(caller, db: db), cursors)
        }
        notifyCommitted(cursors)
        guard let info else { throw APIFailure.notFound("no such user") }
        return info
    }

    public func profiles(_ ids: [Int]) throws -> [UserBasicInfo] {
        guard ids.count <= 1000 else { throw APIFailure.invalid("at most 1000 user_ids") }
        return try db.read { db in try ids.compactMap { try Self.userInfo($0, db: db) } }
    }

    // MARK: - Presence

    /// Users who share a conversation with `uid` (they see its presence).
    func contacts(of uid: Int) -> [Int] {
        (try? db.read { db in
            try Int.fetchAll(db.cachedStatement(sql: """
                SELECT CASE WHEN uidLow = ? THEN uidHigh ELSE uidLow END FROM conversation WHERE uidLow = ? OR uidHigh = ?
                """), arguments: [uid, uid, uid])
        }) ?? []
    }
}
