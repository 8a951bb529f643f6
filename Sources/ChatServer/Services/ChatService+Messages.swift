import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Messages

    static func wire(_ r: MessageRow) -> WireMessage {
        WireMessage(serverMsgID: r.serverMsgID, clientMsgID: r.clientMsgID, conversationId: r.conversationId, seq: r.seq,
                    sendID: r.sendID, recvID: r.recvID, contentType: r.contentType, content: r.content,
                    sendTime: r.sendTime, revoked: r.revoked, flashViewed: r.flashViewed)
    }

    /// An event as stored in the log (message events written directly: one per send).
    static func encodeEvent(_ event: SyncEvent) throws -> String {
        try event.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    /// Appends an event to a user's log; returns its cursor.
    @discardableResult
    func log(_ event: SyncEvent, to uid: Int, messageId: Int64? = nil, db: Database) throws -> Int {
        try log(body: Self.encodeEvent(event), to: uid, messageId: messageId, db: db)
    }

    /// Appends an already encoded event (one encoding serves both members).
    func log(body: String, to uid: Int, messageId: Int64?, db: Database) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO event(uid, messageId, body, createdAt) VALUES (?, ?, ?, ?)")
            .execute(arguments: [uid, messageId, body, nowMs()])
        return Int(db.lastInsertedRowID)
    }

    /// Inserts a message with the next seq; logs it to both members.
    func append(conversationId: String, sender: Int, peer: Int, clientMsgID: String, contentType: Int, content: String,
                isControl: Bool, db: Database, cursors: inout [Int: Int], sendTime: Int? = nil,
                serverMsgID: String? = nil) throws -> MessageRow {
        // One statement takes the next seq and hands it back (RETURNING, SQLite ≥ 3.35);
        // none comes back the first time two people talk.
        let nextSeq = try db.cachedStatement(sql: "UPDATE conversation SET maxSeq = maxSeq + 1 WHERE id = ? RETURNING maxSeq")
        var seq = try Int.fetchOne(nextSeq, arguments: [conversationId])
        if seq == nil {
            try ensureConversation(conversationId, caller: sender, peer: peer, db: db)
            seq = try Int.fetchOne(nextSeq, arguments: [conversationId])
        }
        guard let seq else { throw APIFailure.notFound("no such conversation") }
        var row = MessageRow(id: 0, serverMsgID: serverMsgID ?? Self.newServerMsgID(), clientMsgID: clientMsgID,
                             senderUid: sender, conversationId: conversationId, seq: seq,
                             sendID: ConversationIDHelper.imUid(sender), recvID: ConversationIDHelper.imUid(peer),
                             contentType: contentType, content: content, sendTime: sendTime ?? nowMs(), isControl: isControl)
        try db.cachedStatement(sql: """
            INSERT INTO message(serverMsgID, clientMsgID, senderUid, conversationId, seq, sendID, recvID, contentType,
                                content, sendTime, isControl)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [row.serverMsgID, row.clientMsgID, row.senderUid, row.conversationId, row.seq,
                                     row.sendID, row.recvID, row.contentType, row.content, row.sendTime, row.isControl])
        row.id = db.lastInsertedRowID
        // One statement for both members: a new message shows a deleted
        // conversation again, and sending reads what came before.
        try db.cachedStatement(sql: """
            UPDATE member SET hidden = hidden AND clearedSeq >= ?1,
                              readSeq = CASE WHEN uid = ?2 AND ?3 THEN MAX(readSeq, ?1) ELSE readSeq END
            WHERE conversationId = ?4
            """).execute(arguments: [seq, sender, !isControl, conversationId])
        // Both members' log entries in one statement; one encoding serves both.
        let body = try Self.encodeEvent(.message(Self.wire(row)))
        let now = nowMs()
        try db.cachedStatement(sql: """
            INSERT INTO event(uid, messageId, body, createdAt) VALUES (?1, ?3, ?4, ?5), (?2, ?3, ?4, ?5)
            """).execute(arguments: [sender, peer, row.id, body, now])
        // One statement's rows take consecutive cursors, in VALUES order
        // (RETURNING would cost a third of the statement again).
        let last = Int(db.lastInsertedRowID)
        cursors[sender] = last - 1
        cursors[peer] = last
        return row
    }

    /// Message ids in time order (12 hex digits of milliseconds, then a
    /// counter and this process's random nonce): new rows land at the end of
    /// the id index instead of on a random page of it. Milliseconds and the
    /// counter keep one process's ids apart, the nonce two processes' (a
    /// restart within the same millisecond). Ids are not secrets: every
    /// endpoint checks membership. The nonce is drawn once, because a
    /// random draw per id was a `getrandom` system call on every send.
    static func newServerMsgID() -> String {
        let n = messageIDCounter.add(1, ordering: .relaxed).newValue
        return "m_" + hex(UInt64(ServerClock.system.nowMs()), 12) + hex(n & 0xFFFF_FFFF, 8) + messageIDNonce
    }
    private static let messageIDCounter = Atomic<UInt64>(0)
    private static let messageIDNonce = hex(UInt64.random(in: 0...UInt64(UInt32.max)), 8)
    private static func hex(_ v: UInt64, _ width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Replaces every logged copy of a message with its current state, so a
    /// revoked text is not kept in anyone's sync log.
    func scrubLog(messageId: Int64, db: Database) throws {
        guard let row = try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [messageId]) else { return }
        let encoder = JSONEncoder()
        let asMessage = try Self.encodeEvent(.message(Self.wire(row)))
        let asUpdate = try Self.encodeEvent(.messageUpdate(Self.wire(row)))
        // Inside a JSON string a quote is escaped, so this pattern only matches the event's own key.
        try db.cachedStatement(sql: """
            UPDATE event SET body = CASE WHEN body LIKE '%"kind":"message_update"%' THEN ? ELSE ? END
            WHERE messageId = ?
            """).execute(arguments: [asUpdate, asMessage, messageId])
        // Conversation summaries logged earlier may carry it as lastMessage.
        let needle = "\"clientMsgID\":" + String(decoding: try encoder.encode(row.clientMsgID), as: UTF8.self)
        let summaries = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT cursor, body FROM event WHERE messageId IS NULL AND instr(body, ?) > 0
            """), arguments: [needle])
        for s in summaries {
            guard case .conversation(var summary)? = try? JSONDecoder().decode(SyncEvent.self, from: Data((s["body"] as String).utf8)),
                  summary.lastMessage?.clientMsgID == row.clientMsgID, summary.conversationId == row.conversationId else { continue }
            summary.lastMessage = Self.wire(row)
            let body = String(decoding: try encoder.encode(SyncEvent.conversation(summary)), as: UTF8.self)
            try db.cachedStatement(sql: "UPDATE event SET body = ? WHERE cursor = ?").execute(arguments: [body, s["cursor"] as Int])
        }
    }

    /// A send that passed validation and waits for its write.
    struct SendJob: Sendable {
        let caller: Int
        let peer: Int
        let request: SendMessageRequest
        let payload: MessageContent
        /// Made before the write: the writer's transaction does only what must be serial.
        let serverMsgID: String
    }

    /// What a committed send leaves to do after the commit.
    struct SendWrite: Sendable {
        let row: MessageRow
        let cursors: [Int: Int]
        let isNew: Bool
        let destroyedKey: String?
    }

    public func revoke(caller: Int, conversationId: String, clientMsgID: String) throws -> Int {
        let peer = try peer(of: conversationId, caller: caller)
        let (seq, cursors) = try db.write { db -> (Int, [Int: Int]) in
            _ = try self.member(conversationId, uid: caller, db: db)
            guard let msg = try MessageRow.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM message WHERE conversationId = ? AND clientMsgID = ? AND isControl = 0
                """), arguments: [conversationId, clientMsgID]) else {
                throw APIFailure.notFound("no message \(clientMsgID.prefix(64)) in this conversation")
            }
            guard msg.senderUid == caller else { throw APIFailure.forbidden("only the sender can revoke a message") }
            if msg.revoked { return (msg.noticeSeq ?? msg.seq, [:]) }
            let ageMs = nowMs() - msg.sendTime
            guard ageMs <= self.config.revokeWindowSeconds * 1000 else {
                throw APIFailure(.revokeWindowPassed, "messages can be revoked for \(self.config.revokeWindowSeconds) seconds after sending")
            }
            var cursors: [Int: Int] = [:]
            let notice = try self.append(
                conversationId: conversationId, sender: caller, peer: peer, clientMsgID: "revoke:" + msg.clientMsgID,
                contentType: ContentType.revokeNotice, content: Self.json(["clientMsgID": msg.clientMsgID]),
                isControl: true, db: db, cursors: &cursors)
            try db.cachedStatement(sql: "UPDATE message SET revoked = 1, content = '', noticeSeq = ? WHERE id = ?").execute(arguments: [notice.seq, msg.id])
            // Only the uploader can still read what was in a revoked message.
            try db.cachedStatement(sql: "DELETE FROM media_grant WHERE messageId = ?").execute(arguments: [msg.id])
            try self.scrubLog(messageId: msg.id, db: db)
            let updated = try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [msg.id])!
            for uid in [caller, peer] {
                cursors[uid] = try self.log(.messageUpdate(Self.wire(updated)), to: uid, messageId: msg.id, db: db)
            }
            return (notice.seq, cursors)
        }
        notifyCommitted(cursors)
        return seq
    }

    static func json(_ dict: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: dict, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    public func history(caller: Int, conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) throws -> HistoryResponse {
        _ = try peer(of: conversationId, caller: caller)
        guard (1...100).contains(limit) else { throw APIFailure.invalid("limit must be 1-100") }
        return try db.read { db in
            let m = try self.member(conversationId, uid: caller, db: db)
            let floor = m.clearedSeq
            if let after = afterSeq {
                let rows = try MessageRow.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM message WHERE conversationId = ? AND seq > ? ORDER BY seq ASC LIMIT ?
                    """), arguments: [conversationId, max(after, floor), limit + 1])
                return HistoryResponse(messages: rows.prefix(limit).map(Self.wire), hasMore: rows.count > limit)
            }
            let rows = try MessageRow.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM message WHERE conversationId = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?
                """), arguments: [conversationId, floor, beforeSeq ?? Int.max, limit + 1])
            return HistoryResponse(messages: rows.prefix(limit).reversed().map(Self.wire), hasMore: rows.count > limit)
        }
    }
}
