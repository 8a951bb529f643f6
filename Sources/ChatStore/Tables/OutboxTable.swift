import ChatCore
import Foundation
import GRDB

/// How the send queue stands, for `tongban sync` and `tongban outbox
/// discard` to report.
public struct OutboxState: Sendable, Hashable {
    /// Messages the queue will send, in order (not failed, not held).
    public var queued: Int
    /// Messages waiting behind a failed one of their conversation.
    public var held: Int
    /// Messages the server refused; each holds what its conversation queued after it.
    public var failed: Int
    /// Why the last attempt at the queue's head did not go through, if it did not.
    public var lastError: String?
    public var isEmpty: Bool { queued == 0 && held == 0 && failed == 0 }

    public init(queued: Int, held: Int, failed: Int, lastError: String?) {
        self.queued = queued; self.held = held; self.failed = failed; self.lastError = lastError
    }
}

/// One outbox row and where it stands.
public struct OutboxEntry: Sendable, Hashable {
    public enum State: String, Sendable { case queued, held, failed }
    public var row: OutboxItem
    public var state: State
}

/// The outbox: every message written locally and not yet acknowledged by
/// the server. The rules (docs/send-queue.md):
/// - a row leaves only when the server acknowledges it, or when the user
///   discards a failed one;
/// - a transient failure (no connection, a timeout, 5xx) never fails a
///   message: it stays queued, in order, however many attempts it takes;
/// - a definite refusal (4xx) fails it, and what its conversation queued
///   after it is held until the user retries or discards it: a later
///   message never overtakes an earlier one.
///
/// Every function runs inside a transaction the caller (``ChatStore``) opened.
enum OutboxTable {
    /// What the send queue may send now, oldest first: not failed, and not
    /// behind a failed send of the same conversation.
    static func sendable(_ db: Database) throws -> [OutboxItem] {
        try OutboxRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM outbox o WHERE o.failed = 0 AND NOT EXISTS (
                SELECT 1 FROM outbox f WHERE f.conversationId = o.conversationId AND f.failed = 1 AND f.id < o.id)
            ORDER BY o.id
            """)).map(\.item)
    }

    /// Every row, failed and held ones included, oldest first, each with
    /// where it stands (a row behind a failed one of its conversation is held).
    static func entries(_ db: Database) throws -> [OutboxEntry] {
        let rows = try OutboxRecord.order(Column("id")).fetchAll(db).map(\.item)
        var blocked = Set<String>()
        return rows.map { row in
            if row.failed {
                blocked.insert(row.conversationId)
                return OutboxEntry(row: row, state: .failed)
            }
            return OutboxEntry(row: row, state: blocked.contains(row.conversationId) ? .held : .queued)
        }
    }

    static func state(_ db: Database) throws -> OutboxState {
        let entries = try entries(db)
        let queued = entries.filter { $0.state == .queued }
        return OutboxState(queued: queued.count, held: entries.filter { $0.state == .held }.count,
                           failed: entries.filter { $0.state == .failed }.count, lastError: queued.first?.row.lastError)
    }

    static func mayHaveArrived(clientMsgID: String, db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT mayHaveArrived FROM outbox WHERE clientMsgID = ?"),
                          arguments: [clientMsgID]) ?? false
    }

    static func isHeld(clientMsgID: String, db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT EXISTS (SELECT 1 FROM outbox o JOIN outbox f ON f.conversationId = o.conversationId
                           WHERE o.clientMsgID = ? AND o.failed = 0 AND f.failed = 1 AND f.id < o.id)
            """), arguments: [clientMsgID]) ?? false
    }

    static func noteAttempt(clientMsgID: String, error: String?, mayHaveArrived: Bool, db: Database) throws {
        try db.execute(sql: """
            UPDATE outbox SET attempts = attempts + 1, lastError = ?, mayHaveArrived = (mayHaveArrived OR ?)
            WHERE clientMsgID = ?
            """, arguments: [error, mayHaveArrived, clientMsgID])
        try db.execute(sql: "UPDATE message SET errorReason = ? WHERE clientMsgID = ? AND seq IS NULL AND status = ?",
                       arguments: [error, clientMsgID, MessageStatus.sending.rawValue])
    }

    static func markFailed(clientMsgID: String, reason: String, db: Database) throws {
        try db.execute(sql: "UPDATE outbox SET failed = 1, lastError = ? WHERE clientMsgID = ?",
                       arguments: [reason, clientMsgID])
        try db.execute(sql: "UPDATE message SET status = ?, errorReason = ? WHERE clientMsgID = ? AND seq IS NULL",
                       arguments: [MessageStatus.failed.rawValue, reason, clientMsgID])
        try noteHeld(after: clientMsgID, held: true, db: db)
    }

    static func requeue(clientMsgID: String, outbox: OutboxItem, db: Database) throws {
        try db.execute(sql: "UPDATE message SET status = ?, errorReason = NULL WHERE clientMsgID = ? AND seq IS NULL",
                       arguments: [MessageStatus.sending.rawValue, clientMsgID])
        try noteHeld(after: clientMsgID, held: false, db: db)
        try db.execute(sql: "UPDATE outbox SET failed = 0, attempts = 0, lastError = NULL WHERE clientMsgID = ?",
                       arguments: [clientMsgID])
        if db.changesCount == 0 {
            var o = OutboxRecord(outbox)
            try o.insert(db, onConflict: .ignore)
        }
    }

    /// Removes one of our messages the server never acknowledged, with its
    /// row, releasing what it held; false (nothing changed) otherwise, or
    /// when `onlyFailed` and it has not failed.
    static func discard(clientMsgID: String, onlyFailed: Bool, me: StoreOwner, db: Database) throws -> Bool {
        guard let m = try MessageTable.record(clientMsgID: clientMsgID, db: db),
              m.seq == nil, m.sendID == me.imUid,
              !onlyFailed || m.status == MessageStatus.failed.rawValue else { return false }
        try noteHeld(after: clientMsgID, held: false, db: db)
        try db.execute(sql: "DELETE FROM outbox WHERE clientMsgID = ?", arguments: [clientMsgID])
        try db.execute(sql: "DELETE FROM message WHERE clientMsgID = ?", arguments: [clientMsgID])
        try ConversationTable.refreshLast(conversationId: m.conversationId, db: db)
        return true
    }

    /// Marks (or unmarks) the messages queued after `clientMsgID` in its
    /// conversation as held behind it, unless another failed send still
    /// holds them.
    static func noteHeld(after clientMsgID: String, held: Bool, db: Database) throws {
        guard let row = try OutboxRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM outbox WHERE clientMsgID = ?"),
                                                  arguments: [clientMsgID]), let id = row.id else { return }
        let behind = try String.fetchAll(db.cachedStatement(sql: """
            SELECT o.clientMsgID FROM outbox o WHERE o.conversationId = ? AND o.id > ? AND o.failed = 0
              AND NOT EXISTS (SELECT 1 FROM outbox f WHERE f.conversationId = o.conversationId AND f.failed = 1
                              AND f.id < o.id AND f.id <> ?)
            """), arguments: [row.conversationId, id, id])
        for other in behind {
            try db.execute(sql: "UPDATE message SET errorReason = ? WHERE clientMsgID = ? AND seq IS NULL AND status = ?",
                           arguments: [held ? MessageStatus.heldReason : nil, other, MessageStatus.sending.rawValue])
        }
    }
}
