import ChatCore
import Foundation
import GRDB

/// The `message` table: pages and windows of a chat, our own messages
/// before and after the server acknowledges them, and merging what the
/// server sends over what is held. Every function runs inside a
/// transaction the caller (``ChatStore``) opened.
enum MessageTable {
    // MARK: - Reading

    static func window(_ window: ChatWindow, conversationId: String, db: Database) throws -> MessagePage {
        let cleared = try clearedSeq(conversationId, db: db)
        var acked = try MessageRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message
            WHERE conversationId = ? AND seq IS NOT NULL AND seq > ? AND isControl = 0
            ORDER BY seq DESC LIMIT ?
            """), arguments: [conversationId, cleared, window.count])
        if let from = window.keepFrom, acked.count == window.count, let low = acked.last?.seq, low > from {
            acked = try MessageRecord.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM message
                WHERE conversationId = ? AND seq IS NOT NULL AND seq >= ? AND isControl = 0
                ORDER BY seq DESC
                """), arguments: [conversationId, max(from, cleared + 1)])
        }
        let pending = try MessageRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq IS NULL ORDER BY id ASC
            """), arguments: [conversationId])
        let placed = try placePending(pending, among: acked.reversed(), windowIsAll: acked.count < window.count, db: db)
        return MessagePage(messages: placed.map(\.stored), lowestSeq: acked.last?.seq)
    }

    static func clearedSeq(_ conversationId: String, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT clearedSeq FROM conversation WHERE id = ?"),
                         arguments: [conversationId]) ?? 0
    }

    /// The highest acknowledged seq stored before row `rowId`: where a
    /// failed message was written.
    static func writtenAfterSeq(conversationId: String, rowId: Int64, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT MAX(seq) FROM message WHERE conversationId = ? AND seq IS NOT NULL AND id < ?
            """), arguments: [conversationId, rowId]) ?? 0
    }

    /// Messages the server has not acknowledged, among the acknowledged ones
    /// (oldest first). One still being sent is the newest. One that failed
    /// stays where it was written — after the acknowledged messages stored
    /// before it (by row order, not by clock) — so what arrived since shows
    /// below it; it is left out while that place is older than the window.
    static func placePending(_ pending: [MessageRecord], among acked: [MessageRecord], windowIsAll: Bool,
                             db: Database) throws -> [MessageRecord] {
        guard !pending.isEmpty else { return acked }
        var placed: [(anchor: Int, record: MessageRecord)] = []
        let lowest = acked.first?.seq ?? 0
        for p in pending {
            guard p.status == MessageStatus.failed.rawValue, let rowId = p.id else {
                placed.append((Int.max, p)); continue
            }
            let anchor = try writtenAfterSeq(conversationId: p.conversationId, rowId: rowId, db: db)
            if anchor >= lowest || windowIsAll { placed.append((anchor, p)) }
        }
        placed.sort { $0.anchor < $1.anchor || ($0.anchor == $1.anchor && ($0.record.id ?? 0) < ($1.record.id ?? 0)) }
        var out: [MessageRecord] = []
        out.reserveCapacity(acked.count + placed.count)
        var next = 0
        for (anchor, record) in placed {
            while next < acked.count, (acked[next].seq ?? 0) <= anchor { out.append(acked[next]); next += 1 }
            out.append(record)
        }
        out.append(contentsOf: acked[next...])
        return out
    }

    /// The `limit` visible messages just before `seq`, oldest first.
    static func page(conversationId: String, before seq: Int, limit: Int, db: Database) throws -> MessagePage {
        let rows = try MessageRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message
            WHERE conversationId = ? AND seq IS NOT NULL AND seq > ? AND seq < ? AND isControl = 0
            ORDER BY seq DESC LIMIT ?
            """), arguments: [conversationId, try clearedSeq(conversationId, db: db), seq, limit])
        return MessagePage(messages: rows.reversed().map(\.stored), lowestSeq: rows.last?.seq)
    }

    /// The `limit` visible messages just after `seq`, oldest first: a whole
    /// chat read forwards a page at a time (an export), never all at once.
    static func page(conversationId: String, after seq: Int, limit: Int, db: Database) throws -> MessagePage {
        let from = try max(seq, clearedSeq(conversationId, db: db))
        let rows = try MessageRecord.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message
            WHERE conversationId = ? AND seq IS NOT NULL AND seq > ? AND isControl = 0
            ORDER BY seq ASC LIMIT ?
            """), arguments: [conversationId, from, limit])
        return MessagePage(messages: rows.map(\.stored), lowestSeq: rows.first?.seq)
    }

    static func visibleCount(conversationId: String, from: Int, to: Int, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM message WHERE conversationId = ? AND seq >= ? AND seq <= ? AND isControl = 0
            """), arguments: [conversationId, from, to]) ?? 0
    }

    static func record(clientMsgID: String, db: Database) throws -> MessageRecord? {
        try MessageRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE clientMsgID = ?"), arguments: [clientMsgID])
    }

    static func lowestLocalSeq(conversationId: String, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT MIN(seq) FROM message WHERE conversationId = ? AND seq IS NOT NULL"),
                         arguments: [conversationId]) ?? 0
    }

    // MARK: - Our own messages

    /// The optimistic message and its outbox row, before any network.
    static func insertOutgoing(_ message: StoredMessage, outbox: OutboxItem, me: StoreOwner, db: Database) throws {
        var m = MessageRecord(message)
        m.seq = nil
        m.status = MessageStatus.sending.rawValue
        // Written behind a failed send of its chat: it waits, and says so.
        if try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM outbox WHERE conversationId = ? AND failed = 1)"),
                             arguments: [m.conversationId]) == true {
            m.errorReason = MessageStatus.heldReason
        }
        try m.insert(db, onConflict: .ignore)
        var o = OutboxRecord(outbox)
        try o.insert(db, onConflict: .ignore)
        var conv = try ConversationTable.ensure(id: m.conversationId, me: me, db: db)
        conv.hidden = false
        conv.setLast(m)
        try conv.update(db)
    }

    /// The server's acknowledgement: seq and server id (unless a sync echo
    /// came first), and the outbox row goes.
    static func markSent(clientMsgID: String, response: SendMessageResponse, me: StoreOwner, db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM outbox WHERE clientMsgID = ?").execute(arguments: [clientMsgID])
        guard var m = try record(clientMsgID: clientMsgID, db: db) else { return }
        let before = m
        if m.seq == nil {
            m.seq = response.seq
            m.serverMsgID = response.serverMsgID
            m.sendTime = response.sendTime
        }
        m.status = MessageStatus.success.rawValue
        m.errorReason = nil
        // The sync's echo may have stored it already: then nothing is written.
        try m.updateChanges(db, from: before)
        var ignored = AppliedChanges()
        try ConversationTable.noteNewMessages([m], conversationId: m.conversationId, me: me, db: db, changes: &ignored)
    }

    static func updatePendingContent(clientMsgID: String, content: String, db: Database) throws {
        try db.execute(sql: "UPDATE message SET content = ? WHERE clientMsgID = ? AND seq IS NULL",
                       arguments: [content, clientMsgID])
        try db.execute(sql: "UPDATE outbox SET content = ?, pendingUploads = NULL WHERE clientMsgID = ?",
                       arguments: [content, clientMsgID])
    }

    /// Revokes the message (or puts `snapshot` back); the row as it was.
    static func setRevoked(clientMsgID: String, revoked: Bool, restoring snapshot: StoredMessage?,
                           db: Database) throws -> StoredMessage? {
        guard var m = try record(clientMsgID: clientMsgID, db: db) else { return nil }
        let before = m
        if revoked {
            m.revoked = true
            m.content = ""
            m.searchText = ""
            m.reactions = ""
        } else if let snapshot {
            m = MessageRecord(snapshot)
            m.id = before.id
        }
        try m.update(db)
        try ConversationTable.refreshLast(conversationId: m.conversationId, db: db)
        return before.stored
    }

    static func setReactions(clientMsgID: String, _ reactions: Reactions, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE message SET reactions = ? WHERE clientMsgID = ? AND revoked = 0")
            .execute(arguments: [reactions.jsonText, clientMsgID])
    }

    /// Removes messages deleted for me; their seqs count as held (so the
    /// gap they leave is never asked for); the row's unread count and
    /// preview follow.
    static func deleteForMe(_ clientMsgIDs: [String], in conversationId: String, me: StoreOwner, db: Database,
                            changes: inout AppliedChanges) throws {
        for id in clientMsgIDs {
            guard let m = try record(clientMsgID: id, db: db), m.conversationId == conversationId else { continue }
            try db.cachedStatement(sql: "DELETE FROM message WHERE clientMsgID = ?").execute(arguments: [id])
            if let seq = m.seq { try HistoryTable.addRange(conversationId: conversationId, low: seq, high: seq, db: db) }
            changes.updatedClientMsgIDs.insert(id)
        }
        try ConversationTable.noteNewMessages([], conversationId: conversationId, me: me, db: db, changes: &changes)
    }

    static func setFlashViewed(clientMsgID: String, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE message SET flashViewed = 1 WHERE clientMsgID = ?").execute(arguments: [clientMsgID])
    }

    static func setRevokedByNotice(target: String, db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE message SET revoked = 1, content = '', searchText = '', reactions = '' WHERE clientMsgID = ?
            """).execute(arguments: [target])
    }

    // MARK: - Server data

    /// History from `/chat/messages`; seqs from...to are then known complete.
    static func saveHistory(conversationId: String, messages: [WireMessage], coveringFrom from: Int, to: Int,
                            me: StoreOwner? = nil, db: Database) throws {
        var ignored = AppliedChanges()
        for w in messages where w.conversationId == conversationId {
            if w.contentType == SecretWire.contentType, let me {
                // A secret message is opened once; a page that brings it again keeps what was opened.
                guard let record = try SecretIngest.record(for: w, me: me, db: db, changes: &ignored) else { continue }
                try insertOrMerge(record, db: db)
            } else {
                try insertOrMerge(MessageRecord(wire: w), db: db)
            }
        }
        if from <= to { try HistoryTable.addRange(conversationId: conversationId, low: from, high: to, db: db) }
        if var conv = try ConversationRecord.fetchOne(db, id: conversationId),
           let newest = messages.map(\.seq).max(), newest > conv.maxSeq {
            conv.maxSeq = newest
            try conv.update(db)
            try ConversationTable.refreshLast(conversationId: conversationId, db: db)
        }
    }

    /// Inserts a server message, or merges it into the row with the same
    /// clientMsgID (our optimistic copy, or an older state). Returns true
    /// when the message was not known before.
    @discardableResult
    static func insertOrMerge(_ incoming: MessageRecord, db: Database) throws -> Bool {
        var clearedSeqs: [String: Int] = [:]
        return try insertOrMerge(incoming, db: db, clearedSeqs: &clearedSeqs)
    }

    /// `clearedSeqs` remembers each conversation's clearedSeq across one
    /// sync batch (a batch of a thousand messages is mostly one conversation).
    @discardableResult
    static func insertOrMerge(_ incoming: MessageRecord, db: Database, clearedSeqs: inout [String: Int]) throws -> Bool {
        // Cleared history never comes back.
        let cleared: Int
        if let known = clearedSeqs[incoming.conversationId] {
            cleared = known
        } else {
            cleared = try clearedSeq(incoming.conversationId, db: db)
            clearedSeqs[incoming.conversationId] = cleared
        }
        if let seq = incoming.seq, seq <= cleared { return false }
        if try incoming.insertIfNew(db) { return true }
        guard var existing = try record(clientMsgID: incoming.clientMsgID, db: db) else { return false }
        // A message never moves to another conversation or changes hands
        // (a forged echo, or a peer reusing our clientMsgID).
        guard existing.conversationId == incoming.conversationId, existing.sendID == incoming.sendID else { return false }
        let before = existing
        existing.serverMsgID = incoming.serverMsgID ?? existing.serverMsgID
        if incoming.seq != nil {
            existing.seq = incoming.seq
            existing.sendTime = incoming.sendTime
        }
        existing.revoked = existing.revoked || incoming.revoked
        existing.flashViewed = existing.flashViewed || incoming.flashViewed
        if existing.revoked {
            existing.content = ""
            existing.searchText = ""
            existing.reactions = ""
        } else if incoming.seq != nil {
            // The server's copy is the message as it now is: its words
            // (edited or not) and its reactions.
            existing.content = incoming.content
            existing.searchText = incoming.searchText
            existing.reactions = incoming.reactions
            existing.editedAt = incoming.editedAt ?? existing.editedAt
        }
        if existing.seq != nil {
            existing.status = MessageStatus.success.rawValue
            existing.errorReason = nil
            // A failed send that was delivered after all releases what it held.
            try OutboxTable.noteHeld(after: existing.clientMsgID, held: false, db: db)
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE clientMsgID = ?").execute(arguments: [existing.clientMsgID])
        }
        if existing != before { try existing.update(db) }
        return false
    }
}
