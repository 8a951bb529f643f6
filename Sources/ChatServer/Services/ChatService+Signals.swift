import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Signals

    public func createSignal(caller: Int, content: String) throws -> Int {
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIFailure.invalid("content must not be empty") }
        guard content.count <= config.maxTextCharacters else { throw APIFailure(.tooLarge, "signal is too long") }
        return try db.write { db in
            try db.cachedStatement(sql: "INSERT INTO signal(ownerUid, content, createdAt) VALUES (?, ?, ?)").execute(arguments: [caller, content, nowMs()])
            return Int(db.lastInsertedRowID)
        }
    }

    public func replySignal(caller: Int, signalId: Int, content: String) throws -> String {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIFailure.invalid("content must not be empty")
        }
        guard content.count <= config.maxTextCharacters else { throw APIFailure(.tooLarge, "reply is too long") }
        return try db.write { db in
            guard let owner = try Int.fetchOne(db.cachedStatement(sql: "SELECT ownerUid FROM signal WHERE id = ?"), arguments: [signalId]) else {
                throw APIFailure.notFound("no such signal")
            }
            guard owner != caller else { throw APIFailure.forbidden("you cannot reply to your own signal") }
            try db.cachedStatement(sql: "INSERT INTO signal_reply(signalId, fromUid, content, createdAt) VALUES (?, ?, ?, ?)").execute(arguments: [signalId, caller, content, nowMs()])
            return String(db.lastInsertedRowID)
        }
    }

    public func inbox(caller: Int) throws -> [SignalInboxItem] {
        try db.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT r.id, r.signalId, s.content AS signalContent, r.content AS replyContent, r.fromUid, r.isImOpened
                FROM signal_reply r JOIN signal s ON s.id = r.signalId
                WHERE s.ownerUid = ? ORDER BY r.id DESC LIMIT 200
                """), arguments: [caller]).compactMap { row in
                guard let from = try Self.userInfo(row["fromUid"], db: db) else { return nil }
                return SignalInboxItem(receiveId: String(row["id"] as Int), signalId: row["signalId"],
                                       signalContent: row["signalContent"], replyContent: row["replyContent"],
                                       from: from, isImOpened: row["isImOpened"])
            }
        }
    }

    public func openIM(caller: Int, receiveId: String) throws {
        guard let id = Int(receiveId) else { throw APIFailure.invalid("receive_id must be a decimal number") }
        let cursor = try db.write { db -> Int? in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT r.fromUid, s.ownerUid FROM signal_reply r JOIN signal s ON s.id = r.signalId WHERE r.id = ?
                """), arguments: [id]) else { throw APIFailure.notFound("no such signal reply") }
            let owner: Int = row["ownerUid"], from: Int = row["fromUid"]
            guard owner == caller else { throw APIFailure.forbidden("that reply is not to your signal") }
            try db.cachedStatement(sql: "UPDATE signal_reply SET isImOpened = 1 WHERE id = ?").execute(arguments: [id])
            let conv = ConversationIDHelper.make(myUid: owner, targetUid: from)
            try self.ensureConversation(conv, caller: owner, peer: from, db: db)
            try db.cachedStatement(sql: "UPDATE member SET isImOpened = 1 WHERE conversationId = ?").execute(arguments: [conv])
            return try self.log(.conversation(try self.summary(conv, for: caller, db: db)), to: caller, db: db)
        }
        if let cursor { notifyCommitted([caller: cursor]) }
    }
}
