import ChatCore
import GRDB

extension ChatStore {
    /// The visible conversations in the seed's order: pinned first, then the
    /// newest message first. Previews are in `localizer`'s language.
    /// `useCache: false` always reads the database (the benchmark's cold figure).
    public func conversationList(localizer: Localizer = .current, useCache: Bool = true) throws -> [Conversation] {
        if useCache, let cached = listCache.get(localizer.language) { return cached }
        let generation = listCache.generation
        let records = try dbPool.read(Self.visibleConversations)
        let list = records.map { $0.conversation(myImUid: myImUid, localizer: localizer, memo: previews) }
        listCache.set(list, for: localizer.language, generation: generation)
        return list
    }

    /// The list's rows in `Conversation.listOrder`: pinned first (the latest
    /// pinned first; pinnedAt is 0 when not pinned), then the newest.
    static func visibleConversations(_ db: Database) throws -> [ConversationRecord] {
        try ConversationRecord.fetchAll(db.cachedStatement(sql: """
            SELECT \(ConversationRecord.selection) FROM conversation WHERE hidden = 0
            ORDER BY isPinned DESC, pinnedAt DESC, lastMessageTime DESC, id DESC
            """))
    }

    public func conversation(id: String, localizer: Localizer = .current) throws -> Conversation? {
        try conversationRecord(id: id)?.conversation(myImUid: myImUid, localizer: localizer)
    }

    func conversationRecord(id: String) throws -> ConversationRecord? {
        try dbPool.read { db in try ConversationRecord.fetchOne(db, id: id) }
    }

    /// Total unread over visible conversations.
    public func totalUnread() throws -> Int {
        try dbPool.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(SUM(unreadCount), 0) FROM conversation WHERE hidden = 0")) ?? 0
        }
    }

    /// Writes the server's view of conversations (from `/chat/conversations`).
    public func saveSummaries(_ summaries: [ConversationSummary]) throws {
        try dbPool.write { db in
            for s in summaries { try self.applySummary(s, db: db) }
        }
    }

    /// Makes sure a conversation row exists (e.g. when starting a chat).
    @discardableResult
    func ensureConversation(id: String, nickname: String = "", avatar: String = "") throws -> ConversationRecord {
        try dbPool.write { db in try self.ensureConversation(id: id, nickname: nickname, avatar: avatar, db: db) }
    }

    /// A row pinned now goes first among the pinned ones.
    public func setPinned(id: String, isPinned: Bool) throws {
        try dbPool.write { db in
            try db.execute(sql: "UPDATE conversation SET isPinned = ?, pinnedAt = ? WHERE id = ?",
                           arguments: [isPinned, isPinned ? try Self.pinTime(db) : 0, id])
        }
    }

    /// Saves the draft; an empty or blank draft removes it. An unchanged
    /// draft writes nothing, so leaving a chat keeps the cached list.
    public func setDraft(id: String, text: String?) throws {
        let value: String? = (text?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true) ? nil : text
        try dbPool.write { db in
            try db.cachedStatement(sql: "UPDATE conversation SET draftText = ? WHERE id = ? AND draftText IS NOT ?")
                .execute(arguments: [value, id, value])
            self.listObserver.patchInstead(ListPatch(matches: { $0.id == id }, change: { $0.draftText = value }))
        }
    }

    public func setImOpened(id: String) throws {
        try dbPool.write { db in
            try db.cachedStatement(sql: "UPDATE conversation SET isImOpened = 1 WHERE id = ?").execute(arguments: [id])
            self.listObserver.patchInstead(ListPatch(matches: { $0.id == id }, change: { $0.isImOpened = true }))
        }
    }

    /// Records that the chat was opened from a signal (seed §一 signal context).
    public func setSignalContext(id: String, signalId: Int, receiveId: String, reply: String, content: String) throws {
        try dbPool.write { db in
            try db.cachedStatement(sql: """
                UPDATE conversation SET fromSignal = 1, signalId = ?, receiveId = ?, signalReply = ?, signalContent = ?
                WHERE id = ?
                """).execute(arguments: [signalId, receiveId, reply, content, id])
        }
    }

    public func setOnline(imUid: String, online: Bool) throws {
        guard let uid = ConversationIDHelper.uid(fromImUid: imUid) else { return }
        try dbPool.write { db in
            try db.cachedStatement(sql: "UPDATE conversation SET isOnline = ? WHERE targetUid = ?").execute(arguments: [online, uid])
            self.listObserver.patchInstead(ListPatch(matches: { $0.targetUid == uid }, change: { $0.isOnline = online }))
        }
    }

    /// Marks everything up to `seq` read: readSeq only moves forward.
    public func markRead(id: String, upTo seq: Int) throws {
        try dbPool.write { db in
            guard var conv = try ConversationRecord.fetchOne(db, id: id) else { return }
            conv.readSeq = max(conv.readSeq, seq)
            conv.unreadCount = try self.countUnread(conversationId: id, readSeq: conv.readSeq, db: db)
            try conv.update(db)
            // The read position moves neither the row nor its preview: the
            // cached list takes the new counts (opening a chat with unread
            // messages does not read a list of a thousand again).
            let readSeq = conv.readSeq, unread = conv.unreadCount
            self.listObserver.patchInstead(ListPatch(matches: { $0.id == id }, change: {
                $0.readSeq = readSeq
                $0.unreadCount = unread
            }))
        }
    }

    /// Clears the local history up to the newest message; the conversation stays.
    public func clearHistory(id: String) throws {
        try dbPool.write { db in try self.clearHistory(id: id, hide: false, db: db) }
    }

    /// Hides the conversation and clears its history; a later message shows it again.
    public func deleteConversation(id: String) throws {
        try dbPool.write { db in try self.clearHistory(id: id, hide: true, db: db) }
    }

    /// Puts back a conversation row exactly as it was (an optimistic delete
    /// the server refused). Cleared messages are not restored locally; they
    /// come back from the server's history.
    func restoreConversation(_ record: ConversationRecord) throws {
        try dbPool.write { db in try record.save(db) }
    }

    // MARK: - Internals shared with event application

    /// `Conversation.pinTime` against the latest pin stored.
    static func pinTime(_ db: Database) throws -> Int {
        Conversation.pinTime(now: nowMs(), latestPin: try Int.fetchOne(db, sql: "SELECT MAX(pinnedAt) FROM conversation") ?? 0)
    }

    func ensureConversation(id: String, nickname: String, avatar: String, db: Database) throws -> ConversationRecord {
        if let existing = try ConversationRecord.fetchOne(db, id: id) { return existing }
        let target = ConversationIDHelper.peerUid(in: id, myUid: myUid) ?? 0
        var record = ConversationRecord(id: id, targetUid: target, nickname: nickname, avatar: avatar)
        if nickname.isEmpty, let p = try ProfileRecord.fetchOne(db, key: target) {
            record.nickname = p.username
            record.avatar = p.avatar
        }
        try record.insert(db)
        return record
    }

    func applySummary(_ s: ConversationSummary, db: Database) throws {
        guard isMine(s.conversationId) else { return }
        var conv = try ensureConversation(id: s.conversationId, nickname: s.showName, avatar: s.faceURL, db: db)
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
            conv.pinnedAt = s.isPinned ? try Self.pinTime(db) : 0
        }
        conv.unreadCount = s.unreadCount
        conv.maxSeq = max(conv.maxSeq, s.maxSeq)
        conv.readSeq = max(conv.readSeq, s.readSeq)
        conv.isOnline = s.isOnline
        conv.isImOpened = conv.isImOpened || s.isImOpened
        conv.hidden = false
        if let last = s.lastMessage {
            if (last.seq) >= (conv.lastSeq ?? 0) { conv.setLast(MessageRecord(wire: last)) }
            try insertOrMerge(MessageRecord(wire: last), db: db)
        } else if s.maxSeq == 0 || s.maxSeq <= conv.clearedSeq {
            conv.clearLast()
        }
        conv.lastMessageTime = max(conv.lastMessageTime, s.lastMessageTime)
        try conv.update(db)
    }

    /// A group's system notices are not unread (PROTOCOL.md "Groups").
    func countUnread(conversationId: String, readSeq: Int, db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM message
            WHERE conversationId = ? AND seq > ? AND sendID <> ? AND isControl = 0
            AND contentType NOT BETWEEN 1501 AND 1510
            """), arguments: [conversationId, readSeq, myImUid]) ?? 0
    }

    /// A single chat with me in it, or a group (the server logs a group's
    /// events only to its members).
    func isMine(_ conversationId: String) -> Bool {
        ConversationIDHelper.isGroup(conversationId) || ConversationIDHelper.peerUid(in: conversationId, myUid: myUid) != nil
    }

    func clearHistory(id: String, hide: Bool, db: Database) throws {
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
}
