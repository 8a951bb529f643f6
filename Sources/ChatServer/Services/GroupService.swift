import ChatCore

/// Groups (PROTOCOL.md "Groups"): creating, finding, joining, inviting,
/// leaving, kicking, editing. Every membership change or edit is one
/// transaction that appends a system notice to the group's timeline (a seq
/// like any message's) and logs a `group` event to everyone concerned.
final class GroupService: Sendable {
    let storage: any ChatStorage
    let config: ServerConfig
    let conversations: ConversationService
    let messages: MessageService
    let media: MediaService
    let syncLog: SyncLogService
    let notices: CommitNotifier

    init(storage: any ChatStorage, config: ServerConfig, conversations: ConversationService, messages: MessageService,
         media: MediaService, syncLog: SyncLogService, notices: CommitNotifier) {
        self.media = media
        self.storage = storage
        self.config = config
        self.conversations = conversations
        self.messages = messages
        self.syncLog = syncLog
        self.notices = notices
    }

    // MARK: Reading

    func info(caller: Int, groupId: Int) throws -> GroupInfo {
        try storage.read { tx in
            let group = try self.memberGroup(groupId, caller: caller, in: tx)
            return try self.info(group, in: tx)
        }
    }

    /// Anyone may look a joinable group up; one that is not is 404, as if
    /// it did not exist.
    func lookup(uniqueName: String) throws -> GroupInfo {
        try storage.read { tx in
            guard let group = try tx.groups.group(uniqueName: uniqueName), !group.dissolved, group.joinable else {
                throw APIFailure.notFound("no joinable group named \(uniqueName.prefix(40))")
            }
            return try self.info(group, in: tx)
        }
    }

    func members(caller: Int, groupId: Int, after: Int, limit: Int) throws -> GroupMembersResponse {
        guard (1...500).contains(limit) else { throw APIFailure.invalid("limit must be 1-500") }
        return try storage.read { tx in
            let group = try self.memberGroup(groupId, caller: caller, in: tx)
            let rows = try tx.conversations.activeMembers(group.conversationId, afterUid: after, limit: limit + 1)
            let members = try rows.prefix(limit).map { row in
                let user = try tx.users.info(uid: row.uid)
                return GroupMember(uid: row.uid, username: user?.username ?? "", role: row.uid == group.ownerUid ? "owner" : "member",
                                   joinedAt: row.joinedAt, account: user?.account)
            }
            return GroupMembersResponse(members: members, hasMore: rows.count > limit)
        }
    }

    // MARK: Membership

    /// `at` dates the group and its first notice (the demo's history).
    func create(caller: Int, _ r: CreateGroupRequest, at time: Int? = nil) throws -> GroupInfo {
        let name = try Self.checkName(r.name)
        guard GroupRules.isValidUniqueName(r.uniqueName) else {
            throw APIFailure.invalid("unique_name must be 3-32 of a-z, 0-9 and _")
        }
        let notice = try Self.checkNotice(r.notice ?? "")
        let invited = Self.distinct((r.memberIds ?? []).filter { $0 != caller })
        guard invited.count + 1 <= config.maxGroupMembers else { throw full() }
        return try change { tx, c in
            guard try tx.groups.group(uniqueName: r.uniqueName) == nil else {
                throw APIFailure(.conflict, "a group named \(r.uniqueName) exists")
            }
            try self.checkUsersExist(invited, in: tx)
            let (invited, notAdded) = try self.consenting(invited, to: caller, in: tx)
            try self.quotas.take(.groups, by: caller, in: tx)
            try self.quotas.take(.invites, amount: invited.count, by: caller, in: tx)
            let now = time ?? self.config.clock.nowMs()
            c.sendTime = time
            let gid = try tx.groups.insert(name: name, uniqueName: r.uniqueName, notice: notice, owner: caller,
                                           joinable: true, createdAt: now)
            let id = ConversationIDHelper.group(gid)
            try tx.conversations.create(id, uidLow: 0, uidHigh: 0, createdAt: now)
            for uid in [caller] + invited {
                try tx.conversations.join(id, uid: uid, joinedSeq: 0, joinedAt: now)
                try tx.syncLog.openSpan(uid: uid, conversationId: id, afterSeq: 0)
            }
            c.group = try tx.groups.group(gid)
            try c.notice(ContentType.groupCreated, by: caller, users: invited)
            var info = try c.announce(joined: [caller] + invited)
            info.notAdded = notAdded
            return info
        }
    }

    func join(caller: Int, uniqueName: String) throws -> ConversationSummary {
        try change { tx, c in
            guard let group = try tx.groups.group(uniqueName: uniqueName), !group.dissolved else {
                throw APIFailure.notFound("no group named \(uniqueName.prefix(40))")
            }
            c.group = group
            let id = group.conversationId
            if try tx.conversations.member(id, uid: caller)?.isActive != true {
                guard group.joinable else { throw APIFailure.forbidden("this group is not open to join by name") }
                try self.admit([caller], to: group, in: tx)
                try c.notice(ContentType.memberJoined, by: caller, users: [caller])
                _ = try c.announce(joined: [caller])
            }
            return try self.conversations.summary(id, for: caller, in: tx)
        }
    }

    func invite(caller: Int, groupId: Int, userIds: [Int]) throws -> GroupInfo {
        guard !userIds.isEmpty, userIds.count <= config.maxGroupMembers else {
            throw APIFailure.invalid("user_ids must hold 1-\(config.maxGroupMembers) ids")
        }
        return try change { tx, c in
            let group = try self.memberGroup(groupId, caller: caller, in: tx)
            c.group = group
            try self.checkUsersExist(userIds, in: tx)
            var asked: [Int] = []
            for uid in Self.distinct(userIds) where try tx.conversations.member(group.conversationId, uid: uid)?.isActive != true {
                asked.append(uid)
            }
            let (newcomers, notAdded) = try self.consenting(asked, to: caller, in: tx)
            var info: GroupInfo
            if newcomers.isEmpty {
                info = try self.info(group, in: tx)
            } else {
                try self.quotas.take(.invites, amount: newcomers.count, by: caller, in: tx)
                try self.admit(newcomers, to: group, in: tx)
                try c.notice(ContentType.memberInvited, by: caller, users: newcomers)
                info = try c.announce(joined: newcomers)
            }
            info.notAdded = notAdded
            return info
        }
    }

    /// The caller leaves; an owner hands over to the earliest joined member,
    /// and the last one out dissolves the group.
    func leave(caller: Int, groupId: Int) throws {
        _ = try change { tx, c in
            let group = try self.memberGroup(groupId, caller: caller, in: tx)
            c.group = group
            try c.notice(ContentType.memberLeft, by: caller, users: [caller])
            try self.remove(caller, from: group, noticeSeq: c.lastSeq, in: tx)
            if group.ownerUid == caller {
                if let heir = try tx.conversations.activeMembers(group.conversationId).first {
                    c.group?.ownerUid = heir
                    try c.notice(ContentType.ownerChanged, by: caller, users: [heir])
                } else {
                    c.group?.dissolved = true
                    c.group?.uniqueName = nil
                }
            }
            return try c.announce(removed: [caller])
        }
    }

    /// The owner ends the group (PROTOCOL.md v4): a 1511 notice closes its
    /// timeline, every member is out and the unique name is free again.
    func dissolve(caller: Int, groupId: Int) throws {
        _ = try change { tx, c in
            let group = try self.memberGroup(groupId, caller: caller, in: tx)
            c.group = group
            guard group.ownerUid == caller else { throw APIFailure.forbidden("only the group's owner can dissolve it") }
            let members = try tx.conversations.activeMembers(group.conversationId)
            try c.notice(ContentType.groupDissolved, by: caller, users: [])
            for uid in members { try self.remove(uid, from: group, noticeSeq: c.lastSeq, in: tx) }
            c.group?.dissolved = true
            c.group?.uniqueName = nil
            return try c.announce(removed: members)
        }
    }

    func kick(caller: Int, groupId: Int, userId: Int) throws {
        _ = try change { tx, c in
            let group = try self.memberGroup(groupId, caller: caller, in: tx)
            c.group = group
            guard group.ownerUid == caller else { throw APIFailure.forbidden("only the group's owner can remove members") }
            guard userId != caller else { throw APIFailure.invalid("the owner leaves with /group/leave") }
            guard try tx.conversations.member(group.conversationId, uid: userId)?.isActive == true else {
                throw APIFailure.notFound("user \(userId) is not a member of this group")
            }
            try c.notice(ContentType.memberKicked, by: caller, users: [userId])
            try self.remove(userId, from: group, noticeSeq: c.lastSeq, in: tx)
            return try c.announce(removed: [userId])
        }
    }

    func update(caller: Int, _ r: UpdateGroupRequest) throws -> GroupInfo {
        guard r.name != nil || r.notice != nil || r.joinable != nil || r.avatar != nil else {
            throw APIFailure.invalid("give at least one of name, notice, joinable, avatar")
        }
        let name = try r.name.map(Self.checkName)
        let notice = try r.notice.map(Self.checkNotice)
        return try change { tx, c in
            let group = try self.memberGroup(r.groupId, caller: caller, in: tx)
            c.group = group
            guard group.ownerUid == caller else { throw APIFailure.forbidden("only the group's owner can change it") }
            let renamed = name.flatMap { $0 == group.name ? nil : $0 }
            let renoticed = notice.flatMap { $0 == group.notice ? nil : $0 }
            if let renamed { c.group?.name = renamed }
            if let renoticed { c.group?.notice = renoticed }
            if let joinable = r.joinable { c.group?.joinable = joinable }
            if let avatar = r.avatar { c.group?.avatar = try self.media.checkAvatar(avatar, caller: caller, in: tx) }
            if renamed != nil || renoticed != nil {
                try c.notice(ContentType.groupInfoChanged, by: caller, users: [], name: renamed, notice: renoticed)
            }
            return try c.announce()
        }
    }

    // MARK: Parts

    /// One membership change: its transaction, its notices, and whom to
    /// tell after the commit.
    final class Change {
        let service: GroupService
        let tx: any StorageTransaction
        var group: GroupRow?
        var cursors: [Int: Int] = [:]
        /// Everyone the change's notices went to.
        var audience: Set<Int> = []
        var lastSeq = 0
        /// The notices' time; nil for now.
        var sendTime: Int?

        init(service: GroupService, tx: any StorageTransaction) { self.service = service; self.tx = tx }

        /// Appends a system notice to the group's timeline, for the members
        /// of the moment (a leaver or kicked member still among them).
        func notice(_ type: Int, by op: Int, users: [Int], name: String? = nil, notice: String? = nil) throws {
            guard let group else { return }
            let members = try tx.conversations.activeMembers(group.conversationId)
            var names: [String: String] = [:]
            for uid in Set([op] + users) { names[ConversationIDHelper.imUid(uid)] = try tx.users.info(uid: uid)?.username }
            let payload = GroupNoticePayload(contentType: type, opUser: ConversationIDHelper.imUid(op),
                                             users: users.map(ConversationIDHelper.imUid), name: name, notice: notice,
                                             userNames: names)
            let row = try service.messages.append(
                conversationId: group.conversationId, sender: op, to: .members(members),
                clientMsgID: "group:\(type):" + MessageService.newServerMsgID(), contentType: type,
                content: payload.jsonText, isControl: false, in: tx, cursors: &cursors, sendTime: sendTime)
            lastSeq = row.seq
            audience.formUnion(members)
        }

        /// Stores the group's changes and logs the `group` event to every
        /// member and to `removed`; `joined` and `removed` also get their
        /// conversation's summary (it appears in, or changes in, their list).
        func announce(joined: [Int] = [], removed: [Int] = []) throws -> GroupInfo {
            guard let group else { throw APIFailure.notFound("no such group") }
            try tx.groups.update(group)
            let info = try service.info(group, in: tx)
            let members = try tx.conversations.activeMembers(group.conversationId)
            if !members.isEmpty {
                let cursor = try service.syncLog.appendShared(.group(info), to: group.conversationId, in: tx)
                for uid in members { cursors[uid] = cursor }
            }
            // Those out of the group by now no longer read its timeline.
            for uid in Set(removed).union(audience).subtracting(members) {
                cursors[uid] = try service.syncLog.append(.group(info), to: uid, in: tx)
            }
            for uid in joined + removed {
                let summary = try service.conversations.summary(group.conversationId, for: uid, in: tx)
                cursors[uid] = try service.syncLog.append(.conversation(summary), to: uid, in: tx)
            }
            return info
        }
    }

    /// Runs `body` in one write transaction and tells the sockets after the commit.
    private func change<T>(_ body: (any StorageTransaction, Change) throws -> T) throws -> T {
        let (result, cursors) = try storage.write { tx -> (T, [Int: Int]) in
            let c = Change(service: self, tx: tx)
            let result = try body(tx, c)
            return (result, c.cursors)
        }
        notices.committed(cursors)
        return result
    }

    /// Adds members from the group's current seq on (they see the notice of
    /// their own arrival, not what came before).
    private func admit(_ uids: [Int], to group: GroupRow, in tx: any StorageTransaction) throws {
        let count = try tx.conversations.activeMemberCount(group.conversationId)
        guard count + uids.count <= config.maxGroupMembers else { throw full() }
        let seq = try tx.conversations.maxSeq(of: group.conversationId) ?? 0
        let now = config.clock.nowMs()
        for uid in uids {
            try tx.conversations.join(group.conversationId, uid: uid, joinedSeq: seq, joinedAt: now)
            try tx.syncLog.openSpan(uid: uid, conversationId: group.conversationId, afterSeq: seq)
        }
    }

    /// Takes a member out after the notice at `noticeSeq`, which they still see.
    private func remove(_ uid: Int, from group: GroupRow, noticeSeq: Int, in tx: any StorageTransaction) throws {
        guard var m = try tx.conversations.member(group.conversationId, uid: uid) else { return }
        m.leftSeq = noticeSeq
        try tx.conversations.update(m)
        try tx.syncLog.closeSpan(uid: uid, conversationId: group.conversationId)
    }

    func info(_ group: GroupRow, in tx: any StorageTransaction) throws -> GroupInfo {
        GroupInfo(groupId: group.gid, name: group.name, uniqueName: group.uniqueName ?? "", notice: group.notice,
                  ownerId: ConversationIDHelper.imUid(group.ownerUid),
                  memberCount: try tx.conversations.activeMemberCount(group.conversationId),
                  joinable: group.joinable, createdAt: group.createdAt, avatar: group.avatar)
    }

    /// A group that exists and is not dissolved.
    private func group(_ gid: Int, in tx: any StorageTransaction) throws -> GroupRow {
        guard gid > 0, let group = try tx.groups.group(gid), !group.dissolved else {
            throw APIFailure.notFound("no such group")
        }
        return group
    }

    /// A group that exists, for a caller who is in it.
    private func memberGroup(_ gid: Int, caller: Int, in tx: any StorageTransaction) throws -> GroupRow {
        let group = try self.group(gid, in: tx)
        _ = try conversations.activeMember(group.conversationId, uid: caller, in: tx)
        return group
    }

    /// Splits those `caller` asks to put in a group into who takes it and
    /// who does not (they blocked the caller, or take friends only and the
    /// caller is not one): the answer names the latter without saying which
    /// rule applied, so a block stays private.
    private func consenting(_ uids: [Int], to caller: Int,
                            in tx: any StorageTransaction) throws -> (accepted: [Int], notAdded: [NotAdded]) {
        var accepted: [Int] = [], notAdded: [NotAdded] = []
        for uid in uids {
            if try tx.people.refuses(receiver: uid, sender: caller) {
                notAdded.append(NotAdded(userId: ConversationIDHelper.imUid(uid)))
            } else {
                accepted.append(uid)
            }
        }
        return (accepted, notAdded)
    }

    private var quotas: Quotas { Quotas(config: config) }

    private func checkUsersExist(_ uids: [Int], in tx: any StorageTransaction) throws {
        for uid in uids {
            guard uid > 0, try tx.users.info(uid: uid) != nil else { throw APIFailure.notFound("no user \(uid)") }
        }
    }

    private func full() -> APIFailure {
        APIFailure.invalid("a group holds at most \(config.maxGroupMembers) members")
    }

    private static func checkName(_ name: String) throws -> String {
        guard GroupRules.isValidName(name) else { throw APIFailure.invalid("name must be 1-64 characters") }
        return name
    }

    private static func checkNotice(_ notice: String) throws -> String {
        guard notice.count <= GroupRules.noticeMaxLength else {
            throw APIFailure(.tooLarge, "notice is longer than \(GroupRules.noticeMaxLength) characters")
        }
        return notice
    }

    private static func distinct(_ uids: [Int]) -> [Int] {
        var seen: Set<Int> = []
        return uids.filter { seen.insert($0).inserted }
    }
}

extension GroupRow {
    var conversationId: String { ConversationIDHelper.group(gid) }
}
