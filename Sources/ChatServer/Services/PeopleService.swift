import ChatCore
import Foundation

/// Friends, friend requests, blocking and the strangers setting
/// (PROTOCOL.md v3 "People"). A friend is someone both sides agreed on; a
/// stranger can still write unless the receiver takes friends only; a block
/// ends a friendship and its requests and refuses the blocked user's single
/// chats and requests. Both sides hear of each change in their logs
/// (`contact`, `friend_request`).
final class PeopleService: Sendable {
    static let maxRequestMessage = 100
    static let maxRemark = 64

    let storage: any ChatStorage
    let config: ServerConfig
    let syncLog: SyncLogService
    let conversations: ConversationService
    let notices: CommitNotifier

    init(storage: any ChatStorage, config: ServerConfig, syncLog: SyncLogService, notices: CommitNotifier,
         conversations: ConversationService) {
        self.conversations = conversations
        self.storage = storage
        self.config = config
        self.syncLog = syncLog
        self.notices = notices
    }

    /// One change's transaction and the log entries it leaves, told to the
    /// sockets after the commit.
    final class Change {
        let service: PeopleService
        let tx: any StorageTransaction
        var cursors: [Int: Int] = [:]
        init(service: PeopleService, tx: any StorageTransaction) { self.service = service; self.tx = tx }

        func log(_ event: SyncEvent, to uid: Int) throws {
            cursors[uid] = try service.syncLog.append(event, to: uid, in: tx)
        }

        /// Both sides hear of the request's new state.
        func announce(_ row: FriendRequestRow) throws -> FriendRequest {
            let request = try service.request(row, in: tx)
            for uid in [row.fromUid, row.toUid] { try log(.friendRequest(request), to: uid) }
            return request
        }

        /// `uid` hears that `peer` is (or, `removed`, is no longer) their friend.
        func announceContact(of uid: Int, peer: Int, removed: Bool = false) throws {
            guard let info = try tx.users.info(uid: peer) else { return }
            let row = try tx.people.friend(uid, peer)
            try log(.contact(Contact(user: info, remark: row?.remark ?? "", since: row?.since ?? 0), removed: removed), to: uid)
        }

        /// Makes `a` and `b` friends and tells both.
        func befriend(_ a: Int, _ b: Int) throws {
            try tx.people.addFriends(a, b, since: service.config.clock.nowMs())
            try announceContact(of: a, peer: b)
            try announceContact(of: b, peer: a)
        }

        /// Ends `a` and `b`'s friendship, if any, and tells both.
        func unfriend(_ a: Int, _ b: Int) throws {
            guard try tx.people.removeFriends(a, b) else { return }
            try announceContact(of: a, peer: b, removed: true)
            try announceContact(of: b, peer: a, removed: true)
        }
    }

    private func change<T>(_ body: (any StorageTransaction, Change) throws -> T) throws -> T {
        let (result, cursors) = try storage.write { tx -> (T, [Int: Int]) in
            let c = Change(service: self, tx: tx)
            return (try body(tx, c), c.cursors)
        }
        notices.committed(cursors)
        return result
    }

    // MARK: Requests

    /// Asks `userId` to be friends. Answers `created: false` with the
    /// accepted request when they already are friends, or when the other side
    /// had asked first (that request is accepted).
    func request(caller: Int, userId: Int, message raw: String?) throws -> (request: FriendRequest, created: Bool) {
        guard userId != caller else { throw APIFailure.invalid("you cannot befriend yourself") }
        let message = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard message.count <= Self.maxRequestMessage else {
            throw APIFailure.invalid("message must be at most \(Self.maxRequestMessage) characters")
        }
        return try change { tx, c in
            try self.existingUser(userId, in: tx)
            if try tx.people.blocks(userId, caller) { throw APIFailure(.blocked, "this user does not take your requests") }
            if try tx.people.blocks(caller, userId) { throw APIFailure.invalid("you blocked this user; unblock them first") }
            if try tx.people.friend(caller, userId) != nil {
                // The request that made the friendship, whichever side asked (an older one may be declined).
                let rows = [try tx.people.request(from: caller, to: userId), try tx.people.request(from: userId, to: caller)]
                if let row = rows.compactMap({ $0 }).first(where: { $0.status == .accepted }) { return (try self.request(row, in: tx), false) }
                let now = self.config.clock.nowMs()
                let id = try tx.people.putRequest(from: caller, to: userId, message: message, status: .accepted, createdAt: now)
                return (try self.request(FriendRequestRow(id: id, fromUid: caller, toUid: userId, message: message,
                                                          status: .accepted, createdAt: now), in: tx), false)
            }
            if var theirs = try tx.people.request(from: userId, to: caller), theirs.status == .pending {
                theirs.status = .accepted
                try tx.people.setRequestStatus(id: theirs.id, .accepted)
                try c.befriend(caller, userId)
                return (try c.announce(theirs), false)
            }
            // PROTOCOL.md v4: a declined sender waits out the cool-down
            // (the receiver is not told again), and nobody asks without end.
            let quotas = Quotas(config: self.config)
            try quotas.checkCooldown(sender: caller, receiver: userId, in: tx)
            try quotas.take(.friendRequests, by: caller, in: tx)
            let now = self.config.clock.nowMs()
            let id = try tx.people.putRequest(from: caller, to: userId, message: message, status: .pending, createdAt: now)
            let row = FriendRequestRow(id: id, fromUid: caller, toUid: userId, message: message, status: .pending, createdAt: now)
            return (try c.announce(row), true)
        }
    }

    /// Pending requests the caller received and sent, oldest first.
    func requests(caller: Int) throws -> FriendRequestsResponse {
        try storage.read { tx in
            let rows = try tx.people.pendingRequests(involving: caller)
            return FriendRequestsResponse(incoming: try rows.filter { $0.toUid == caller }.map { try self.request($0, in: tx) },
                                          outgoing: try rows.filter { $0.fromUid == caller }.map { try self.request($0, in: tx) })
        }
    }

    /// The receiver accepts or declines a pending request.
    func respond(caller: Int, requestId: Int, accept: Bool) throws -> FriendRequest {
        try change { tx, c in
            guard var row = try tx.people.request(id: requestId), row.fromUid == caller || row.toUid == caller else {
                throw APIFailure.notFound("no friend request \(requestId)")
            }
            guard row.toUid == caller else { throw APIFailure.forbidden("only the request's receiver can answer it") }
            guard row.status == .pending else {
                throw APIFailure.invalid("this request was already \(row.status.rawValue)")
            }
            row.status = accept ? .accepted : .declined
            try tx.people.setRequestStatus(id: row.id, row.status)
            if accept {
                try c.befriend(row.fromUid, row.toUid)
            } else {
                try Quotas(config: self.config).noteDeclined(sender: row.fromUid, receiver: row.toUid, in: tx)
            }
            return try c.announce(row)
        }
    }

    // MARK: Friends

    /// The caller's friends, by the name they see (remark, else display name).
    func friends(caller: Int) throws -> [Contact] {
        try storage.read { tx in
            try tx.people.friends(of: caller).compactMap { row in
                try tx.users.info(uid: row.peerUid).map { Contact(user: $0, remark: row.remark, since: row.since) }
            }
        }.sorted { ($0.shownName, $0.uid) < ($1.shownName, $1.uid) }
    }

    /// Ends a friendship both ways; nothing when there was none.
    func remove(caller: Int, userId: Int) throws {
        try change { _, c in try c.unfriend(caller, userId) }
    }

    /// The caller's own name for a friend; `""` clears it.
    func remark(caller: Int, userId: Int, remark raw: String) throws -> Contact {
        let remark = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard remark.count <= Self.maxRemark else { throw APIFailure.invalid("remark must be at most \(Self.maxRemark) characters") }
        return try change { tx, c in
            guard let row = try tx.people.friend(caller, userId), let info = try tx.users.info(uid: userId) else {
                throw APIFailure.notFound("user \(userId) is not your friend")
            }
            try tx.people.setRemark(remark, uid: caller, peer: userId)
            let contact = Contact(user: info, remark: remark, since: row.since)
            try c.log(.contact(contact, removed: false), to: caller)
            return contact
        }
    }

    // MARK: Blocking

    /// Blocks a user: ends the friendship and pending requests both ways.
    func block(caller: Int, userId: Int) throws {
        guard userId != caller else { throw APIFailure.invalid("you cannot block yourself") }
        try change { tx, c in
            try self.existingUser(userId, in: tx)
            try tx.people.block(caller, userId, at: self.config.clock.nowMs())
            try c.unfriend(caller, userId)
            for var row in try tx.people.pendingRequests(involving: caller)
            where row.fromUid == userId || row.toUid == userId {
                row.status = .declined
                try tx.people.setRequestStatus(id: row.id, .declined)
                _ = try c.announce(row)
            }
        }
        notices.hidden(caller, userId)
    }

    func unblock(caller: Int, userId: Int) throws {
        _ = try storage.write { tx in try tx.people.unblock(caller, userId) }
    }

    /// Whom the caller blocked, most recent first.
    func blocked(caller: Int) throws -> [UserBasicInfo] {
        try storage.read { tx in try tx.people.blocked(by: caller).compactMap { try tx.users.info(uid: $0) } }
    }

    // MARK: Settings

    func settings(caller: Int) throws -> UserSettings {
        try storage.read { tx in try tx.users.settings(uid: caller) }
    }

    /// Applies the fields `change` has; the others stay. Sharing reads
    /// turned on or off shows at once on both sides of each one-to-one chat
    /// (`peerReadSeq` comes or goes with a new summary).
    func setSettings(caller: Int, _ change: SettingsChange) throws -> UserSettings {
        guard !change.isEmpty else { throw APIFailure.invalid("give at least one of accept_strangers, share_typing, share_read") }
        let (settings, cursors) = try storage.write { tx -> (UserSettings, [Int: Int]) in
            let before = try tx.users.settings(uid: caller)
            let settings = before.applying(change)
            try tx.users.setSettings(settings, uid: caller)
            var cursors: [Int: Int] = [:]
            guard settings.shareRead != before.shareRead else { return (settings, cursors) }
            for (id, peer) in try tx.conversations.visiblePeers(of: caller) {
                // A chat the caller deleted stays deleted: a summary would show it again.
                let sides = try tx.conversations.member(id, uid: caller)?.hidden == true ? [peer] : [caller, peer]
                for uid in sides {
                    let summary = try conversations.summary(id, for: uid, in: tx)
                    cursors[uid] = try syncLog.append(.conversation(summary), to: uid, in: tx)
                }
            }
            return (settings, cursors)
        }
        notices.committed(cursors)
        return settings
    }

    // MARK: Parts

    func request(_ row: FriendRequestRow, in tx: any StorageTransaction) throws -> FriendRequest {
        func user(_ uid: Int) throws -> UserBasicInfo { try tx.users.info(uid: uid) ?? UserBasicInfo(uid: uid, username: "") }
        return FriendRequest(requestId: row.id, from: try user(row.fromUid), to: try user(row.toUid), message: row.message,
                             status: row.status, createdAt: row.createdAt)
    }

    private func existingUser(_ uid: Int, in tx: any StorageTransaction) throws {
        guard uid > 0, try tx.users.info(uid: uid) != nil else { throw APIFailure.notFound("no such user") }
    }
}
