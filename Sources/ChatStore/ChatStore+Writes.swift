import ChatCore
import Foundation
import GRDB

/// Everything that changes the store, each one write transaction; the SQL
/// is in the table types (`Tables/`). Only ChatSync calls these.
extension ChatStore {
    // MARK: - Conversations

    /// Writes the server's view of conversations (from `/chat/conversations`).
    public func saveSummaries(_ summaries: [ConversationSummary]) throws {
        try dbPool.write { db in
            for s in summaries { try ConversationTable.applySummary(s, me: self.me, db: db) }
        }
    }

    /// Makes sure a conversation row exists (e.g. when starting a chat).
    @discardableResult
    func ensureConversation(id: String, nickname: String = "", avatar: String = "") throws -> ConversationRecord {
        try dbPool.write { db in try ConversationTable.ensure(id: id, nickname: nickname, avatar: avatar, me: self.me, db: db) }
    }

    /// A row pinned now goes first among the pinned ones.
    public func setPinned(id: String, isPinned: Bool) throws {
        try dbPool.write { db in try ConversationTable.setPinned(id: id, isPinned: isPinned, db: db) }
    }

    /// Saves the draft; an empty or blank draft removes it. An unchanged
    /// draft writes nothing, so leaving a chat keeps the cached list.
    public func setDraft(id: String, text: String?) throws {
        let value: String? = (text?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true) ? nil : text
        try dbPool.write { db in
            try ConversationTable.setDraft(id: id, value: value, db: db)
            self.listObserver.patchInstead(ListPatch(matches: { $0.id == id }, change: { $0.draftText = value }))
        }
    }

    public func setImOpened(id: String) throws {
        try dbPool.write { db in
            try ConversationTable.setImOpened(id: id, db: db)
            self.listObserver.patchInstead(ListPatch(matches: { $0.id == id }, change: { $0.isImOpened = true }))
        }
    }

    /// Records that the chat was opened from a signal (seed §一 signal context).
    public func setSignalContext(id: String, signalId: Int, receiveId: String, reply: String, content: String) throws {
        try dbPool.write { db in
            try ConversationTable.setSignalContext(id: id, signalId: signalId, receiveId: receiveId, reply: reply,
                                                   content: content, db: db)
        }
    }

    public func setOnline(imUid: String, online: Bool) throws {
        guard let uid = ConversationIDHelper.uid(fromImUid: imUid) else { return }
        try dbPool.write { db in
            try ConversationTable.setOnline(uid: uid, online: online, db: db)
            self.listObserver.patchInstead(ListPatch(matches: { $0.targetUid == uid }, change: { $0.isOnline = online }))
        }
    }

    /// Marks everything up to `seq` read: readSeq only moves forward.
    public func markRead(id: String, upTo seq: Int) throws {
        try dbPool.write { db in
            guard let (readSeq, unread) = try ConversationTable.markRead(id: id, upTo: seq, me: self.me, db: db) else { return }
            // The read position moves neither the row nor its preview: the
            // cached list takes the new counts (opening a chat with unread
            // messages does not read a list of a thousand again).
            self.listObserver.patchInstead(ListPatch(matches: { $0.id == id }, change: {
                $0.readSeq = readSeq
                $0.unreadCount = unread
            }))
        }
    }

    /// Clears the local history up to the newest message; the conversation stays.
    public func clearHistory(id: String) throws {
        try dbPool.write { db in try ConversationTable.clearHistory(id: id, hide: false, db: db) }
    }

    /// Hides the conversation and clears its history; a later message shows it again.
    public func deleteConversation(id: String) throws {
        try dbPool.write { db in try ConversationTable.clearHistory(id: id, hide: true, db: db) }
    }

    // MARK: - Messages

    /// Writes an optimistic outgoing message and its outbox row in one
    /// transaction, before any network is touched (seed §四).
    public func insertOutgoing(_ message: StoredMessage, outbox: OutboxItem) throws {
        try dbPool.write { db in try MessageTable.insertOutgoing(message, outbox: outbox, me: self.me, db: db) }
    }

    /// The server acknowledged a send: the message gets its seq and server id,
    /// its outbox row goes. A sync event that already delivered the echo wins.
    public func markSent(clientMsgID: String, response: SendMessageResponse) throws {
        try dbPool.write { db in try MessageTable.markSent(clientMsgID: clientMsgID, response: response, me: self.me, db: db) }
    }

    /// Updates an optimistic message's content (e.g. after its upload).
    public func updatePendingContent(clientMsgID: String, content: String) throws {
        try dbPool.write { db in try MessageTable.updatePendingContent(clientMsgID: clientMsgID, content: content, db: db) }
    }

    /// Local revoke (optimistic, seed §六): returns the row as it was, for rollback.
    @discardableResult
    public func setRevoked(clientMsgID: String, revoked: Bool, restoring snapshot: StoredMessage? = nil) throws -> StoredMessage? {
        try dbPool.write { db in
            try MessageTable.setRevoked(clientMsgID: clientMsgID, revoked: revoked, restoring: snapshot, db: db)
        }
    }

    /// A message's reactions as the server just answered them.
    public func setReactions(clientMsgID: String, _ reactions: Reactions) throws {
        try dbPool.write { db in try MessageTable.setReactions(clientMsgID: clientMsgID, reactions, db: db) }
    }

    /// A message as the server now has it (an edit's answer): merged as a
    /// `message_update` is, and the list's preview follows.
    public func saveUpdated(_ message: WireMessage) throws {
        try dbPool.write { db in
            try MessageTable.insertOrMerge(MessageRecord(wire: message), db: db)
            try ConversationTable.refreshLast(conversationId: message.conversationId, db: db)
        }
    }

    /// Messages deleted for me (here, or on another device): gone from this
    /// store, their seqs known complete so no gap is fetched for them.
    public func deleteForMe(_ clientMsgIDs: [String], in conversationId: String) throws {
        try dbPool.write { db in
            var ignored = AppliedChanges()
            try MessageTable.deleteForMe(clientMsgIDs, in: conversationId, me: self.me, db: db, changes: &ignored)
        }
    }

    public func setFlashViewed(clientMsgID: String) throws {
        try dbPool.write { db in try MessageTable.setFlashViewed(clientMsgID: clientMsgID, db: db) }
    }

    /// Stores history fetched from `/chat/messages` and records that the seqs
    /// from `from` to `to` are now known complete.
    public func saveHistory(conversationId: String, messages: [WireMessage], coveringFrom from: Int, to: Int) throws {
        try dbPool.write { db in
            try MessageTable.saveHistory(conversationId: conversationId, messages: messages, coveringFrom: from, to: to,
                                         me: self.me, db: db)
        }
    }

    /// A room's messages (pushed, answered by entering, or filling a gap),
    /// filed under the room's name; seqs from...to are then known complete.
    /// A room is in no list (PROTOCOL.md v3 "Rooms"): the list's queries
    /// leave `sr_` rows out, which only hold what a room's chat pages through.
    public func saveRoomMessages(conversationId: String, name: String, messages: [WireMessage], coveringFrom from: Int,
                                 to: Int) throws {
        guard ConversationIDHelper.isRoom(conversationId) else { throw StoreError.unknownConversation(conversationId) }
        try dbPool.write { db in
            var conv = try ConversationTable.ensure(id: conversationId, nickname: name, me: self.me, db: db)
            if conv.nickname != name {
                conv.nickname = name
                try conv.update(db)
            }
            try MessageTable.saveHistory(conversationId: conversationId, messages: messages, coveringFrom: from, to: to, db: db)
        }
    }

    /// Applies one `/chat/sync` batch and the new cursor in one transaction.
    @discardableResult
    public func apply(events: [SyncEvent], cursor: Int) throws -> AppliedChanges {
        try dbPool.write { db in try SyncBatch.apply(events, cursor: cursor, me: self.me, db: db) }
    }

    // MARK: - Sync and history

    public func setSyncCursor(_ cursor: Int) throws {
        try dbPool.write { db in try HistoryTable.setCursor(cursor, db: db) }
    }

    /// Records that seqs low...high of a conversation are held in full,
    /// merging with touching or overlapping ranges.
    public func addHistoryRange(conversationId: String, low: Int, high: Int) throws {
        try dbPool.write { db in try HistoryTable.addRange(conversationId: conversationId, low: low, high: high, db: db) }
    }

    /// Adds up to `limit` messages of the backlog to the search index in one
    /// transaction; true when more are waiting. `SearchIndexer` calls this
    /// after a burst; tools that fill a store call it until it says false.
    @discardableResult
    public func indexSearchBacklog(limit: Int = 1000) throws -> Bool {
        try SearchTable.indexBacklog(dbPool, limit: limit)
    }

    // MARK: - People and groups

    public func saveProfiles(_ infos: [UserBasicInfo]) throws {
        try dbPool.write { db in try ProfileTable.save(infos, db: db) }
    }

    /// The friend list and pending requests as the server has them now.
    public func savePeople(contacts: [Contact], requests: FriendRequestsResponse) throws {
        try dbPool.write { db in
            try ContactTable.replace(contacts, db: db)
            try ContactTable.replace(requests, db: db)
        }
    }

    /// One friend changed (a remark set here), before the event says so.
    public func saveContact(_ contact: Contact, removed: Bool = false) throws {
        try dbPool.write { db in try ContactTable.apply(contact, removed: removed, db: db) }
    }

    /// One request changed (answered here), before the event says so.
    public func saveFriendRequest(_ request: FriendRequest) throws {
        try dbPool.write { db in try ContactTable.apply(request, db: db) }
    }

    public func saveGroup(_ info: GroupInfo) throws {
        try dbPool.write { db in try GroupTable.apply(info, me: self.me, db: db) }
    }

    /// Replaces the cached member list of a group (a full `/group/members` walk).
    public func saveMembers(_ members: [GroupMember], groupId: Int) throws {
        try dbPool.write { db in try GroupTable.saveMembers(members, groupId: groupId, db: db) }
    }

    // MARK: - The outbox (docs/send-queue.md; the rules are on `OutboxTable`)

    /// An attempt that did not go through for a transient reason: the row
    /// stays queued, and its message says why it waits. `mayHaveArrived`
    /// (the request may have reached the server) is kept for good: such a
    /// message is never taken back, only resent.
    public func noteAttempt(clientMsgID: String, error: String?, mayHaveArrived: Bool = true) throws {
        try dbPool.write { db in
            try OutboxTable.noteAttempt(clientMsgID: clientMsgID, error: error, mayHaveArrived: mayHaveArrived, db: db)
        }
    }

    /// The server refused a send: the message shows `failed` with the
    /// reason; its outbox row stays (uploads still to do, receive_id, push
    /// text) for a retry, and holds what its conversation queued after it,
    /// whose messages say so.
    public func markFailed(clientMsgID: String, reason: String) throws {
        try dbPool.write { db in try OutboxTable.markFailed(clientMsgID: clientMsgID, reason: reason, db: db) }
    }

    /// Puts a failed message back into the queue with its same clientMsgID:
    /// its kept outbox row if there is one, else `outbox` (a message that
    /// failed before rows were kept). What it held is queued again.
    public func requeue(clientMsgID: String, outbox: OutboxItem) throws {
        try dbPool.write { db in try OutboxTable.requeue(clientMsgID: clientMsgID, outbox: outbox, db: db) }
    }

    /// Removes a failed message that was never delivered, with its outbox
    /// row, and releases what it held. Returns false (and changes nothing)
    /// for a message that is not a failed unsent one of ours.
    @discardableResult
    public func discardFailed(clientMsgID: String) throws -> Bool {
        try dbPool.write { db in try OutboxTable.discard(clientMsgID: clientMsgID, onlyFailed: true, me: self.me, db: db) }
    }

    /// Removes a message the server never saw (its connection was never
    /// made, or it was held), with its outbox row: `tongban send` without
    /// `--queue` leaves nothing behind when it reports a failure.
    @discardableResult
    public func discardUnsent(clientMsgID: String) throws -> Bool {
        try dbPool.write { db in try OutboxTable.discard(clientMsgID: clientMsgID, onlyFailed: false, me: self.me, db: db) }
    }
}
