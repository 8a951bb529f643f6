import ChatCore
import Foundation
import GRDB

/// The `conversation` table: the list's rows, their read position, pins,
/// drafts and previews. Every function runs inside a transaction the
/// caller (``ChatStore``) opened.
enum ConversationTable {
    /// The list's rows in `Conversation.listOrder`: pinned first (the latest
    /// pinned first; pinnedAt is 0 when not pinned), then the newest. Rooms
    /// are never among them (their rows only hold what a room's chat pages).
    static func visible(_ db: Database) throws -> [ConversationRecord] {
        var records = try ConversationRecord.fetchAll(selected: db.cachedStatement(sql: """
            SELECT \(ConversationRecord.shownSelection) FROM conversation WHERE hidden = 0 AND id NOT LIKE 'sr\\_%' ESCAPE '\\'
            ORDER BY isPinned DESC, pinnedAt DESC, lastMessageTime DESC, id DESC
            """))
        for i in records.indices where records[i].groupId != nil { try nameLastSender(&records[i], db) }
        return records
    }

    /// A group row's last sender as the group names them, else as their profile does.
    static func nameLastSender(_ record: inout ConversationRecord, _ db: Database) throws {
        guard let gid = record.groupId, let sender = record.lastSendID,
              let uid = ConversationIDHelper.uid(fromImUid: sender) else { return }
        record.lastSenderName = try String.fetchOne(db.cachedStatement(sql: """
            SELECT COALESCE((SELECT NULLIF(username, '') FROM group_member WHERE groupId = ? AND uid = ?),
                            (SELECT NULLIF(username, '') FROM profile WHERE uid = ?))
            """), arguments: [gid, uid, uid])
    }

    /// Total unread over visible conversations.
    static func totalUnread(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COALESCE(SUM(unreadCount), 0) FROM conversation WHERE hidden = 0 AND id NOT LIKE 'sr\\_%' ESCAPE '\\'
            """)) ?? 0
    }

    /// A row pinned now goes first among the pinned ones.
    static func setPinned(id: String, isPinned: Bool, db: Database) throws {
        try db.execute(sql: "UPDATE conversation SET isPinned = ?, pinnedAt = ? WHERE id = ?",
                       arguments: [isPinned, isPinned ? try pinTime(db) : 0, id])
    }

    /// `Conversation.pinTime` against the latest pin stored.
    static func pinTime(_ db: Database) throws -> Int {
        Conversation.pinTime(now: ChatStore.nowMs(), latestPin: try Int.fetchOne(db, sql: "SELECT MAX(pinnedAt) FROM conversation") ?? 0)
    }

    static func setDraft(id: String, value: String?, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE conversation SET draftText = ? WHERE id = ? AND draftText IS NOT ?")
            .execute(arguments: [value, id, value])
    }

    static func setImOpened(id: String, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE conversation SET isImOpened = 1 WHERE id = ?").execute(arguments: [id])
    }

    static func setSignalContext(id: String, signalId: Int, receiveId: String, reply: String, content: String,
                                 db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE conversation SET fromSignal = 1, signalId = ?, receiveId = ?, signalReply = ?, signalContent = ?
            WHERE id = ?
            """).execute(arguments: [signalId, receiveId, reply, content, id])
    }

    static func setOnline(uid: Int, online: Bool, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE conversation SET isOnline = ? WHERE targetUid = ?").execute(arguments: [online, uid])
    }

    /// Moves the read position forward to `seq` and recounts the unread:
    /// the row's new (readSeq, unreadCount), nil when there is no such row.
    static func markRead(id: String, upTo seq: Int, me: StoreOwner, db: Database) throws -> (readSeq: Int, unread: Int)? {
        guard var conv = try ConversationRecord.fetchOne(db, id: id) else { return nil }
        conv.readSeq = max(conv.readSeq, seq)
        conv.unreadCount = try countUnread(conversationId: id, readSeq: conv.readSeq, me: me, db: db)
        try conv.update(db)
        return (conv.readSeq, conv.unreadCount)
    }

    /// The row of `id`, made (named after the peer's cached profile) if missing.
    static func ensure(id: String, nickname: String = "", avatar: String = "", me: StoreOwner,
                       db: Database) throws -> ConversationRecord {
        if let existing = try ConversationRecord.fetchOne(db, id: id) { return existing }
        let target = ConversationIDHelper.peerUid(in: id, myUid: me.uid) ?? 0
        var record = ConversationRecord(id: id, targetUid: target, nickname: nickname, avatar: avatar)
        if nickname.isEmpty, let p = try ProfileRecord.fetchOne(db, key: target) {
            record.nickname = p.username
            record.avatar = p.avatar
        }
        try record.insert(db)
        return record
    }

    /// The server's view of one conversation (`/chat/conversations`, or a
    /// `conversation` sync event) over the row.
    /// The peer of a one-to-one chat read up to `seq` (a `read` event).
    static func notePeerRead(_ id: String, seq: Int, db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE conversation SET peerReadSeq = ? WHERE id = ? AND (peerReadSeq IS NULL OR peerReadSeq < ?)
            """).execute(arguments: [seq, id, seq])
    }

    static func applySummary(_ s: ConversationSummary, me: StoreOwner, db: Database) throws {
        guard me.isMine(s.conversationId) else { return }
        var conv = try ensure(id: s.conversationId, nickname: s.showName, avatar: s.faceURL, me: me, db: db)
        let before = conv
        if s.deleted == true {
            try clearHistory(id: s.conversationId, hide: true, db: db)
            return
        }
        conv.isMuted = s.isMuted
        conv.mentionSeq = max(conv.mentionSeq, s.mentionSeq)
        if let gid = ConversationIDHelper.groupId(s.conversationId) {
            conv.groupId = gid
            if let count = s.memberCount { conv.memberCount = count }
            if let member = s.isMember { conv.isMember = member }
            if !s.showName.isEmpty { conv.nickname = s.showName }
        } else if !s.showName.isEmpty {
            conv.nickname = s.showName
            // The server's name is the current one (a peer may have renamed themselves).
            try db.cachedStatement(sql: "UPDATE profile SET username = ? WHERE uid = ? AND username <> ?")
                .execute(arguments: [s.showName, conv.targetUid, s.showName])
        }
        conv.avatar = s.faceURL
        if conv.isPinned != s.isPinned {
            conv.isPinned = s.isPinned
            conv.pinnedAt = s.isPinned ? try pinTime(db) : 0
        }
        conv.unreadCount = s.unreadCount
        conv.maxSeq = max(conv.maxSeq, s.maxSeq)
        conv.readSeq = max(conv.readSeq, s.readSeq)
        // Absent: the peer or I stopped sharing reads (PROTOCOL.md v4), so none is shown.
        conv.peerReadSeq = s.peerReadSeq.map { max(conv.peerReadSeq ?? 0, $0) }
        conv.isOnline = s.isOnline
        conv.isImOpened = conv.isImOpened || s.isImOpened
        conv.hidden = false
        if let last = s.lastMessage, last.contentType == SecretWire.contentType {
            // A secret chat's last message is opened once, from its own event:
            // the preview is this device's copy of it, if it has one.
            if last.seq >= (conv.lastSeq ?? 0), let mine = try MessageTable.record(clientMsgID: last.clientMsgID, db: db),
               mine.conversationId == s.conversationId {
                conv.setLast(mine)
            }
        } else if let last = s.lastMessage {
            if (last.seq) >= (conv.lastSeq ?? 0) { conv.setLast(MessageRecord(wire: last)) }
            try MessageTable.insertOrMerge(MessageRecord(wire: last), db: db)
        } else if s.maxSeq == 0 || s.maxSeq <= conv.clearedSeq {
            conv.clearLast()
        }
        conv.lastMessageTime = max(conv.lastMessageTime, s.lastMessageTime)
        // Only what changed is written: an unchanged row (the echo of my own
        // send) must not wake an open chat to read its window again.
        try conv.updateChanges(db, from: before)
    }

    /// A group's or a room's notices are not unread (PROTOCOL.md "Groups", "Rooms").
    static func countUnread(conversationId: String, readSeq: Int, me: StoreOwner, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM message
            WHERE conversationId = ? AND seq > ? AND sendID <> ? AND isControl = 0
            AND contentType NOT BETWEEN 1501 AND 1511 AND contentType NOT BETWEEN 1601 AND 1605
            """), arguments: [conversationId, readSeq, me.imUid]) ?? 0
    }

    /// Clears the history up to the newest message held or known; `hide`
    /// also takes the row off the list (a later message shows it again).
    static func clearHistory(id: String, hide: Bool, db: Database) throws {
        guard var conv = try ConversationRecord.fetchOne(db, id: id) else { return }
        let newest = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(seq) FROM message WHERE conversationId = ?"), arguments: [id]) ?? 0
        conv.clearedSeq = max(conv.clearedSeq, conv.maxSeq, newest)
        conv.readSeq = max(conv.readSeq, conv.clearedSeq)
        conv.unreadCount = 0
        conv.clearLast()
        if hide { conv.hidden = true; conv.draftText = nil }
        try db.execute(sql: "DELETE FROM message WHERE conversationId = ? AND seq IS NOT NULL AND seq <= ?",
                       arguments: [id, conv.clearedSeq])
        try db.cachedStatement(sql: "DELETE FROM history_range WHERE conversationId = ?").execute(arguments: [id])
        try conv.update(db)
    }

    /// Recomputes the conversation's preview from its newest visible message.
    static func refreshLast(conversationId: String, db: Database) throws {
        guard var conv = try ConversationRecord.fetchOne(db, id: conversationId) else { return }
        let before = conv
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
            let anchor = try MessageTable.writtenAfterSeq(conversationId: conversationId, rowId: rowId, db: db)
            if anchor >= (highest?.seq ?? 0) { newest = failed }
        }
        if let newest {
            conv.setLast(newest)
        } else if conv.lastSeq == nil {
            // The preview was an unsent message that is gone (discarded).
            conv.clearLast()
        }
        try conv.updateChanges(db, from: before)
    }

    /// Updates a conversation for messages now stored: shows it again if
    /// hidden, moves maxSeq and readSeq (our own message means we read what
    /// came before), recounts unread and the preview.
    static func noteNewMessages(_ messages: [MessageRecord], conversationId: String, me: StoreOwner, db: Database,
                                changes: inout AppliedChanges) throws {
        var conv = try ensure(id: conversationId, me: me, db: db)
        let before = conv
        for m in messages {
            let seq = m.seq ?? 0
            if seq > 0, seq <= conv.clearedSeq { continue }
            if seq > conv.maxSeq { conv.maxSeq = seq }
            if !m.isControl || m.contentType == ContentType.revokeNotice { conv.hidden = false }
            if m.sendID == me.imUid, seq > conv.readSeq, !m.isControl { conv.readSeq = seq }
            if seq > conv.mentionSeq, m.sendID != me.imUid,
               MentionPayload.carried(contentType: m.contentType, content: m.content)?.mentions(me.imUid) == true {
                conv.mentionSeq = seq
            }
        }
        conv.unreadCount = try countUnread(conversationId: conversationId, readSeq: conv.readSeq, me: me, db: db)
        try conv.updateChanges(db, from: before)
        try refreshLast(conversationId: conversationId, db: db)
        changes.conversationIds.insert(conversationId)
    }
}
