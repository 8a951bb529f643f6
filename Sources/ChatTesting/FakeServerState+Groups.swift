import ChatCore
import ChatSync
import Foundation

/// The fake server's groups (PROTOCOL.md "Groups", "Mentions"): every
/// membership change or edit is a system notice in the group's timeline and
/// a `group` event to everyone concerned, as on the real server.
extension FakeServerState {
    // MARK: - Reading

    func groupConversation(_ gid: Int) throws -> Conversation {
        guard gid > 0, let conv = conversations[ConversationIDHelper.group(gid)], conv.group != nil else {
            throw Self.refuse(.notFound, "no such group")
        }
        return conv
    }

    /// The group, for one of its current members.
    func memberGroup(_ gid: Int, caller: Int) throws -> Conversation {
        let conv = try groupConversation(gid)
        guard conv.members[caller]?.leftSeq == nil, conv.members[caller] != nil else {
            throw Self.refuse(.forbidden, "you are not in this group")
        }
        return conv
    }

    func info(_ conv: Conversation) -> GroupInfo {
        let g = conv.group!
        return GroupInfo(groupId: g.gid, name: g.name, uniqueName: g.uniqueName, notice: g.notice,
                         ownerId: ConversationIDHelper.imUid(g.owner), memberCount: conv.audience.count,
                         joinable: g.joinable, createdAt: g.createdAt)
    }

    func groupInfo(caller: Int, gid: Int) throws -> GroupInfo { info(try memberGroup(gid, caller: caller)) }

    func lookup(uniqueName: String) throws -> GroupInfo {
        guard let conv = conversations.values.first(where: { $0.group?.uniqueName == uniqueName }), conv.group!.joinable else {
            throw Self.refuse(.notFound, "no joinable group named \(uniqueName.prefix(40))")
        }
        return info(conv)
    }

    func members(caller: Int, gid: Int, after: Int, limit: Int) throws -> GroupMembersResponse {
        guard (1...500).contains(limit) else { throw Self.refuse(.invalidRequest, "limit must be 1-500") }
        let conv = try memberGroup(gid, caller: caller)
        let rows = conv.audience.filter { $0 > after }
        let members = rows.prefix(limit).map { uid in
            GroupMember(uid: uid, username: users[uid]?.username ?? "", role: uid == conv.group!.owner ? "owner" : "member",
                        joinedAt: conv.members[uid]!.joinedAt, account: users[uid]?.account)
        }
        return GroupMembersResponse(members: members, hasMore: rows.count > limit)
    }

    // MARK: - Sending in a group

    /// One-to-one-only contents and fields are refused in a group (400).
    func checkGroupSend(_ id: String, caller: Int, payload: MessageContent, receiveId: String?) throws {
        guard conversations[id]?.members[caller]?.leftSeq == nil else {
            throw Self.refuse(.forbidden, "you are no longer in this group")
        }
        switch payload {
        case .flashImage, .flashViewed, .signalQuote:
            throw Self.refuse(.invalidRequest, "flash images and signal quotes are for single chats only")
        default: break
        }
        if let receiveId, !receiveId.isEmpty { throw Self.refuse(.invalidRequest, "receive_id is for single chats only") }
    }

    /// Who a mention names, never the sender: each id must be in the
    /// conversation (400), `@all` only from a group's owner (403).
    func mentionedMembers(_ payload: MessageContent, caller: Int, in id: String, peer: Int?) throws -> [Int] {
        guard case .mention(let p) = payload else { return [] }
        let audience = peer.map { [caller, $0] } ?? conversations[id]!.audience
        var named: [Int] = []
        for imUid in p.atUserIDs {
            guard let uid = ConversationIDHelper.uid(fromImUid: imUid), audience.contains(uid) else {
                throw Self.refuse(.invalidRequest, "\(imUid.prefix(40)) is not a member of this conversation")
            }
            named.append(uid)
        }
        if p.atAll {
            guard conversations[id]?.group?.owner == caller else {
                throw Self.refuse(.forbidden, "only the group's owner may mention everyone")
            }
            named = audience
        }
        return Array(Set(named)).filter { $0 != caller }.sorted()
    }

    // MARK: - Membership

    mutating func createGroup(caller: Int, _ r: CreateGroupRequest) throws -> GroupInfo {
        guard GroupRules.isValidName(r.name) else { throw Self.refuse(.invalidRequest, "name must be 1-64 characters") }
        guard GroupRules.isValidUniqueName(r.uniqueName) else {
            throw Self.refuse(.invalidRequest, "unique_name must be 3-32 of a-z, 0-9 and _")
        }
        let noticeText = r.notice ?? ""
        guard noticeText.count <= GroupRules.noticeMaxLength else { throw Self.refuse(.tooLarge, "notice is too long") }
        var invited: [Int] = []
        for uid in r.memberIds ?? [] where uid != caller && !invited.contains(uid) { invited.append(uid) }
        guard invited.count + 1 <= maxGroupMembers else { throw full() }
        guard !conversations.values.contains(where: { $0.group?.uniqueName == r.uniqueName }) else {
            throw Self.refuse(.conflict, "a group named \(r.uniqueName) exists")
        }
        for uid in invited { _ = try user(uid) }
        let now = tick()
        let gid = nextGid
        nextGid += 1
        let id = ConversationIDHelper.group(gid)
        var conv = Conversation(id: id, createdAt: now)
        conv.group = Group(gid: gid, name: r.name, uniqueName: r.uniqueName, notice: noticeText, owner: caller, createdAt: now)
        for uid in [caller] + invited { conv.members[uid] = Member(joinedAt: now) }
        conversations[id] = conv
        try notice(ContentType.groupCreated, in: id, by: caller, users: invited)
        return try announce(id, joined: [caller] + invited)
    }

    mutating func join(caller: Int, uniqueName: String) throws -> ConversationSummary {
        guard let id = conversations.values.first(where: { $0.group?.uniqueName == uniqueName })?.id else {
            throw Self.refuse(.notFound, "no group named \(uniqueName.prefix(40))")
        }
        if conversations[id]!.members[caller]?.leftSeq != nil || conversations[id]!.members[caller] == nil {
            guard conversations[id]!.group!.joinable else { throw Self.refuse(.forbidden, "this group is not open to join by name") }
            try admit([caller], to: id)
            try notice(ContentType.memberJoined, in: id, by: caller, users: [caller])
            _ = try announce(id, joined: [caller])
        }
        return try summary(id, for: caller)
    }

    mutating func invite(caller: Int, gid: Int, userIds: [Int]) throws -> GroupInfo {
        guard !userIds.isEmpty, userIds.count <= maxGroupMembers else {
            throw Self.refuse(.invalidRequest, "user_ids must hold 1-\(maxGroupMembers) ids")
        }
        let id = try memberGroup(gid, caller: caller).id
        for uid in userIds { _ = try user(uid) }
        var newcomers: [Int] = []
        for uid in userIds where !newcomers.contains(uid) && !conversations[id]!.audience.contains(uid) { newcomers.append(uid) }
        guard !newcomers.isEmpty else { return info(conversations[id]!) }
        try admit(newcomers, to: id)
        try notice(ContentType.memberInvited, in: id, by: caller, users: newcomers)
        return try announce(id, joined: newcomers)
    }

    mutating func leave(caller: Int, gid: Int) throws {
        let id = try memberGroup(gid, caller: caller).id
        let seq = try notice(ContentType.memberLeft, in: id, by: caller, users: [caller])
        conversations[id]!.members[caller]!.leftSeq = seq
        if conversations[id]!.group!.owner == caller {
            let heir = conversations[id]!.members.filter { $0.value.leftSeq == nil }
                .min { ($0.value.joinedAt, $0.key) < ($1.value.joinedAt, $1.key) }?.key
            if let heir {
                conversations[id]!.group!.owner = heir
                try notice(ContentType.ownerChanged, in: id, by: caller, users: [heir])
            } else {
                // The last one out: the group is gone and its name free again.
                conversations[id]!.group!.uniqueName = ""
                conversations[id]!.group!.joinable = false
            }
        }
        _ = try announce(id, removed: [caller])
    }

    mutating func kick(caller: Int, gid: Int, userId: Int) throws {
        let conv = try memberGroup(gid, caller: caller)
        guard conv.group!.owner == caller else { throw Self.refuse(.forbidden, "only the group's owner can remove members") }
        guard userId != caller else { throw Self.refuse(.invalidRequest, "the owner leaves with /group/leave") }
        guard conv.audience.contains(userId) else { throw Self.refuse(.notFound, "user \(userId) is not a member of this group") }
        let seq = try notice(ContentType.memberKicked, in: conv.id, by: caller, users: [userId])
        conversations[conv.id]!.members[userId]!.leftSeq = seq
        _ = try announce(conv.id, removed: [userId])
    }

    mutating func updateGroup(caller: Int, _ r: UpdateGroupRequest) throws -> GroupInfo {
        guard r.name != nil || r.notice != nil || r.joinable != nil else {
            throw Self.refuse(.invalidRequest, "give at least one of name, notice, joinable")
        }
        if let name = r.name, !GroupRules.isValidName(name) { throw Self.refuse(.invalidRequest, "name must be 1-64 characters") }
        if let notice = r.notice, notice.count > GroupRules.noticeMaxLength { throw Self.refuse(.tooLarge, "notice is too long") }
        let conv = try memberGroup(r.groupId, caller: caller)
        guard conv.group!.owner == caller else { throw Self.refuse(.forbidden, "only the group's owner can change it") }
        let renamed = r.name.flatMap { $0 == conv.group!.name ? nil : $0 }
        let renoticed = r.notice.flatMap { $0 == conv.group!.notice ? nil : $0 }
        if let renamed { conversations[conv.id]!.group!.name = renamed }
        if let renoticed { conversations[conv.id]!.group!.notice = renoticed }
        if let joinable = r.joinable { conversations[conv.id]!.group!.joinable = joinable }
        if renamed != nil || renoticed != nil {
            try notice(ContentType.groupInfoChanged, in: conv.id, by: caller, users: [], name: renamed, notice: renoticed)
        }
        return try announce(conv.id)
    }

    mutating func mute(caller: Int, _ id: String, isMuted: Bool) throws -> ConversationSummary {
        try updateMember(caller: caller, id) { m, _ in m.isMuted = isMuted }
    }

    // MARK: - Parts

    private mutating func admit(_ uids: [Int], to id: String) throws {
        guard conversations[id]!.audience.count + uids.count <= maxGroupMembers else { throw full() }
        let seq = conversations[id]!.messages.count
        for uid in uids {
            var m = conversations[id]!.members[uid] ?? Member()
            m.joinedSeq = seq
            m.leftSeq = nil
            m.joinedAt = nowMs
            m.readSeq = max(m.readSeq, seq)
            m.hidden = false
            conversations[id]!.members[uid] = m
        }
    }

    /// A system notice in the timeline; returns its seq.
    @discardableResult
    private mutating func notice(_ type: Int, in id: String, by op: Int, users: [Int], name: String? = nil,
                                 notice: String? = nil) throws -> Int {
        var names: [String: String] = [:]
        for uid in Set([op] + users) { names[ConversationIDHelper.imUid(uid)] = self.users[uid]?.username }
        let payload = GroupNoticePayload(contentType: type, opUser: ConversationIDHelper.imUid(op),
                                         users: users.map(ConversationIDHelper.imUid), name: name, notice: notice,
                                         userNames: names)
        // Written before the one leaving or kicked is taken out, so they hear of it too.
        return try append(id, sender: op, peer: nil, clientMsgID: "group:\(type):\(nextServerMsg + 1)", contentType: type,
                          content: payload.jsonText, isControl: false).wire.seq
    }

    /// Logs the group to every member and to the removed, and the
    /// conversation to those who joined or left.
    private mutating func announce(_ id: String, joined: [Int] = [], removed: [Int] = []) throws -> GroupInfo {
        let info = info(conversations[id]!)
        for uid in Set(conversations[id]!.audience).union(removed).sorted() { log(.group(info), to: uid) }
        for uid in joined + removed { log(.conversation(try summary(id, for: uid)), to: uid) }
        return info
    }

    private func full() -> APIError {
        Self.refuse(.invalidRequest, "a group holds at most \(maxGroupMembers) members")
    }
}
