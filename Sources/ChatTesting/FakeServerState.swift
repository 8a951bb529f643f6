import ChatCore
import ChatSync
import Foundation

/// The fake server's data and PROTOCOL.md's rules over it, for one-to-one
/// and group chats. Every method runs under the world's lock; none of them
/// suspends.
struct FakeServerState {
    struct User {
        var uid: Int
        var account: String
        var password: String
        var username: String
        var info: UserBasicInfo { UserBasicInfo(uid: uid, username: username, avatar: "", account: account) }
    }

    struct Member {
        var isPinned = false
        var readSeq = 0
        var clearedSeq = 0
        var hidden = false
        var isImOpened = false
        var isMuted = false
        /// The newest seq whose message mentions this member (or everyone).
        var mentionSeq = 0
        /// Groups: the newest seq before they joined (they see what follows)
        /// and the seq of the notice that took them out.
        var joinedSeq = 0
        var leftSeq: Int?
        var joinedAt = 0
    }

    struct Message {
        var wire: WireMessage
        var senderUid: Int
        /// Revoke notices and `flash_viewed`: never unread, never a preview.
        var isControl: Bool
        /// The seq of the revoke notice, once revoked.
        var noticeSeq: Int?
        /// Others' messages count as unread; control messages and group notices do not.
        var countsAsUnread: Bool { !isControl && !ContentType.isGroupNotice(wire.contentType) }
    }

    struct Group {
        var gid: Int
        var name: String
        var uniqueName: String
        var notice = ""
        var joinable = true
        var owner: Int
        var createdAt: Int
    }

    struct Conversation {
        var id: String
        var createdAt: Int
        /// Index `seq - 1`: seqs have no holes.
        var messages: [Message] = []
        var members: [Int: Member] = [:]
        /// Set for a group's conversation (`sg_`).
        var group: Group?
        /// Who hears of a new message: both sides, or a group's current members.
        var audience: [Int] {
            members.filter { group == nil || $0.value.leftSeq == nil }.keys.sorted()
        }
    }

    struct LogEntry {
        var cursor: Int
        var event: SyncEvent
    }

    /// A message that carries an object: the members of its conversation may read it.
    struct Grant: Hashable {
        var conversationId: String
        var seq: Int
    }

    struct MediaObject {
        var data: Data
        var contentType: String
        var uploader: Int
        var grants: Set<Grant> = []
        var destroyed = false
    }

    struct Signal {
        var owner: Int
        var content: String
    }

    struct Reply {
        var signalId: Int
        var from: Int
        var content: String
        var isImOpened = false
    }

    let baseURL: String
    var users: [Int: User] = [:]
    var nextUid = 1
    var conversations: [String: Conversation] = [:]
    var logs: [Int: [LogEntry]] = [:]
    var lastCursor = 0
    /// Cursors below this (other than 0) are older than the kept log: 410.
    var logFloor = 0
    var media: [String: MediaObject] = [:]
    var signals: [Int: Signal] = [:]
    var replies: [Int: Reply] = [:]
    var online: Set<Int> = []
    var nextServerMsg = 0
    var nextGid = 1
    var maxGroupMembers = 500

    var revokeWindowSeconds = 120
    var signedURLSeconds = 3600
    var maxTextCharacters = 4000
    var maxMediaBytes = 20 * 1024 * 1024
    /// The clock: read from the wall once, when the fake is made, so
    /// message times look current; after that only `advanceClock` and
    /// each handed-out time move it.
    let startMs = Int(Date().timeIntervalSince1970 * 1000)
    var clockOffsetMs = 0
    /// The last time handed out: each event gets a later one, so the order
    /// of messages never rests on a tie.
    var lastTimeMs = 0
    /// Users whose log grew since the world last told its listeners.
    var grownLogs: Set<Int> = []

    init(baseURL: String) { self.baseURL = baseURL }

    // MARK: - Time

    var nowMs: Int { max(startMs + clockOffsetMs, lastTimeMs) }

    /// A time later than every one handed out before.
    mutating func tick() -> Int {
        lastTimeMs = max(nowMs, lastTimeMs + 1)
        return lastTimeMs
    }

    // MARK: - Errors

    static func refuse(_ code: APIErrorCode, _ message: String) -> APIError {
        .server(status: code.httpStatus, code: code, rawCode: code.rawValue, message: message, retryAfter: nil)
    }

    // MARK: - Users

    func user(_ uid: Int) throws -> User {
        guard let u = users[uid] else { throw Self.refuse(.notFound, "no such user") }
        return u
    }

    mutating func register(account: String, password: String, username: String?) throws -> User {
        let allowed = account.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        guard (3...32).contains(account.count), allowed else {
            throw Self.refuse(.invalidRequest, "account must be 3-32 of a-z, 0-9 and _")
        }
        guard (8...128).contains(password.count) else { throw Self.refuse(.invalidRequest, "password must be 8-128 characters") }
        guard !users.values.contains(where: { $0.account == account }) else { throw Self.refuse(.conflict, "account is taken") }
        let name = username?.trimmingCharacters(in: .whitespacesAndNewlines)
        let user = User(uid: nextUid, account: account, password: password,
                        username: name?.isEmpty == false ? name! : account)
        users[user.uid] = user
        nextUid += 1
        return user
    }

    func login(account: String, password: String) throws -> User {
        guard let u = users.values.first(where: { $0.account == account }), u.password == password else {
            throw Self.refuse(.unauthorized, "wrong account or password")
        }
        return u
    }

    func search(_ query: String, caller: Int) throws -> [UserBasicInfo] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !q.isEmpty else { return [] }
        guard q.count <= 64 else { throw Self.refuse(.invalidRequest, "q must be at most 64 characters") }
        return users.values
            .filter { $0.uid != caller && ($0.account.lowercased().hasPrefix(q) || $0.username.lowercased().hasPrefix(q)) }
            .sorted { $0.account < $1.account }
            .prefix(20).map(\.info)
    }

    mutating func rename(caller: Int, to raw: String) throws -> UserBasicInfo {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(name.count) else { throw Self.refuse(.invalidRequest, "username must be 1-64 characters") }
        users[caller]?.username = name
        // Everyone who sees a conversation with the caller hears the new name.
        for conv in conversations.values {
            guard let peer = ConversationIDHelper.peerUid(in: conv.id, myUid: caller),
                  conv.members[peer]?.hidden == false else { continue }
            log(.conversation(try summary(conv.id, for: peer)), to: peer)
        }
        return try user(caller).info
    }

    func profiles(_ ids: [Int]) throws -> [UserBasicInfo] {
        guard ids.count <= 1000 else { throw Self.refuse(.invalidRequest, "at most 1000 user_ids") }
        return ids.compactMap { users[$0]?.info }
    }

    // MARK: - Conversations

    /// Checks that the caller is in the conversation (a group's past members
    /// included: they keep reading what they had); returns the peer of a
    /// one-to-one chat, nil for a group.
    func access(_ id: String, caller: Int) throws -> Int? {
        guard ConversationIDHelper.isGroup(id) else { return try Self.peer(of: id, caller: caller) }
        guard conversations[id]?.group != nil else { throw Self.refuse(.notFound, "no such group") }
        guard conversations[id]?.members[caller] != nil else { throw Self.refuse(.forbidden, "you are not in this group") }
        return nil
    }

    /// Checks the id's form and that the caller is in it; returns the peer.
    static func peer(of conversationId: String, caller: Int) throws -> Int {
        guard ConversationIDHelper.parse(conversationId) != nil else {
            throw refuse(.invalidRequest, "conversation id \(conversationId.prefix(80)) is not of the form si_tb_A_tb_B")
        }
        guard let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: caller) else {
            throw refuse(.forbidden, "you are not in this conversation")
        }
        return peer
    }

    /// Creates the conversation if missing; the peer does not see it until
    /// a message arrives.
    mutating func ensure(_ id: String, caller: Int, peer: Int) throws {
        if conversations[id] != nil { return }
        _ = try user(peer)
        var conv = Conversation(id: id, createdAt: tick())
        conv.members[caller] = Member()
        conv.members[peer] = Member(hidden: true)
        conversations[id] = conv
    }

    func member(_ id: String, _ uid: Int) throws -> Member {
        guard let m = conversations[id]?.members[uid] else { throw Self.refuse(.notFound, "no such conversation") }
        return m
    }

    func summary(_ id: String, for uid: Int, deleted: Bool? = nil) throws -> ConversationSummary {
        let m = try member(id, uid)
        let conv = conversations[id]!
        let peer = ConversationIDHelper.peerUid(in: id, myUid: uid) ?? 0
        let info = users[peer]
        // A group member sees from their join to their leaving.
        let floor = max(m.clearedSeq, m.joinedSeq), ceiling = m.leftSeq ?? Int.max
        let seen = conv.messages.filter { $0.wire.seq > floor && $0.wire.seq <= ceiling }
        let last = seen.last { !$0.isControl }
        let unread = seen.filter { $0.wire.seq > m.readSeq && $0.senderUid != uid && $0.countsAsUnread }.count
        var s = ConversationSummary(
            conversationId: id, userId: conv.group == nil ? ConversationIDHelper.imUid(peer) : "",
            showName: conv.group?.name ?? info?.username ?? "",
            isPinned: m.isPinned, unreadCount: unread, lastMessage: last?.wire,
            lastMessageTime: last?.wire.sendTime ?? conv.createdAt, maxSeq: min(conv.messages.count, ceiling),
            readSeq: m.readSeq, isOnline: conv.group == nil && online.contains(peer), isImOpened: m.isImOpened,
            deleted: deleted, isMuted: m.isMuted, mentionSeq: m.mentionSeq)
        if let g = conv.group {
            s.groupId = g.gid
            s.memberCount = conv.audience.count
            s.isMember = m.leftSeq == nil
        }
        return s
    }

    func list(caller: Int) throws -> [ConversationSummary] {
        try conversations.values.filter { $0.members[caller]?.hidden == false }
            .map { try summary($0.id, for: caller) }
            .sorted { ($0.isPinned ? 1 : 0, $0.lastMessageTime, $0.conversationId) > ($1.isPinned ? 1 : 0, $1.lastMessageTime, $1.conversationId) }
    }

    mutating func start(caller: Int, userId: Int) throws -> ConversationSummary {
        guard userId != caller else { throw Self.refuse(.invalidRequest, "you cannot start a conversation with yourself") }
        guard userId > 0 else { throw Self.refuse(.invalidRequest, "user_id must be positive") }
        let id = ConversationIDHelper.make(myUid: caller, targetUid: userId)
        try ensure(id, caller: caller, peer: userId)
        conversations[id]!.members[caller]!.hidden = false
        let s = try summary(id, for: caller)
        log(.conversation(s), to: caller)
        return s
    }

    /// Changes the caller's own view of a conversation and logs it to them.
    mutating func updateMember(caller: Int, _ id: String, deleted: Bool? = nil,
                               _ change: (inout Member, Int) throws -> Void) throws -> ConversationSummary {
        _ = try access(id, caller: caller)
        var m = try member(id, caller)
        try change(&m, conversations[id]!.messages.count)
        conversations[id]!.members[caller] = m
        let s = try summary(id, for: caller, deleted: deleted)
        log(.conversation(s), to: caller)
        return s
    }

    mutating func markRead(caller: Int, _ id: String, seq: Int) throws -> ConversationSummary {
        guard seq >= 0 else { throw Self.refuse(.invalidRequest, "seq must not be negative") }
        return try updateMember(caller: caller, id) { m, maxSeq in m.readSeq = max(m.readSeq, min(seq, maxSeq)) }
    }

    /// Clears the caller's history up to now; `hide` also takes it off their
    /// list until the next message.
    mutating func clear(caller: Int, _ id: String, hide: Bool) throws {
        _ = try updateMember(caller: caller, id, deleted: hide ? true : nil) { m, maxSeq in
            m.clearedSeq = maxSeq
            m.readSeq = max(m.readSeq, maxSeq)
            if hide { m.hidden = true }
        }
    }
}
