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

    /// Who a conversation is with, from its id alone.
    enum Target: Equatable {
        case single(peer: Int)
        /// Membership is checked inside a transaction (`member`, `activeMember`).
        case group(gid: Int)
        /// v3: presence is membership (`member` answers for the present only).
        case room(rid: Int)

        var isRoom: Bool { if case .room = self { true } else { false } }
    }

    /// Checks the id's form and, for a single chat, that the caller is in it.
    static func target(of conversationId: String, caller: Int) throws -> Target {
        if let gid = ConversationIDHelper.groupId(conversationId) { return .group(gid: gid) }
        if let rid = ConversationIDHelper.roomId(conversationId) { return .room(rid: rid) }
        guard ConversationIDHelper.parse(conversationId) != nil else {
            throw APIFailure.invalid("conversation id \(conversationId.prefix(80)) is not of the form si_tb_A_tb_B or sg_N")
        }
        guard let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: caller) else {
            throw APIFailure.forbidden("you are not in this conversation")
        }
        return .single(peer: peer)
    }


    /// Creates the conversation and its member rows if missing; the peer
    /// does not see it until a message arrives.
    func ensure(_ id: String, caller: Int, peer: Int, in tx: any StorageTransaction) throws {
        if try tx.conversations.exists(id) { return }
        guard try tx.users.info(uid: peer) != nil else { throw APIFailure.notFound("no such user") }
        try tx.conversations.create(id, uidLow: min(caller, peer), uidHigh: max(caller, peer), createdAt: config.clock.nowMs())
        for (uid, hidden) in Self.firstMembers(caller: caller, peer: peer) {
            try tx.conversations.addMember(id, uid: uid, hidden: hidden)
        }
    }

    /// Who a new single chat starts with: the one who wrote first, shown,
    /// and the peer, hidden until a message lands (one's chat with oneself
    /// has one member). A send batch makes its new chats by the same rule.
    static func firstMembers(caller: Int, peer: Int) -> [(uid: Int, hidden: Bool)] {
        caller == peer ? [(caller, false)] : [(caller, false), (peer, true)]
    }

    /// The caller's view of a conversation they are or were in. A group
    /// they were never in is 403 (PROTOCOL.md: non-member), a single chat
    /// not started yet 404.
    func member(_ id: String, uid: Int, in tx: any StorageTransaction) throws -> MemberRow {
        if let rid = ConversationIDHelper.roomId(id) {
            // A room's members are whoever is there; they read its whole history.
            guard try tx.rooms.isPresent(rid, uid: uid) else { throw APIFailure.forbidden("you are not in this room") }
            return MemberRow(conversationId: id, uid: uid, isPinned: false, readSeq: 0, clearedSeq: 0, hidden: false,
                             isImOpened: false)
        }
        guard let m = try tx.conversations.member(id, uid: uid) else {
            if ConversationIDHelper.isGroup(id) { throw APIFailure.forbidden("you are not a member of this group") }
            throw APIFailure.notFound("no such conversation")
        }
        return m
    }

    /// As `member`, and the caller must still be in it (sending, inviting).
    func activeMember(_ id: String, uid: Int, in tx: any StorageTransaction) throws -> MemberRow {
        let m = try member(id, uid: uid, in: tx)
        guard m.isActive else { throw APIFailure.forbidden("you are no longer a member of this group") }
        return m
    }

    func summary(_ id: String, for uid: Int, in tx: any StorageTransaction, deleted: Bool? = nil) throws -> ConversationSummary {
        let m = try member(id, uid: uid, in: tx)
        let maxSeq = try tx.conversations.maxSeq(of: id) ?? 0
        let floor = max(m.clearedSeq, m.joinedSeq)
        let last = try tx.messages.lastVisible(in: id, after: floor, upTo: m.ceilingSeq, for: uid)
        let unread = try tx.messages.unreadCount(in: id, after: max(m.readSeq, floor), upTo: m.ceilingSeq, notFrom: uid)
        let created = try tx.conversations.createdAt(of: id) ?? 0
        var s = ConversationSummary(
            conversationId: id, userId: "", showName: "", isPinned: m.isPinned, unreadCount: unread, lastMessage: last?.wire,
            lastMessageTime: last?.sendTime ?? created, maxSeq: min(maxSeq, m.ceilingSeq), readSeq: m.readSeq,
            isImOpened: m.isImOpened, deleted: deleted, isMuted: m.isMuted, mentionSeq: m.mentionSeq)
        if let gid = ConversationIDHelper.groupId(id) {
            let group = try tx.groups.group(gid)
            s.showName = group?.name ?? ""
            s.groupId = gid
            s.memberCount = try tx.conversations.activeMemberCount(id)
            s.isMember = m.isActive
            s.isImOpened = true
        } else {
            let peer = ConversationIDHelper.peerUid(in: id, myUid: uid) ?? 0
            let info = try tx.users.info(uid: peer)
            s.userId = ConversationIDHelper.imUid(peer)
            s.showName = info?.username ?? ""
            s.faceURL = info?.avatar ?? ""
            s.isOnline = try presence.isOnline(peer, seenBy: uid, in: tx)
            if try ReceiptService.sharesReads(uid, peer, in: tx) {
                s.peerReadSeq = try tx.conversations.member(id, uid: peer)?.readSeq
            }
        }
        return s
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
        if case .room = try Self.target(of: conversationId, caller: caller) {
            throw APIFailure.invalid("rooms are not in the conversation list: nothing to pin, mute, read or clear")
        }
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

    func mute(caller: Int, conversationId: String, isMuted: Bool) throws -> ConversationSummary {
        try updateMember(caller: caller, conversationId: conversationId) { m, _ in m.isMuted = isMuted }
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
