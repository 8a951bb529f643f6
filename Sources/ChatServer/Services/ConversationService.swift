import ChatCore

/// Conversations as each member sees them: the list, starting one, pinning,
/// reading, clearing and deleting. Every change is logged to the member it
/// concerns.
final class ConversationService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let presence: PresenceService
    let syncLog: SyncLogService
    let notices: CommitNotifier

    init(storage: any ChatStorage, config: ServerConfig, presence: PresenceService, syncLog: SyncLogService,
         notices: CommitNotifier) {
        self.storage = storage
        self.config = config
        self.presence = presence
        self.syncLog = syncLog
        self.notices = notices
    }

    /// Checks the id's form and that the caller is in it; returns the peer.
    static func peer(of conversationId: String, caller: Int) throws -> Int {
        guard ConversationIDHelper.parse(conversationId) != nil else {
            throw APIFailure.invalid("conversation id \(conversationId.prefix(80)) is not of the form si_tb_A_tb_B")
        }
        guard let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: caller) else {
            throw APIFailure.forbidden("you are not in this conversation")
        }
        return peer
    }

    /// Creates the conversation and both member rows if missing; the peer
    /// does not see it until a message arrives.
    func ensure(_ id: String, caller: Int, peer: Int, in tx: any StorageTransaction) throws {
        if try tx.conversations.exists(id) { return }
        guard try tx.users.info(uid: peer) != nil else { throw APIFailure.notFound("no such user") }
        try tx.conversations.create(id, uidLow: min(caller, peer), uidHigh: max(caller, peer), createdAt: config.clock.nowMs())
        for (uid, hidden) in [(caller, false), (peer, true)] {
            try tx.conversations.addMember(id, uid: uid, hidden: hidden)
        }
    }

    func member(_ id: String, uid: Int, in tx: any StorageTransaction) throws -> MemberRow {
        guard let m = try tx.conversations.member(id, uid: uid) else { throw APIFailure.notFound("no such conversation") }
        return m
    }

    func summary(_ id: String, for uid: Int, in tx: any StorageTransaction, deleted: Bool? = nil) throws -> ConversationSummary {
        let m = try member(id, uid: uid, in: tx)
        let peer = ConversationIDHelper.peerUid(in: id, myUid: uid) ?? 0
        let info = try tx.users.info(uid: peer)
        let maxSeq = try tx.conversations.maxSeq(of: id) ?? 0
        let last = try tx.messages.lastVisible(in: id, after: m.clearedSeq)
        let unread = try tx.messages.unreadCount(in: id, after: max(m.readSeq, m.clearedSeq), notFrom: uid)
        let created = try tx.conversations.createdAt(of: id) ?? 0
        return ConversationSummary(
            conversationId: id, userId: ConversationIDHelper.imUid(peer), showName: info?.username ?? "",
            faceURL: info?.avatar ?? "", isPinned: m.isPinned, unreadCount: unread, lastMessage: last?.wire,
            lastMessageTime: last?.sendTime ?? created, maxSeq: maxSeq, readSeq: m.readSeq,
            isOnline: presence.isOnline(peer), isImOpened: m.isImOpened, deleted: deleted)
    }

    func list(caller: Int) throws -> [ConversationSummary] {
        try storage.read { tx in
            try tx.conversations.visibleConversations(of: caller).map { try self.summary($0, for: caller, in: tx) }
                .sorted { ($0.isPinned ? 1 : 0, $0.lastMessageTime) > ($1.isPinned ? 1 : 0, $1.lastMessageTime) }
        }
    }

    func start(caller: Int, userId: Int) throws -> ConversationSummary {
        guard userId != caller else { throw APIFailure.invalid("you cannot start a conversation with yourself") }
        guard userId > 0 else { throw APIFailure.invalid("user_id must be positive") }
        let id = ConversationIDHelper.make(myUid: caller, targetUid: userId)
        let (summary, cursor) = try storage.write { tx -> (ConversationSummary, Int) in
            try self.ensure(id, caller: caller, peer: userId, in: tx)
            try tx.conversations.unhide(id, uid: caller)
            let s = try self.summary(id, for: caller, in: tx)
            return (s, try self.syncLog.append(.conversation(s), to: caller, in: tx))
        }
        notices.committed([caller: cursor])
        return summary
    }

    /// Changes the caller's own view of a conversation and logs it to them.
    func updateMember(caller: Int, conversationId: String, deleted: Bool? = nil,
                      _ change: (inout MemberRow, any StorageTransaction) throws -> Void) throws -> ConversationSummary {
        _ = try Self.peer(of: conversationId, caller: caller)
        let (summary, cursor) = try storage.write { tx -> (ConversationSummary, Int) in
            var m = try self.member(conversationId, uid: caller, in: tx)
            try change(&m, tx)
            try tx.conversations.update(m)
            let s = try self.summary(conversationId, for: caller, in: tx, deleted: deleted)
            return (s, try self.syncLog.append(.conversation(s), to: caller, in: tx))
        }
        notices.committed([caller: cursor])
        return summary
    }

    func pin(caller: Int, conversationId: String, isPinned: Bool) throws -> ConversationSummary {
        try updateMember(caller: caller, conversationId: conversationId) { m, _ in m.isPinned = isPinned }
    }

    func markRead(caller: Int, conversationId: String, seq: Int) throws -> ConversationSummary {
        guard seq >= 0 else { throw APIFailure.invalid("seq must not be negative") }
        return try updateMember(caller: caller, conversationId: conversationId) { m, tx in
            let maxSeq = try tx.conversations.maxSeq(of: m.conversationId) ?? 0
            m.readSeq = max(m.readSeq, min(seq, maxSeq))
        }
    }

    /// Clears the caller's history up to now; `hide` also takes the
    /// conversation off their list until the next message.
    func clear(caller: Int, conversationId: String, hide: Bool) throws {
        _ = try updateMember(caller: caller, conversationId: conversationId, deleted: hide ? true : nil) { m, tx in
            let maxSeq = try tx.conversations.maxSeq(of: m.conversationId) ?? 0
            m.clearedSeq = maxSeq
            m.readSeq = max(m.readSeq, maxSeq)
            if hide { m.hidden = true }
        }
    }
}
