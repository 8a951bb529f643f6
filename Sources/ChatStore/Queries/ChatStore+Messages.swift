import ChatCore
import Foundation
import GRDB

/// One page of messages, oldest first, plus whether older ones exist locally.
public struct MessagePage: Sendable, Hashable {
    public var messages: [StoredMessage]
    /// The lowest seq on the page (nil for an empty page or only unsent rows).
    public var lowestSeq: Int?
    public init(messages: [StoredMessage], lowestSeq: Int?) {
        self.messages = messages; self.lowestSeq = lowestSeq
    }
}

/// What applying a batch of events changed, for the view models.
public struct AppliedChanges: Sendable, Hashable {
    public var conversationIds: Set<String> = []
    /// New messages from the peer (not ours, not control), by conversation.
    public var incoming: [String: Int] = [:]
    public var updatedClientMsgIDs: Set<String> = []
    /// Groups whose info changed.
    public var groupIds: Set<Int> = []
    /// Conversations with a new message that mentions me (or everyone).
    public var mentioned: Set<String> = []
    /// The newest new incoming message per conversation (what a notification shows).
    public var newestIncoming: [String: WireMessage] = [:]
    public init() {}

    /// Adds a later batch's changes (its newest incoming messages win).
    public mutating func merge(_ later: AppliedChanges) {
        conversationIds.formUnion(later.conversationIds)
        incoming.merge(later.incoming, uniquingKeysWith: +)
        updatedClientMsgIDs.formUnion(later.updatedClientMsgIDs)
        groupIds.formUnion(later.groupIds)
        mentioned.formUnion(later.mentioned)
        newestIncoming.merge(later.newestIncoming, uniquingKeysWith: { $1 })
    }
}

extension ChatStore {
    // MARK: - Reading

    /// The newest `limit` visible messages of a conversation, oldest first,
    /// followed by our own messages the server has not acknowledged yet.
    public func newestPage(conversationId: String, limit: Int = 40) throws -> MessagePage {
        try window(ChatWindow(count: limit), conversationId: conversationId)
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
    public func page(conversationId: String, before seq: Int, limit: Int = 40) throws -> MessagePage {
        try dbPool.read { db in
            let cleared = try Int.fetchOne(db.cachedStatement(sql: "SELECT clearedSeq FROM conversation WHERE id = ?"),
                                           arguments: [conversationId]) ?? 0
            let rows = try MessageRecord.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM message
                WHERE conversationId = ? AND seq IS NOT NULL AND seq > ? AND seq < ? AND isControl = 0
                ORDER BY seq DESC LIMIT ?
                """), arguments: [conversationId, cleared, seq, limit])
            return MessagePage(messages: rows.reversed().map(\.stored), lowestSeq: rows.last?.seq)
        }
    }

    /// Visible messages with seq in from...to (for jumping to a search hit).
    public func visibleCount(conversationId: String, from: Int, to: Int) throws -> Int {
        try dbPool.read { db in
            try Int.fetchOne(db.cachedStatement(sql: """
                SELECT COUNT(*) FROM message WHERE conversationId = ? AND seq >= ? AND seq <= ? AND isControl = 0
                """), arguments: [conversationId, from, to]) ?? 0
        }
    }

    public func message(clientMsgID: String) throws -> StoredMessage? {
        try dbPool.read { db in
            try MessageRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE clientMsgID = ?"), arguments: [clientMsgID])?.stored
        }
    }

    /// The lowest seq of a conversation held locally, 0 when none.
    public func lowestLocalSeq(conversationId: String) throws -> Int {
        try dbPool.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT MIN(seq) FROM message WHERE conversationId = ? AND seq IS NOT NULL"),
                             arguments: [conversationId]) ?? 0
        }
    }

    // MARK: - Writing our own messages

    /// Writes an optimistic outgoing message and its outbox row in one
    /// transaction, before any network is touched (seed §四).
    public func insertOutgoing(_ message: StoredMessage, outbox: OutboxItem) throws {
        try dbPool.write { db in
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
            var conv = try self.ensureConversation(id: m.conversationId, nickname: "", avatar: "", db: db)
            conv.hidden = false
            conv.setLast(m)
            try conv.update(db)
        }
    }

    /// The server acknowledged a send: the message gets its seq and server id,
    /// its outbox row goes. A sync event that already delivered the echo wins.
    public func markSent(clientMsgID: String, response: SendMessageResponse) throws {
        try dbPool.write { db in
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE clientMsgID = ?").execute(arguments: [clientMsgID])
            guard var m = try MessageRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE clientMsgID = ?"), arguments: [clientMsgID]) else { return }
            if m.seq == nil {
                m.seq = response.seq
                m.serverMsgID = response.serverMsgID
                m.sendTime = response.sendTime
            }
            m.status = MessageStatus.success.rawValue
            m.errorReason = nil
            try m.update(db)
            var ignored = AppliedChanges()
            try self.noteNewMessage(m, db: db, changes: &ignored)
        }
    }

    /// Updates an optimistic message's content (e.g. after its upload).
    public func updatePendingContent(clientMsgID: String, content: String) throws {
        try dbPool.write { db in
            try db.execute(sql: "UPDATE message SET content = ? WHERE clientMsgID = ? AND seq IS NULL",
                           arguments: [content, clientMsgID])
            try db.execute(sql: "UPDATE outbox SET content = ?, pendingUploads = NULL WHERE clientMsgID = ?",
                           arguments: [content, clientMsgID])
        }
    }

    /// Local revoke (optimistic, seed §六): returns the row as it was, for rollback.
    @discardableResult
    public func setRevoked(clientMsgID: String, revoked: Bool, restoring snapshot: StoredMessage? = nil) throws -> StoredMessage? {
        try dbPool.write { db in
            guard var m = try MessageRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE clientMsgID = ?"), arguments: [clientMsgID]) else { return nil }
            let before = m
            if revoked {
                m.revoked = true
                m.content = ""
                m.searchText = ""
            } else if let snapshot {
                m = MessageRecord(snapshot)
                m.id = before.id
            }
            try m.update(db)
            try self.refreshLast(conversationId: m.conversationId, db: db)
            return before.stored
        }
    }

    public func setFlashViewed(clientMsgID: String) throws {
        try dbPool.write { db in
            try db.cachedStatement(sql: "UPDATE message SET flashViewed = 1 WHERE clientMsgID = ?").execute(arguments: [clientMsgID])
        }
    }

    // MARK: - Server data

    /// Stores history fetched from `/chat/messages` and records that the seqs
    /// from `from` to `to` are now known complete.
    public func saveHistory(conversationId: String, messages: [WireMessage], coveringFrom from: Int, to: Int) throws {
        try dbPool.write { db in
            for w in messages where w.conversationId == conversationId {
                try self.insertOrMerge(MessageRecord(wire: w), db: db)
            }
            if from <= to { try self.addRange(conversationId: conversationId, low: from, high: to, db: db) }
            if var conv = try ConversationRecord.fetchOne(db, id: conversationId),
               let newest = messages.map(\.seq).max(), newest > conv.maxSeq {
                conv.maxSeq = newest
                try conv.update(db)
                try self.refreshLast(conversationId: conversationId, db: db)
            }
        }
    }

    /// Applies one `/chat/sync` batch and the new cursor in one transaction.
    @discardableResult
    public func apply(events: [SyncEvent], cursor: Int) throws -> AppliedChanges {
        try dbPool.write { db in
            var changes = AppliedChanges()
            // Conversation bookkeeping is done once per conversation per batch.
            var touched: [String: [MessageRecord]] = [:]
            var clearedSeqs: [String: Int] = [:]
            for event in events {
                switch event {
                case .message(let w):
                    guard self.isMine(w.conversationId) else { continue }
                    let record = MessageRecord(wire: w)
                    let isNew = try self.insertOrMerge(record, db: db, clearedSeqs: &clearedSeqs)
                    if isNew && !record.isControl && record.sendID != self.myImUid && !ContentType.isGroupNotice(w.contentType) {
                        changes.incoming[w.conversationId, default: 0] += 1
                        changes.newestIncoming[w.conversationId] = w
                        if w.contentType == ContentType.mention, MentionPayload(jsonText: w.content)?.mentions(self.myImUid) == true {
                            changes.mentioned.insert(w.conversationId)
                        }
                    }
                    if w.contentType == ContentType.revokeNotice, let target = Self.revokedTarget(w.content) {
                        try db.cachedStatement(sql: """
                            UPDATE message SET revoked = 1, content = '', searchText = '' WHERE clientMsgID = ?
                            """).execute(arguments: [target])
                        changes.updatedClientMsgIDs.insert(target)
                    }
                    if w.contentType == ContentType.custom,
                       let target = IMMessageMapper.decode(contentType: w.contentType, content: w.content).1.flashViewedTarget {
                        try db.cachedStatement(sql: "UPDATE message SET flashViewed = 1 WHERE clientMsgID = ?").execute(arguments: [target])
                        changes.updatedClientMsgIDs.insert(target)
                    }
                    touched[w.conversationId, default: []].append(record)
                case .messageUpdate(let w):
                    guard self.isMine(w.conversationId) else { continue }
                    try self.insertOrMerge(MessageRecord(wire: w), db: db, clearedSeqs: &clearedSeqs)
                    changes.updatedClientMsgIDs.insert(w.clientMsgID)
                    if touched[w.conversationId] == nil { touched[w.conversationId] = [] }
                case .conversation(let s):
                    // Summaries interleave with messages: settle pending
                    // bookkeeping first so the summary's view wins.
                    if let pending = touched.removeValue(forKey: s.conversationId) {
                        try self.noteNewMessages(pending, conversationId: s.conversationId, db: db, changes: &changes)
                    }
                    try self.applySummary(s, db: db)
                    clearedSeqs[s.conversationId] = nil
                    changes.conversationIds.insert(s.conversationId)
                case .group(let info):
                    try self.applyGroup(info, db: db)
                    changes.conversationIds.insert(info.conversationId)
                    changes.groupIds.insert(info.groupId)
                }
            }
            for (id, records) in touched {
                try self.noteNewMessages(records, conversationId: id, db: db, changes: &changes)
            }
            try self.setCursor(cursor, db: db)
            return changes
        }
    }

    static func revokedTarget(_ content: String) -> String? {
        guard let data = content.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return obj["clientMsgID"] as? String
    }

    /// Inserts a server message, or merges it into the row with the same
    /// clientMsgID (our optimistic copy, or an older state). Returns true
    /// when the message was not known before.
    @discardableResult
    func insertOrMerge(_ incoming: MessageRecord, db: Database) throws -> Bool {
        var clearedSeqs: [String: Int] = [:]
        return try insertOrMerge(incoming, db: db, clearedSeqs: &clearedSeqs)
    }

    /// `clearedSeqs` remembers each conversation's clearedSeq across one
    /// sync batch (a batch of a thousand messages is mostly one conversation).
    @discardableResult
    func insertOrMerge(_ incoming: MessageRecord, db: Database, clearedSeqs: inout [String: Int]) throws -> Bool {
        // Cleared history never comes back.
        let cleared: Int
        if let known = clearedSeqs[incoming.conversationId] {
            cleared = known
        } else {
            cleared = try Int.fetchOne(db.cachedStatement(sql: "SELECT clearedSeq FROM conversation WHERE id = ?"),
                                       arguments: [incoming.conversationId]) ?? 0
            clearedSeqs[incoming.conversationId] = cleared
        }
        if let seq = incoming.seq, seq <= cleared { return false }
        if try incoming.insertIfNew(db) { return true }
        guard var existing = try MessageRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM message WHERE clientMsgID = ?"), arguments: [incoming.clientMsgID])
        else { return false }
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
        } else if incoming.seq != nil {
            existing.content = incoming.content
            existing.searchText = incoming.searchText
        }
        if existing.seq != nil {
            existing.status = MessageStatus.success.rawValue
            existing.errorReason = nil
            // A failed send that was delivered after all releases what it held.
            try noteHeld(after: existing.clientMsgID, held: false, db: db)
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE clientMsgID = ?").execute(arguments: [existing.clientMsgID])
        }
        if existing != before { try existing.update(db) }
        return false
    }

    func noteNewMessage(_ m: MessageRecord, db: Database, changes: inout AppliedChanges) throws {
        try noteNewMessages([m], conversationId: m.conversationId, db: db, changes: &changes)
    }

    /// Updates a conversation for messages now stored: shows it again if
    /// hidden, moves maxSeq and readSeq (our own message means we read what
    /// came before), recounts unread and the preview.
    func noteNewMessages(_ messages: [MessageRecord], conversationId: String, db: Database,
                         changes: inout AppliedChanges) throws {
        var conv = try ensureConversation(id: conversationId, nickname: "", avatar: "", db: db)
        for m in messages {
            let seq = m.seq ?? 0
            if seq > 0, seq <= conv.clearedSeq { continue }
            if seq > conv.maxSeq { conv.maxSeq = seq }
            if !m.isControl || m.contentType == ContentType.revokeNotice { conv.hidden = false }
            if m.sendID == myImUid, seq > conv.readSeq, !m.isControl { conv.readSeq = seq }
            if m.contentType == ContentType.mention, seq > conv.mentionSeq, m.sendID != myImUid,
               MentionPayload(jsonText: m.content)?.mentions(myImUid) == true {
                conv.mentionSeq = seq
            }
        }
        conv.unreadCount = try countUnread(conversationId: conversationId, readSeq: conv.readSeq, db: db)
        try conv.update(db)
        try refreshLast(conversationId: conversationId, db: db)
        changes.conversationIds.insert(conversationId)
    }

    /// Recomputes the conversation's preview from its newest visible message.
    func refreshLast(conversationId: String, db: Database) throws {
        guard var conv = try ConversationRecord.fetchOne(db, id: conversationId) else { return }
        // A message still being sent is the newest; otherwise the highest
        // seq, unless a failed send was written after it (see placePending).
        // Each query walks message_conversation_seq from its end: one query
        // with `seq IS NULL OR seq > ?` would sort the whole conversation on
        // every incoming batch.
        let sending = try MessageRecord.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq IS NULL AND isControl = 0 AND status <> 'failed'
            ORDER BY id DESC LIMIT 1
            """), arguments: [conversationId])
        let highest = try MessageRecord.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq > ? AND isControl = 0
            ORDER BY seq DESC LIMIT 1
            """), arguments: [conversationId, conv.clearedSeq])
        var newest = sending ?? highest
        if sending == nil, let failed = try MessageRecord.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq IS NULL AND isControl = 0 AND status = 'failed'
            ORDER BY id DESC LIMIT 1
            """), arguments: [conversationId]), let rowId = failed.id {
            let anchor = try Self.writtenAfterSeq(conversationId: conversationId, rowId: rowId, db: db)
            if anchor >= (highest?.seq ?? 0) { newest = failed }
        }
        if let newest {
            conv.setLast(newest)
        } else if conv.lastSeq == nil {
            // The preview was an unsent message that is gone (discarded).
            conv.clearLast()
        }
        try conv.update(db)
    }
}
