import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

/// The server's business rules, independent of HTTP. Every method that
/// changes data runs in one write transaction (GRDB serialises writers, so
/// seqs are assigned without holes or duplicates) and notifies the push hub
/// only after the commit.
public final class ChatService: Sendable {
    let db: DatabasePool
    let config: ServerConfig
    let hub: PushHub
    let media: MediaStore
    let logger: Logger
    /// Called after a committed send (the demo peers listen here).
    let afterSend = Mutex<AfterSendHook?>(nil)
    private let rate = Mutex<[Int: (second: Int, count: Int)]>([:])
    /// Sends from requests, group-committed.
    let sendWriter: GroupCommitWriter<SendJob, SendWrite>
    let checkpointer: Checkpointer
    /// Token hash -> uid of tokens seen valid; a logout removes its entry
    /// and moves `generation`, so a lookup that read the database before the
    /// logout cannot put the token back.
    private struct TokenCache {
        var uids: [String: Int] = [:]
        var generation = 0
    }
    private let tokenCache = Mutex(TokenCache())

    init(config: ServerConfig, hub: PushHub) throws {
        self.config = config
        self.hub = hub
        self.logger = config.logger
        try StorePermissions.makePrivateDirectory(config.dataDir)
        var dbConfig = Configuration()
        dbConfig.busyMode = .timeout(10)
        dbConfig.prepareDatabase { db in
            try db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute()
            // Each send of a group commit runs in its own savepoint, and
            // SQLite journals every page a savepoint changes; past 64 KiB
            // that journal spilled into a temp file, two pwrite calls per page
            // (most of the writer's system calls). In memory it is a few
            // pages per send, dropped when the savepoint is released.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Checkpoints run beside the writer (Checkpointer); SQLite's own,
            // inside a commit, only if that falls far behind.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Checkpointer.restartFrames * 2)")
        }
        let old = umask(0o077)
        defer { umask(old) }
        db = try DatabasePool(path: config.databasePath, configuration: dbConfig)
        // Sends use RETURNING (SQLite 3.35, 2021): say so at start, not on the first send.
        let version = try db.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") } ?? "0"
        let parts = version.split(separator: ".").map { Int($0) ?? 0 } + [0, 0]
        guard (parts[0], parts[1]) >= (3, 35) else {
            throw ServerSetupError(description: "tongban-server needs SQLite 3.35 or newer (for RETURNING); this libsqlite3 is \(version)")
        }
        try ServerMigrations.migrator.migrate(db)
        media = try MediaStore(directory: config.mediaDir, secretPath: config.secretPath)
        let writer = GroupCommitWriter<SendJob, SendWrite>(db: db, label: "tongban.send-writer", maxBatch: 256)
        sendWriter = writer
        checkpointer = try Checkpointer(path: config.databasePath, logger: config.logger,
                                        onWriter: { work in writer.beforeNextBatch(work) })
        sendWriter.configure(body: { [unowned self] job, db in try self.writeSend(job, db: db) },
                             committed: { [unowned self] writes in
                                 // A viewed flash image's file is gone before the viewer hears "done".
                                 for key in writes.compactMap(\.destroyedKey) { self.media.delete(key: key) }
                             },
                             finish: { [unowned self] writes in self.finishSends(writes) })
    }

    /// The server's time (`ServerConfig.clock`), in Unix milliseconds and seconds.
    func nowMs() -> Int { config.clock.nowMs() }
    func nowS() -> Int { config.clock.nowMs() / 1000 }

    // MARK: - Accounts

    static var accountPattern: Regex<Substring> { /^[a-z0-9_]{3,32}$/ }

    /// `seeded` skips the 3-character minimum: the demo's `me` account is
    /// made by the server itself (PROTOCOL.md's rule binds `/auth/register`).
    public func register(_ r: RegisterRequest, seeded: Bool = false) throws -> AuthResponse {
        guard r.account.wholeMatch(of: Self.accountPattern) != nil || (seeded && r.account == "me") else {
            throw APIFailure.invalid("account must be 3-32 characters of a-z, 0-9 and _")
        }
        guard (8...128).contains(r.password.count) else { throw APIFailure.invalid("password must be 8-128 characters") }
        let username = (r.username?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : $0 } ?? r.account
        guard username.count <= 64 else { throw APIFailure.invalid("username must be at most 64 characters") }
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let rounds = max(config.passwordRounds, 100_000)
        let hash = try Self.hashPassword(r.password, salt: salt, rounds: rounds)
        let token = Self.newToken()
        let uid: Int = try db.write { db in
            if try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM user WHERE account = ?"), arguments: [r.account]) != nil {
                throw APIFailure(.conflict, "account \(r.account) is taken")
            }
            try db.cachedStatement(sql: """
                INSERT INTO user(account, username, avatar, pwSalt, pwHash, pwRounds, createdAt) VALUES (?, ?, '', ?, ?, ?, ?)
                """).execute(arguments: [r.account, username, salt, hash, rounds, nowMs()])
            let uid = Int(db.lastInsertedRowID)
            try db.cachedStatement(sql: "INSERT INTO token(hash, uid, createdAt) VALUES (?, ?, ?)").execute(arguments: [Self.tokenHash(token), uid, nowMs()])
            return uid
        }
        return AuthResponse(uid: uid, imUid: ConversationIDHelper.imUid(uid), token: token, username: username)
    }

    private let loginThrottle = Mutex(LoginThrottle(limit: ChatService.maxLoginFailures, windowMs: 60_000))
    static let maxLoginFailures = 10

    public func login(_ r: LoginRequest) throws -> AuthResponse {
        let account = String(r.account.prefix(64))
        if let waitMs = loginThrottle.withLock({ $0.blockedFor(account, now: nowMs()) }) {
            throw APIFailure(.rateLimited, "too many failed logins for this account; try again in a minute",
                             retryAfter: (waitMs + 999) / 1000)
        }
        func failed() -> APIFailure {
            let now = nowMs()
            loginThrottle.withLock { $0.recordFailure(account, now: now) }
            return APIFailure(.unauthorized, "wrong account or password")
        }
        guard let user = try db.read({ db in
            try UserRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE account = ?"), arguments: [r.account])
        }) else {
            // Same cost as a real check, so timing does not reveal accounts.
            _ = try? Self.hashPassword(r.password, salt: Data(count: 16), rounds: max(config.passwordRounds, 100_000))
            throw failed()
        }
        let hash = try Self.hashPassword(r.password, salt: user.pwSalt, rounds: user.pwRounds)
        guard Self.constantTimeEqual(hash, user.pwHash) else { throw failed() }
        let token = Self.newToken()
        try db.write { db in
            try db.cachedStatement(sql: "INSERT INTO token(hash, uid, createdAt) VALUES (?, ?, ?)").execute(arguments: [Self.tokenHash(token), user.uid, nowMs()])
        }
        return AuthResponse(uid: user.uid, imUid: ConversationIDHelper.imUid(user.uid), token: token, username: user.username)
    }

    public func logout(token: String) throws {
        let hash = Self.tokenHash(token)
        try db.write { db in
            try db.cachedStatement(sql: "DELETE FROM token WHERE hash = ?").execute(arguments: [hash])
        }
        tokenCache.withLock { cache in
            cache.uids.removeValue(forKey: hash)
            cache.generation += 1
        }
    }

    /// The uid a bearer token belongs to.
    public func authenticate(token: String) throws -> Int? {
        guard !token.isEmpty, token.count <= 256 else { return nil }
        let hash = Self.tokenHash(token)
        let (cached, generation) = tokenCache.withLock { ($0.uids[hash], $0.generation) }
        if let cached { return cached }
        let uid = try db.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT uid FROM token WHERE hash = ?"), arguments: [hash])
        }
        if let uid {
            tokenCache.withLock { cache in
                guard cache.generation == generation else { return }  // a logout happened meanwhile
                if cache.uids.count >= 100_000 { cache.uids.removeAll(keepingCapacity: true) }
                cache.uids[hash] = uid
            }
        }
        return uid
    }

    /// Fixed one-second window per user; `rate_limited` with Retry-After.
    func checkRate(uid: Int) throws {
        let limit = config.rateLimitPerSecond
        guard limit > 0 else { return }
        let now = nowS()
        let allowed = rate.withLock { table -> Bool in
            var entry = table[uid] ?? (now, 0)
            if entry.second != now { entry = (now, 0) }
            entry.count += 1
            table[uid] = entry
            if table.count > 10_000 { table = table.filter { $0.value.second == now } }
            return entry.count <= limit
        }
        if !allowed { throw APIFailure(.rateLimited, "too many requests; slow down", retryAfter: 1) }
    }

    static func hashPassword(_ password: String, salt: Data, rounds: Int) throws -> Data {
        // The checked API insists on 210,000; rounds below 100,000 are refused above.
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Data(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: 32, unsafeUncheckedRounds: max(rounds, 100_000))
        return key.withUnsafeBytes { Data($0) }
    }

    static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }

    static func tokenHash(_ token: String) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }

    // MARK: - Users

    public func user(uid: Int) throws -> UserBasicInfo {
        guard let info = try db.read({ db in try Self.userInfo(uid, db: db) }) else { throw APIFailure.notFound("no such user") }
        return info
    }

    static func userInfo(_ uid: Int, db: Database) throws -> UserBasicInfo? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT uid, username, avatar, account FROM user WHERE uid = ?"), arguments: [uid]).map {
            UserBasicInfo(uid: $0["uid"], username: $0["username"], avatar: $0["avatar"], account: $0["account"])
        }
    }

    public func searchUsers(query: String, caller: Int) throws -> [UserBasicInfo] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty else { return [] }
        guard q.count <= 64 else { throw APIFailure.invalid("q must be at most 64 characters") }
        let escaped = q.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try db.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT uid, username, avatar, account FROM user
                WHERE uid <> ? AND (account LIKE ? ESCAPE '\\' OR username LIKE ? ESCAPE '\\')
                ORDER BY account LIMIT 20
                """), arguments: [caller, escaped, escaped]).map {
                UserBasicInfo(uid: $0["uid"], username: $0["username"], avatar: $0["avatar"], account: $0["account"])
            }
        }
    }

    /// A new display name. Everyone with a visible conversation with the
    /// caller gets a `conversation` event carrying the new `showName`
    /// (PROTOCOL.md's sync: "profile"), so their lists follow at once.
    public func rename(caller: Int, username raw: String) throws -> UserBasicInfo {
        let username = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(username.count) else { throw APIFailure.invalid("username must be 1-64 characters") }
        let (info, cursors) = try db.write { db -> (UserBasicInfo?, [Int: Int]) in
            try db.cachedStatement(sql: "UPDATE user SET username = ? WHERE uid = ?").execute(arguments: [username, caller])
            var cursors: [Int: Int] = [:]
            let peers = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT peer.conversationId, peer.uid FROM member me
                JOIN member peer ON peer.conversationId = me.conversationId AND peer.uid <> me.uid
                WHERE me.uid = ? AND peer.hidden = 0
                """), arguments: [caller])
            for row in peers {
                let (id, uid): (String, Int) = (row[0], row[1])
                cursors[uid] = try self.log(.conversation(try self.summary(id, for: uid, db: db)), to: uid, db: db)
            }
            return (try Self.userInfo(caller, db: db), cursors)
        }
        notifyCommitted(cursors)
        guard let info else { throw APIFailure.notFound("no such user") }
        return info
    }

    public func profiles(_ ids: [Int]) throws -> [UserBasicInfo] {
        guard ids.count <= 1000 else { throw APIFailure.invalid("at most 1000 user_ids") }
        return try db.read { db in try ids.compactMap { try Self.userInfo($0, db: db) } }
    }

    // MARK: - Conversations

    /// Checks the id's form and that the caller is in it; returns the peer.
    func peer(of conversationId: String, caller: Int) throws -> Int {
        guard ConversationIDHelper.parse(conversationId) != nil else {
            throw APIFailure.invalid("conversation id \(conversationId.prefix(80)) is not of the form si_tb_A_tb_B")
        }
        guard let peer = ConversationIDHelper.peerUid(in: conversationId, myUid: caller) else {
            throw APIFailure.forbidden("you are not in this conversation")
        }
        return peer
    }

    /// Creates the conversation and both member rows if missing.
    func ensureConversation(_ id: String, caller: Int, peer: Int, db: Database) throws {
        if try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"), arguments: [id]) != nil { return }
        guard try Self.userInfo(peer, db: db) != nil else { throw APIFailure.notFound("no such user") }
        try db.cachedStatement(sql: """
            INSERT INTO conversation(id, uidLow, uidHigh, maxSeq, createdAt) VALUES (?, ?, ?, 0, ?)
            ON CONFLICT(id) DO NOTHING
            """).execute(arguments: [id, min(caller, peer), max(caller, peer), nowMs()])
        for (uid, hidden) in [(caller, false), (peer, true)] {
            try db.cachedStatement(sql: """
                INSERT INTO member(conversationId, uid, hidden) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
                """).execute(arguments: [id, uid, hidden])
        }
    }

    func member(_ id: String, uid: Int, db: Database) throws -> MemberRow {
        guard let m = try MemberRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM member WHERE conversationId = ? AND uid = ?"), arguments: [id, uid]) else {
            throw APIFailure.notFound("no such conversation")
        }
        return m
    }

    func summary(_ id: String, for uid: Int, db: Database, deleted: Bool? = nil) throws -> ConversationSummary {
        let m = try member(id, uid: uid, db: db)
        let peer = ConversationIDHelper.peerUid(in: id, myUid: uid) ?? 0
        let info = try Self.userInfo(peer, db: db)
        let maxSeq = try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [id]) ?? 0
        let last = try MessageRow.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM message WHERE conversationId = ? AND seq > ? AND isControl = 0 ORDER BY seq DESC LIMIT 1
            """), arguments: [id, m.clearedSeq])
        let unread = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM message WHERE conversationId = ? AND seq > ? AND senderUid <> ? AND isControl = 0
            """), arguments: [id, max(m.readSeq, m.clearedSeq), uid]) ?? 0
        let created = try Int.fetchOne(db.cachedStatement(sql: "SELECT createdAt FROM conversation WHERE id = ?"), arguments: [id]) ?? 0
        return ConversationSummary(
            conversationId: id, userId: ConversationIDHelper.imUid(peer), showName: info?.username ?? "",
            faceURL: info?.avatar ?? "", isPinned: m.isPinned, unreadCount: unread, lastMessage: last.map(Self.wire),
            lastMessageTime: last?.sendTime ?? created, maxSeq: maxSeq, readSeq: m.readSeq,
            isOnline: hub.isOnline(peer), isImOpened: m.isImOpened, deleted: deleted)
    }

    public func conversations(caller: Int) throws -> [ConversationSummary] {
        try db.read { db in
            let ids = try String.fetchAll(db.cachedStatement(sql: "SELECT conversationId FROM member WHERE uid = ? AND hidden = 0"), arguments: [caller])
            return try ids.map { try self.summary($0, for: caller, db: db) }
                .sorted { ($0.isPinned ? 1 : 0, $0.lastMessageTime) > ($1.isPinned ? 1 : 0, $1.lastMessageTime) }
        }
    }

    public func startConversation(caller: Int, userId: Int) throws -> ConversationSummary {
        guard userId != caller else { throw APIFailure.invalid("you cannot start a conversation with yourself") }
        guard userId > 0 else { throw APIFailure.invalid("user_id must be positive") }
        let id = ConversationIDHelper.make(myUid: caller, targetUid: userId)
        let (summary, cursor) = try db.write { db -> (ConversationSummary, Int) in
            try self.ensureConversation(id, caller: caller, peer: userId, db: db)
            try db.cachedStatement(sql: "UPDATE member SET hidden = 0 WHERE conversationId = ? AND uid = ?").execute(arguments: [id, caller])
            let s = try self.summary(id, for: caller, db: db)
            return (s, try self.log(.conversation(s), to: caller, db: db))
        }
        notifyCommitted([caller: cursor])
        return summary
    }

    /// Changes the caller's own view of a conversation and logs it to them.
    func updateMember(caller: Int, conversationId: String, deleted: Bool? = nil,
                      _ change: (inout MemberRow, Database) throws -> Void) throws -> ConversationSummary {
        _ = try peer(of: conversationId, caller: caller)
        let (summary, cursor) = try db.write { db -> (ConversationSummary, Int) in
            var m = try self.member(conversationId, uid: caller, db: db)
            try change(&m, db)
            try m.update(db)
            let s = try self.summary(conversationId, for: caller, db: db, deleted: deleted)
            return (s, try self.log(.conversation(s), to: caller, db: db))
        }
        notifyCommitted([caller: cursor])
        return summary
    }

    public func pin(caller: Int, conversationId: String, isPinned: Bool) throws -> ConversationSummary {
        try updateMember(caller: caller, conversationId: conversationId) { m, _ in m.isPinned = isPinned }
    }

    public func markRead(caller: Int, conversationId: String, seq: Int) throws -> ConversationSummary {
        guard seq >= 0 else { throw APIFailure.invalid("seq must not be negative") }
        return try updateMember(caller: caller, conversationId: conversationId) { m, db in
            let maxSeq = try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [m.conversationId]) ?? 0
            m.readSeq = max(m.readSeq, min(seq, maxSeq))
        }
    }

    public func clear(caller: Int, conversationId: String, hide: Bool) throws {
        _ = try updateMember(caller: caller, conversationId: conversationId, deleted: hide ? true : nil) { m, db in
            let maxSeq = try Int.fetchOne(db.cachedStatement(sql: "SELECT maxSeq FROM conversation WHERE id = ?"), arguments: [m.conversationId]) ?? 0
            m.clearedSeq = maxSeq
            m.readSeq = max(m.readSeq, maxSeq)
            if hide { m.hidden = true }
        }
    }

    // MARK: - Messages

    static func wire(_ r: MessageRow) -> WireMessage {
        WireMessage(serverMsgID: r.serverMsgID, clientMsgID: r.clientMsgID, conversationId: r.conversationId, seq: r.seq,
                    sendID: r.sendID, recvID: r.recvID, contentType: r.contentType, content: r.content,
                    sendTime: r.sendTime, revoked: r.revoked, flashViewed: r.flashViewed)
    }

    /// An event as stored in the log (message events written directly: one per send).
    static func encodeEvent(_ event: SyncEvent) throws -> String {
        try event.jsonText { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    /// Appends an event to a user's log; returns its cursor.
    @discardableResult
    func log(_ event: SyncEvent, to uid: Int, messageId: Int64? = nil, db: Database) throws -> Int {
        try log(body: Self.encodeEvent(event), to: uid, messageId: messageId, db: db)
    }

    /// Appends an already encoded event (one encoding serves both members).
    func log(body: String, to uid: Int, messageId: Int64?, db: Database) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO event(uid, messageId, body, createdAt) VALUES (?, ?, ?, ?)")
            .execute(arguments: [uid, messageId, body, nowMs()])
        return Int(db.lastInsertedRowID)
    }

    /// Inserts a message with the next seq; logs it to both members.
    func append(conversationId: String, sender: Int, peer: Int, clientMsgID: String, contentType: Int, content: String,
                isControl: Bool, db: Database, cursors: inout [Int: Int], sendTime: Int? = nil,
                serverMsgID: String? = nil) throws -> MessageRow {
        // One statement takes the next seq and hands it back (RETURNING, SQLite ≥ 3.35);
        // none comes back the first time two people talk.
        let nextSeq = try db.cachedStatement(sql: "UPDATE conversation SET maxSeq = maxSeq + 1 WHERE id = ? RETURNING maxSeq")
        var seq = try Int.fetchOne(nextSeq, arguments: [conversationId])
        if seq == nil {
            try ensureConversation(conversationId, caller: sender, peer: peer, db: db)
            seq = try Int.fetchOne(nextSeq, arguments: [conversationId])
        }
        guard let seq else { throw APIFailure.notFound("no such conversation") }
        var row = MessageRow(id: 0, serverMsgID: serverMsgID ?? Self.newServerMsgID(), clientMsgID: clientMsgID,
                             senderUid: sender, conversationId: conversationId, seq: seq,
                             sendID: ConversationIDHelper.imUid(sender), recvID: ConversationIDHelper.imUid(peer),
                             contentType: contentType, content: content, sendTime: sendTime ?? nowMs(), isControl: isControl)
        try db.cachedStatement(sql: """
            INSERT INTO message(serverMsgID, clientMsgID, senderUid, conversationId, seq, sendID, recvID, contentType,
                                content, sendTime, isControl)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [row.serverMsgID, row.clientMsgID, row.senderUid, row.conversationId, row.seq,
                                     row.sendID, row.recvID, row.contentType, row.content, row.sendTime, row.isControl])
        row.id = db.lastInsertedRowID
        // One statement for both members: a new message shows a deleted
        // conversation again, and sending reads what came before.
        try db.cachedStatement(sql: """
            UPDATE member SET hidden = hidden AND clearedSeq >= ?1,
                              readSeq = CASE WHEN uid = ?2 AND ?3 THEN MAX(readSeq, ?1) ELSE readSeq END
            WHERE conversationId = ?4
            """).execute(arguments: [seq, sender, !isControl, conversationId])
        // Both members' log entries in one statement; one encoding serves both.
        let body = try Self.encodeEvent(.message(Self.wire(row)))
        let now = nowMs()
        try db.cachedStatement(sql: """
            INSERT INTO event(uid, messageId, body, createdAt) VALUES (?1, ?3, ?4, ?5), (?2, ?3, ?4, ?5)
            """).execute(arguments: [sender, peer, row.id, body, now])
        // One statement's rows take consecutive cursors, in VALUES order
        // (RETURNING would cost a third of the statement again).
        let last = Int(db.lastInsertedRowID)
        cursors[sender] = last - 1
        cursors[peer] = last
        return row
    }

    /// Message ids in time order (12 hex digits of milliseconds, then a
    /// counter and this process's random nonce): new rows land at the end of
    /// the id index instead of on a random page of it. Milliseconds and the
    /// counter keep one process's ids apart, the nonce two processes' (a
    /// restart within the same millisecond). Ids are not secrets: every
    /// endpoint checks membership. The nonce is drawn once, because a
    /// random draw per id was a `getrandom` system call on every send.
    static func newServerMsgID() -> String {
        let n = messageIDCounter.add(1, ordering: .relaxed).newValue
        return "m_" + hex(UInt64(ServerClock.system.nowMs()), 12) + hex(n & 0xFFFF_FFFF, 8) + messageIDNonce
    }
    private static let messageIDCounter = Atomic<UInt64>(0)
    private static let messageIDNonce = hex(UInt64.random(in: 0...UInt64(UInt32.max)), 8)
    private static func hex(_ v: UInt64, _ width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Replaces every logged copy of a message with its current state, so a
    /// revoked text is not kept in anyone's sync log.
    func scrubLog(messageId: Int64, db: Database) throws {
        guard let row = try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [messageId]) else { return }
        let encoder = JSONEncoder()
        let asMessage = try Self.encodeEvent(.message(Self.wire(row)))
        let asUpdate = try Self.encodeEvent(.messageUpdate(Self.wire(row)))
        // Inside a JSON string a quote is escaped, so this pattern only matches the event's own key.
        try db.cachedStatement(sql: """
            UPDATE event SET body = CASE WHEN body LIKE '%"kind":"message_update"%' THEN ? ELSE ? END
            WHERE messageId = ?
            """).execute(arguments: [asUpdate, asMessage, messageId])
        // Conversation summaries logged earlier may carry it as lastMessage.
        let needle = "\"clientMsgID\":" + String(decoding: try encoder.encode(row.clientMsgID), as: UTF8.self)
        let summaries = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT cursor, body FROM event WHERE messageId IS NULL AND instr(body, ?) > 0
            """), arguments: [needle])
        for s in summaries {
            guard case .conversation(var summary)? = try? JSONDecoder().decode(SyncEvent.self, from: Data((s["body"] as String).utf8)),
                  summary.lastMessage?.clientMsgID == row.clientMsgID, summary.conversationId == row.conversationId else { continue }
            summary.lastMessage = Self.wire(row)
            let body = String(decoding: try encoder.encode(SyncEvent.conversation(summary)), as: UTF8.self)
            try db.cachedStatement(sql: "UPDATE event SET body = ? WHERE cursor = ?").execute(arguments: [body, s["cursor"] as Int])
        }
    }

    /// A send that passed validation and waits for its write.
    struct SendJob: Sendable {
        let caller: Int
        let peer: Int
        let request: SendMessageRequest
        let payload: MessageContent
        /// Made before the write: the writer's transaction does only what must be serial.
        let serverMsgID: String
    }

    /// What a committed send leaves to do after the commit.
    struct SendWrite: Sendable {
        let row: MessageRow
        let cursors: [Int: Int]
        let isNew: Bool
        let destroyedKey: String?
    }

    /// Sends one message in its own transaction (the demo peers, tests).
    public func send(caller: Int, request r: SendMessageRequest) throws -> SendMessageResponse {
        let job = try prepareSend(caller: caller, request: r)
        let write = try db.write { db in try self.writeSend(job, db: db) }
        if let key = write.destroyedKey { media.delete(key: key) }
        finishSends([write])
        return Self.response(write.row)
    }

    /// Sends one message through the group-commit writer: concurrent sends
    /// share one transaction (each in its own savepoint, so one bad send
    /// fails alone), and the request's task waits without holding a thread.
    public func sendBatched(caller: Int, request r: SendMessageRequest) async throws -> SendMessageResponse {
        let job = try prepareSend(caller: caller, request: r)
        let write = try await sendWriter.submit(job)
        return Self.response(write.row)
    }

    static func response(_ row: MessageRow) -> SendMessageResponse {
        SendMessageResponse(serverMsgID: row.serverMsgID, clientMsgID: row.clientMsgID, sendTime: row.sendTime, seq: row.seq)
    }

    /// The checks that need no write: membership, content, signal reply.
    func prepareSend(caller: Int, request r: SendMessageRequest) throws -> SendJob {
        let conversationId = r.recvID
        let peer = try peer(of: conversationId, caller: caller)
        guard !r.clientMsgId.isEmpty, r.clientMsgId.count <= 128 else {
            throw APIFailure.invalid("clientMsgId must be 1-128 characters")
        }
        let payload = try validateContent(type: r.contentType, content: r.content)
        if let receiveId = r.receiveId, !receiveId.isEmpty {
            try checkReceiveId(receiveId, between: caller, and: peer)
        }
        return SendJob(caller: caller, peer: peer, request: r, payload: payload, serverMsgID: Self.newServerMsgID())
    }

    /// The write of one send, inside the caller's transaction.
    func writeSend(_ job: SendJob, db: Database) throws -> SendWrite {
        let caller = job.caller, peer = job.peer, r = job.request, payload = job.payload
        let conversationId = r.recvID
        // One look-up for both rules: a retry of the caller's own send is
        // answered with the stored message, and the peer's clientMsgID must
        // not be taken over (the peer's client merges by it, revoke finds by it).
        let taken = try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM message WHERE (senderUid = ?1 AND clientMsgID = ?2) OR (conversationId = ?3 AND clientMsgID = ?2)
            """), arguments: [caller, r.clientMsgId, conversationId])
        if let existing = taken.first(where: { $0.senderUid == caller }) {
            return SendWrite(row: existing, cursors: [:], isNew: false, destroyedKey: nil)
        }
        if !taken.isEmpty {
            throw APIFailure(.conflict, "clientMsgId is already used by another message in this conversation")
        }
        var cursors: [Int: Int] = [:]
        var isControl = false
        var flashTarget: MessageRow?
        var destroyedKey: String?
        if case .flashViewed(let targetId) = payload {
            guard let target = try MessageRow.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM message WHERE conversationId = ? AND clientMsgID = ? AND isControl = 0
                """), arguments: [conversationId, targetId]),
                case .flashImage = IMMessageMapper.decode(contentType: target.contentType, content: target.content).1
            else { throw APIFailure.notFound("no flash image \(targetId.prefix(64)) in this conversation") }
            guard target.senderUid != caller else {
                throw APIFailure.forbidden("only the receiver of a flash image can mark it viewed")
            }
            flashTarget = target
            isControl = true
        }
        let keys = Self.objectKeys(in: payload)
        for key in keys where !(try mayRead(key: key, uid: caller, db: db)) {
            throw APIFailure.forbidden("object \(key.prefix(120)) is not yours to send")
        }
        let row = try append(conversationId: conversationId, sender: caller, peer: peer, clientMsgID: r.clientMsgId,
                             contentType: r.contentType, content: r.content, isControl: isControl,
                             db: db, cursors: &cursors, serverMsgID: job.serverMsgID)
        for key in keys {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO media_grant(objectKey, conversationId, messageId) VALUES (?, ?, ?)").execute(arguments: [key, conversationId, row.id])
        }
        if let target = flashTarget, !target.flashViewed {
            try db.cachedStatement(sql: "UPDATE message SET flashViewed = 1 WHERE id = ?").execute(arguments: [target.id])
            if case .flashImage(let p) = IMMessageMapper.decode(contentType: target.contentType, content: target.content).1 {
                try db.cachedStatement(sql: "UPDATE media SET destroyed = 1 WHERE objectKey = ?").execute(arguments: [p.objectKey])
                destroyedKey = p.objectKey
            }
            let updated = try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [target.id])!
            try scrubLog(messageId: target.id, db: db)
            for uid in [caller, peer] {
                cursors[uid] = try log(.messageUpdate(Self.wire(updated)), to: uid, messageId: target.id, db: db)
            }
        }
        return SendWrite(row: row, cursors: cursors, isNew: true, destroyedKey: destroyedKey)
    }

    /// After a commit that logged events: the users' sockets hear of their
    /// new log ends, and the checkpointer of the new WAL pages.
    func notifyCommitted(_ cursors: [Int: Int]) {
        hub.notify(cursors)
        checkpointer.committed()
    }

    /// After the commit: sockets hear of the new log end (one notice per
    /// user for the whole batch), the demo peers react.
    func finishSends(_ writes: [SendWrite]) {
        var cursors: [Int: Int] = [:]
        for w in writes { cursors.merge(w.cursors, uniquingKeysWith: max) }
        notifyCommitted(cursors)
        guard let hook = afterSend.withLock({ $0 }) else { return }
        for w in writes where w.isNew { hook.run(Self.wire(w.row)) }
    }

    /// Checks content against its type; returns the decoded payload.
    func validateContent(type: Int, content: String) throws -> MessageContent {
        switch type {
        case ContentType.text:
            if content.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
                throw APIFailure.invalid("content must not be empty")
            }
            // A character has at least one byte: short texts skip the count.
            if content.utf8.count > config.maxTextCharacters && content.count > config.maxTextCharacters {
                throw APIFailure(.tooLarge, "text is longer than \(config.maxTextCharacters) characters")
            }
            return .text(content)
        case ContentType.custom:
            guard let obj = JSONObject(jsonText: content), let t = obj.string("type"), !t.isEmpty else {
                throw APIFailure.invalid("content must be a JSON object with a string type")
            }
            let (_, decoded) = IMMessageMapper.decode(contentType: type, content: content)
            if MessageKinds.kind(customType: t) != nil, case .unknown = decoded {
                throw APIFailure.invalid("custom \(t) payload is missing fields or has wrong types")
            }
            for key in ["w", "h"] where obj.double(key) != nil && obj.dimension(key) == nil {
                throw APIFailure.invalid("\(key) must be a picture size between 0 and 65535")
            }
            if case .signalQuote(let p) = decoded, p.replyContent.count > config.maxTextCharacters {
                throw APIFailure(.tooLarge, "reply is longer than \(config.maxTextCharacters) characters")
            }
            return decoded
        case ContentType.revokeNotice:
            throw APIFailure.invalid("revoke notices are made by the server; use /chat/message/revoke")
        default:
            throw APIFailure.invalid("unknown contentType \(type)")
        }
    }

    static func objectKeys(in payload: MessageContent) -> [String] {
        switch payload {
        case .image(let p): [p.objectKey]
        case .flashImage(let p): [p.objectKey]
        case .audio(let p): [p.objectKey]
        case .multiImage(let p): p.multiObjectKeys
        default: []
        }
    }

    func checkReceiveId(_ receiveId: String, between a: Int, and b: Int) throws {
        guard let id = Int(receiveId) else { throw APIFailure.invalid("receive_id must be a decimal number") }
        let ok = try db.read { db in
            try Int.fetchOne(db.cachedStatement(sql: """
                SELECT 1 FROM signal_reply r JOIN signal s ON s.id = r.signalId
                WHERE r.id = ? AND ((s.ownerUid = ? AND r.fromUid = ?) OR (s.ownerUid = ? AND r.fromUid = ?))
                """), arguments: [id, a, b, b, a]) != nil
        }
        guard ok else { throw APIFailure.forbidden("receive_id \(receiveId) is not a reply between you two") }
    }

    public func revoke(caller: Int, conversationId: String, clientMsgID: String) throws -> Int {
        let peer = try peer(of: conversationId, caller: caller)
        let (seq, cursors) = try db.write { db -> (Int, [Int: Int]) in
            _ = try self.member(conversationId, uid: caller, db: db)
            guard let msg = try MessageRow.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM message WHERE conversationId = ? AND clientMsgID = ? AND isControl = 0
                """), arguments: [conversationId, clientMsgID]) else {
                throw APIFailure.notFound("no message \(clientMsgID.prefix(64)) in this conversation")
            }
            guard msg.senderUid == caller else { throw APIFailure.forbidden("only the sender can revoke a message") }
            if msg.revoked { return (msg.noticeSeq ?? msg.seq, [:]) }
            let ageMs = nowMs() - msg.sendTime
            guard ageMs <= self.config.revokeWindowSeconds * 1000 else {
                throw APIFailure(.revokeWindowPassed, "messages can be revoked for \(self.config.revokeWindowSeconds) seconds after sending")
            }
            var cursors: [Int: Int] = [:]
            let notice = try self.append(
                conversationId: conversationId, sender: caller, peer: peer, clientMsgID: "revoke:" + msg.clientMsgID,
                contentType: ContentType.revokeNotice, content: Self.json(["clientMsgID": msg.clientMsgID]),
                isControl: true, db: db, cursors: &cursors)
            try db.cachedStatement(sql: "UPDATE message SET revoked = 1, content = '', noticeSeq = ? WHERE id = ?").execute(arguments: [notice.seq, msg.id])
            // Only the uploader can still read what was in a revoked message.
            try db.cachedStatement(sql: "DELETE FROM media_grant WHERE messageId = ?").execute(arguments: [msg.id])
            try self.scrubLog(messageId: msg.id, db: db)
            let updated = try MessageRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?"), arguments: [msg.id])!
            for uid in [caller, peer] {
                cursors[uid] = try self.log(.messageUpdate(Self.wire(updated)), to: uid, messageId: msg.id, db: db)
            }
            return (notice.seq, cursors)
        }
        notifyCommitted(cursors)
        return seq
    }

    static func json(_ dict: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: dict, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    public func history(caller: Int, conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) throws -> HistoryResponse {
        _ = try peer(of: conversationId, caller: caller)
        guard (1...100).contains(limit) else { throw APIFailure.invalid("limit must be 1-100") }
        return try db.read { db in
            let m = try self.member(conversationId, uid: caller, db: db)
            let floor = m.clearedSeq
            if let after = afterSeq {
                let rows = try MessageRow.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM message WHERE conversationId = ? AND seq > ? ORDER BY seq ASC LIMIT ?
                    """), arguments: [conversationId, max(after, floor), limit + 1])
                return HistoryResponse(messages: rows.prefix(limit).map(Self.wire), hasMore: rows.count > limit)
            }
            let rows = try MessageRow.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM message WHERE conversationId = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?
                """), arguments: [conversationId, floor, beforeSeq ?? Int.max, limit + 1])
            return HistoryResponse(messages: rows.prefix(limit).reversed().map(Self.wire), hasMore: rows.count > limit)
        }
    }

    // MARK: - Sync

    public func currentCursor(uid: Int) throws -> Int {
        try db.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE uid = ?"), arguments: [uid]) ?? 0
        }
    }

    /// One page of the caller's event log, as the `/chat/sync` body. The
    /// events go out as the JSON the server stored when it logged them,
    /// spliced in as they are (decoding and encoding every event again was a
    /// tenth of the server's CPU while a client pulled a flood); a stored
    /// body that is not a well-formed JSON object is left out, as one that
    /// failed to decode was, so a damaged row costs that event, not the page.
    public func syncPage(caller: Int, since: Int, limit: Int) throws -> [UInt8] {
        guard since >= 0 else { throw APIFailure.invalid("since must not be negative") }
        guard (1...1000).contains(limit) else { throw APIFailure.invalid("limit must be 1-1000") }
        return try db.read { db in
            let floor = try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'event_floor'")) ?? 0
            if since > 0 && since < floor {
                throw APIFailure(.cursorExpired, "cursor \(since) is older than the kept log; reload conversations")
            }
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT cursor, body FROM event WHERE uid = ? AND cursor > ? ORDER BY cursor LIMIT ?
                """), arguments: [caller, since, limit + 1])
            var out: [UInt8] = []
            out.reserveCapacity(64 + 320 * min(limit, 64))
            out.append(contentsOf: #"{"events":["#.utf8)
            var cursor = since, count = 0, hasMore = false, skipped = 0, written = 0
            while let row = try rows.next() {
                if count == limit { hasMore = true; break }
                count += 1
                cursor = row[0]
                let body: String = row[1]
                guard JSONSyntax.isObject(body) else { skipped += 1; continue }
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: body.utf8)
                written += 1
            }
            if skipped > 0 {
                logger.warning("sync for user \(caller): left out \(skipped) stored event(s) that are not well-formed JSON")
            }
            out.append(contentsOf: #"],"cursor":"#.utf8)
            JSONText.appendInt(cursor, to: &out)
            out.append(contentsOf: (hasMore ? #","hasMore":true}"# : #","hasMore":false}"#).utf8)
            return out
        }
    }

    /// Drops sync events older than the retention; later cursors below the
    /// newest dropped one get 410.
    public func pruneSyncLog(olderThanMs cutoff: Int? = nil) throws {
        let limit = cutoff ?? (nowMs() - config.syncRetentionSeconds * 1000)
        try db.write { db in
            guard let newest = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(cursor) FROM event WHERE createdAt < ?"), arguments: [limit]) else { return }
            try db.cachedStatement(sql: "DELETE FROM event WHERE cursor <= ?").execute(arguments: [newest])
            try db.cachedStatement(sql: """
                INSERT INTO meta(key, value) VALUES ('event_floor', ?)
                ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                """).execute(arguments: [newest + 1])
        }
    }

    // MARK: - Media

    func mayRead(key: String, uid: Int, db: Database) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM media m WHERE m.objectKey = ? AND m.destroyed = 0 AND (m.uploaderUid = ? OR EXISTS (
                SELECT 1 FROM media_grant g JOIN member mb ON mb.conversationId = g.conversationId
                WHERE g.objectKey = m.objectKey AND mb.uid = ?))
            """), arguments: [key, uid, uid]) != nil
    }

    public func upload(caller: Int, kind: String, declaredType: String, bytes: Data) throws -> UploadResponse {
        let key = try media.store(kind: kind, declaredType: declaredType, bytes: bytes, maxBytes: config.maxMediaBytes)
        do {
            try db.write { db in
                try db.cachedStatement(sql: "INSERT INTO media(objectKey, uploaderUid, contentType, size, createdAt) VALUES (?, ?, ?, ?, ?)").execute(arguments: [key, caller, declaredType, bytes.count, nowMs()])
            }
        } catch {
            media.delete(key: key)  // no file without its row (a full disk, say)
            throw error
        }
        return UploadResponse(objectKey: key, size: bytes.count)
    }

    public func sign(caller: Int, keys: [String], baseURL: String) throws -> SignResponse {
        guard keys.count <= 100 else { throw APIFailure.invalid("at most 100 object_keys per call") }
        let exp = nowS() + config.signedURLSeconds
        let readable = try db.read { db in try keys.filter { try self.mayRead(key: $0, uid: caller, db: db) } }
        var urls: [String: String] = [:]
        for key in readable { urls[key] = media.signedURL(base: baseURL, key: key, exp: exp) }
        return SignResponse(urls: urls, expireAt: exp)
    }

    /// Bytes and content type of a signed object, or the reason not.
    public func fetchObject(key: String, exp: String?, sig: String?) throws -> (Data, String) {
        guard MediaStore.isValidKey(key) else { throw APIFailure.invalid("bad object key") }
        guard let exp, let expValue = Int(exp), let sig, media.verify(key: key, exp: expValue, sig: sig) else {
            throw APIFailure.forbidden("bad signature")
        }
        guard expValue >= nowS() else { throw APIFailure.forbidden("the link has expired") }
        guard let type = try db.read({ db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT contentType FROM media WHERE objectKey = ? AND destroyed = 0"), arguments: [key])
        }), let data = media.read(key: key) else { throw APIFailure.notFound("no such object") }
        return (data, type)
    }

    // MARK: - Signals

    public func createSignal(caller: Int, content: String) throws -> Int {
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIFailure.invalid("content must not be empty") }
        guard content.count <= config.maxTextCharacters else { throw APIFailure(.tooLarge, "signal is too long") }
        return try db.write { db in
            try db.cachedStatement(sql: "INSERT INTO signal(ownerUid, content, createdAt) VALUES (?, ?, ?)").execute(arguments: [caller, content, nowMs()])
            return Int(db.lastInsertedRowID)
        }
    }

    public func replySignal(caller: Int, signalId: Int, content: String) throws -> String {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIFailure.invalid("content must not be empty")
        }
        guard content.count <= config.maxTextCharacters else { throw APIFailure(.tooLarge, "reply is too long") }
        return try db.write { db in
            guard let owner = try Int.fetchOne(db.cachedStatement(sql: "SELECT ownerUid FROM signal WHERE id = ?"), arguments: [signalId]) else {
                throw APIFailure.notFound("no such signal")
            }
            guard owner != caller else { throw APIFailure.forbidden("you cannot reply to your own signal") }
            try db.cachedStatement(sql: "INSERT INTO signal_reply(signalId, fromUid, content, createdAt) VALUES (?, ?, ?, ?)").execute(arguments: [signalId, caller, content, nowMs()])
            return String(db.lastInsertedRowID)
        }
    }

    public func inbox(caller: Int) throws -> [SignalInboxItem] {
        try db.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT r.id, r.signalId, s.content AS signalContent, r.content AS replyContent, r.fromUid, r.isImOpened
                FROM signal_reply r JOIN signal s ON s.id = r.signalId
                WHERE s.ownerUid = ? ORDER BY r.id DESC LIMIT 200
                """), arguments: [caller]).compactMap { row in
                guard let from = try Self.userInfo(row["fromUid"], db: db) else { return nil }
                return SignalInboxItem(receiveId: String(row["id"] as Int), signalId: row["signalId"],
                                       signalContent: row["signalContent"], replyContent: row["replyContent"],
                                       from: from, isImOpened: row["isImOpened"])
            }
        }
    }

    public func openIM(caller: Int, receiveId: String) throws {
        guard let id = Int(receiveId) else { throw APIFailure.invalid("receive_id must be a decimal number") }
        let cursor = try db.write { db -> Int? in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT r.fromUid, s.ownerUid FROM signal_reply r JOIN signal s ON s.id = r.signalId WHERE r.id = ?
                """), arguments: [id]) else { throw APIFailure.notFound("no such signal reply") }
            let owner: Int = row["ownerUid"], from: Int = row["fromUid"]
            guard owner == caller else { throw APIFailure.forbidden("that reply is not to your signal") }
            try db.cachedStatement(sql: "UPDATE signal_reply SET isImOpened = 1 WHERE id = ?").execute(arguments: [id])
            let conv = ConversationIDHelper.make(myUid: owner, targetUid: from)
            try self.ensureConversation(conv, caller: owner, peer: from, db: db)
            try db.cachedStatement(sql: "UPDATE member SET isImOpened = 1 WHERE conversationId = ?").execute(arguments: [conv])
            return try self.log(.conversation(try self.summary(conv, for: caller, db: db)), to: caller, db: db)
        }
        if let cursor { notifyCommitted([caller: cursor]) }
    }

    // MARK: - Presence

    /// Users who share a conversation with `uid` (they see its presence).
    func contacts(of uid: Int) -> [Int] {
        (try? db.read { db in
            try Int.fetchAll(db.cachedStatement(sql: """
                SELECT CASE WHEN uidLow = ? THEN uidHigh ELSE uidLow END FROM conversation WHERE uidLow = ? OR uidHigh = ?
                """), arguments: [uid, uid, uid])
        }) ?? []
    }
}

enum StorePermissions {
    static func makePrivateDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
    }
}

/// A closure kept in a `Mutex`, wrapped in a struct on purpose. Stored bare
/// (`Mutex<(@Sendable (WireMessage) -> Void)?>`), the closure lives in the
/// mutex's generic storage, and every `withLock` - even `{ $0 }` - converted
/// it to the concrete representation and back on write-back, wrapping it in
/// two more reabstraction thunks each time: the n-th send called through a
/// chain of 2n thunks (14% of the server's CPU after 20,000 sends of the demo
/// server). A struct field keeps its one representation, whoever copies it.
struct AfterSendHook: Sendable {
    let run: @Sendable (WireMessage) -> Void
}
