import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Conversations

    /// Checks the id's form and that the caller is in it; returns the peer.
    func peer(of conversationId: String, caller: Int) throws -> Int {
        guard ConversationIDHelper.parse(conversationId) != nil else {
            throw APIFailure.invalid("conversation id \(conversationId.prefix(80)) is not of the form si_tb_A_tb_B")
        }
        guard let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: caller) else {
            throw APIFailure.forbidden("you are not in this conversation")
        }
        return peer
    }

    /// Creates the conversation and both member rows if missing.
    func ensureConversation(_ id: String, caller: Int, peer: Int, db: Database) throws {
        if try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [id]) != nil { return }
        guard try Self.userInfo(peer, db: db) != nil else { throw APIFailure.notFound("no such user") }
        try db.cachedStatement(sql: """
            INSERT INTO conversation(id, uidLow, uidHigh, maxSeq, createdAt) VALUES (?, ?, ?, 0, ?)
            ON CONFLICT(id) DO NOTHING
            """).execute(arguments: [id, min(caller, peer), max(caller, peer), nowMs()])
        for (uid, hidden) in [(caller, false), (peer, true)] {
            try db.cachedStatement(sql: """
                INSERT INTO member(conversationId, uid, hidden) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
                """).execute(arguments: [id, uid, hidden])
        }
    }

    func member(_ id: String, uid: Int, db: Database) throws -> MemberRow {
        guard let m = try MemberRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM member WHERE conversationId = ? AND uid = ?"), arguments: [id, uid]) else {
            throw APIFailure.notFound("no such conversation")
        }
        return m
    }

    func summary(_ id: String, for uid: Int, db: Database, deleted: Bool? = nil) throws -> ConversationSummary {
        let m = try member(id, uid: uid, db: db)
        let peer = ConversationIDHelper.peerUid(in: id, myUid: uid) ?? 0
        let info = try Self.userInfo(peer, db: db)
        let maxSeq = try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [id]) ?? 0
        let last = try MessageRow.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq > ? AND isControl = 0 ORDER BY seq DESC LIMIT 1
            """), arguments: [id, m.clearedSeq])
        let unread = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM message WHERE conversationId = ? AND seq > ? AND senderUid <> ? AND isControl = 0
            """), arguments: [id, max(m.readSeq, m.clearedSeq), uid]) ?? 0
        let created = try Int.fetchOne(db.cachedStatement(sql: "SELECT createdAt FROM conversation WHERE id = ?"), arguments: [id]) ?? 0
        return ConversationSummary(
            conversationId: id, userId: ConversationIDHelper.imUid(peer), showName: info?.username ?? "",
            faceURL: info?.avatar ?? "", isPinned: m.isPinned, unreadCount: unread, lastMessage: last.map(Self.wire),
            lastMessageTime: last?.sendTime ?? created, maxSeq: maxSeq, readSeq: m.readSeq,
            isOnline: hub.isOnline(peer), isImOpened: m.isImOpened, deleted: deleted)
    }

    public func conversations(caller: Int) throws -> [ConversationSummary] {
        try db.read { db in
            let ids = try String.fetchAll(db.cachedStatement(sql: "SELECT conversationId FROM member WHERE uid = ? AND hidden = 0"), arguments: [caller])
            return try ids.map { try self.summary($0, for: caller, db: db) }
                .sorted { ($0.isPinned ? 1 : 0, $0.lastMessageTime) > ($1.isPinned ? 1 : 0, $1.lastMessageTime) }
        }
    }

    public func startConversation(caller: Int, userId: Int) throws -> ConversationSummary {
        guard userId != caller else { throw APIFailure.invalid("you cannot start a conversation with yourself") }
        guard userId > 0 else { throw APIFailure.invalid("user_id must be positive") }
        let id = ConversationIDHelper.make(myUid: caller, targetUid: userId)
        let (summary, cursor) = try db.write { db -> (ConversationSummary, Int) in
            try self.ensureConversation(id, caller: caller, peer: userId, db: db)
            try db.cachedStatement(sql: "UPDATE member SET hidden = 0 WHERE conversationId = ? AND uid = ?").execute(arguments: [id, caller])
            let s = try self.summary(id, for: caller, db: db)
            return (s, try self.log(.conversation(s), to: caller, db: db))
        }
        notifyCommitted([caller: cursor])
        return summary
    }

    /// Changes the caller's own view of a conversation and logs it to them.
    func updateMember(caller: Int, conversationId: String, deleted: Bool? = nil,
                      _ change: (inout MemberRow, Database) throws -> Void) throws -> ConversationSummary {
        _ = try peer(of: conversationId, caller: caller)
        let (summary, cursor) = try db.write { db -> (ConversationSummary, Int) in
            var m = try self.member(conversationId, uid: caller, db: db)
            try change(&m, db)
            try m.update(db)
            let s = try self.summary(conversationId, for: caller, db: db, deleted: deleted)
            return (s, try self.log(.conversation(s), to: caller, db: db))
        }
        notifyCommitted([caller: cursor])
        return summary
    }

    public func pin(caller: Int, conversationId: String, isPinned: Bool) throws -> ConversationSummary {
        try updateMember(caller: caller, conversationId: conversationId) { m, _ in m.isPinned = isPinned }
    }

    public func markRead(caller: Int, conversationId: String, seq: Int) throws -> ConversationSummary {
        guard seq >= 0 else { throw APIFailure.invalid("seq must not be negative") }
        return try updateMember(caller: caller, conversationId: conversationId) { m, db in
            let maxSeq = try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [m.conversationId]) ?? 0
            m.readSeq = max(m.readSeq, min(seq, maxSeq))
        }
    }

    public func clear(caller: Int, conversationId: String, hide: Bool) throws {
        _ = try updateMember(caller: caller, conversationId: conversationId, deleted: hide ? true : nil) { m, db in
            let maxSeq = try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [m.conversationId]) ?? 0
            m.clearedSeq = maxSeq
            m.readSeq = max(m.readSeq, maxSeq)
            if hide { m.hidden = true }
        }
    }
}
