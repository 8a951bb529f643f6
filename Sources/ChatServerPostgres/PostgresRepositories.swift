import ChatServer
import ChatCore
import Foundation
import PostgresNIO

// The repositories over one PostgreSQL transaction. Each states its SQL
// with bound parameters only (PostgresQuery's interpolation binds values);
// the rules they keep are documented on the protocols.

struct PostgresAccountRepository: AccountRepository {
    let conn: PostgresLink

    func isTaken(account: String) throws -> Bool {
        try conn.scalar("SELECT 1 FROM users WHERE account = \(account)", as: Int.self) != nil
    }

    func insert(account: String, username: String, salt: Data, hash: Data, rounds: Int, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO users(account, username, avatar, pw_salt, pw_hash, pw_rounds, created_at)
            VALUES (\(account), \(username), '', \(salt), \(hash), \(rounds), \(createdAt)) RETURNING uid
            """, as: Int.self) ?? 0
    }

    func account(named account: String) throws -> AccountRow? {
        try accountRow(conn.query("""
            SELECT uid, account, username, avatar, pw_salt, pw_hash, pw_rounds FROM users WHERE account = \(account)
            """))
    }

    func account(uid: Int) throws -> AccountRow? {
        try accountRow(conn.query("""
            SELECT uid, account, username, avatar, pw_salt, pw_hash, pw_rounds FROM users WHERE uid = \(uid)
            """))
    }

    func setPassword(uid: Int, salt: Data, hash: Data, rounds: Int) throws {
        try conn.execute("UPDATE users SET pw_salt = \(salt), pw_hash = \(hash), pw_rounds = \(rounds) WHERE uid = \(uid)")
    }

    private func accountRow(_ rows: PostgresQueryResult) throws -> AccountRow? {
        try rows.first.map { row in
            let r = row.makeRandomAccess()
            return AccountRow(uid: try r[0].decode(Int.self), account: try r[1].decode(String.self),
                              username: try r[2].decode(String.self), avatar: try r[3].decode(String.self),
                              pwSalt: try r[4].decode(Data.self), pwHash: try r[5].decode(Data.self),
                              pwRounds: try r[6].decode(Int.self))
        }
    }

    func uid(ofAccount account: String) throws -> Int? {
        try conn.scalar("SELECT uid FROM users WHERE account = \(account)")
    }

    func insertToken(hash: String, uid: Int, createdAt: Int, sessionId: String, userAgent: String) throws {
        try conn.execute("""
            INSERT INTO token(hash, uid, created_at, session_id, last_seen_at, user_agent)
            VALUES (\(hash), \(uid), \(createdAt), \(sessionId), \(createdAt), \(userAgent))
            """)
    }

    func deleteToken(hash: String) throws {
        try conn.execute("DELETE FROM token WHERE hash = \(hash)")
        // Every node that cached the token hears of it, if and when this
        // commits: PostgreSQL delivers a transaction's notices at its commit.
        try conn.execute("SELECT pg_notify(\(PostgresBus.channel), \(ClusterPayload.logoutPayload(tokenHash: hash)))")
    }

    func uid(forTokenHash hash: String) throws -> Int? {
        try conn.scalar("SELECT uid FROM token WHERE hash = \(hash)")
    }

    func sessions(uid: Int) throws -> [SessionRow] {
        try conn.query("""
            SELECT session_id, hash, created_at, last_seen_at, user_agent FROM token WHERE uid = \(uid)
            ORDER BY last_seen_at DESC, created_at DESC
            """).map(Self.session)
    }

    func session(_ sessionId: String, uid: Int) throws -> SessionRow? {
        try conn.query("""
            SELECT session_id, hash, created_at, last_seen_at, user_agent FROM token
            WHERE session_id = \(sessionId) AND uid = \(uid)
            """).first.map(Self.session)
    }

    func touchToken(hash: String, at: Int) throws {
        try conn.execute("UPDATE token SET last_seen_at = \(at) WHERE hash = \(hash) AND last_seen_at < \(at)")
    }

    static func session(_ row: PostgresRow) throws -> SessionRow {
        let r = row.makeRandomAccess()
        return SessionRow(sessionId: try r[0].decode(String?.self) ?? "", tokenHash: try r[1].decode(String.self),
                          createdAt: try r[2].decode(Int.self), lastSeenAt: try r[3].decode(Int.self),
                          userAgent: try r[4].decode(String.self))
    }
}

struct PostgresUserRepository: UserRepository {
    let conn: PostgresLink

    func info(uid: Int) throws -> UserBasicInfo? {
        try conn.query("SELECT uid, username, avatar, account, signature FROM users WHERE uid = \(uid)").first.map(Self.info)
    }

    func search(prefix: String, excluding excluded: Int, limit: Int) throws -> [UserBasicInfo] {
        let pattern = LikePattern.escape(prefix) + "%"
        return try conn.query("""
            SELECT uid, username, avatar, account, signature FROM users
            WHERE uid <> \(excluded) AND (account ILIKE \(pattern) ESCAPE '\\' OR username ILIKE \(pattern) ESCAPE '\\')
            ORDER BY account LIMIT \(limit)
            """).map(Self.info)
    }

    func setUsername(_ username: String, uid: Int) throws {
        try conn.execute("UPDATE users SET username = \(username) WHERE uid = \(uid)")
    }

    func setSignature(_ signature: String, uid: Int) throws {
        try conn.execute("UPDATE users SET signature = \(signature) WHERE uid = \(uid)")
    }

    func setAvatar(_ avatar: String, uid: Int) throws {
        try conn.execute("UPDATE users SET avatar = \(avatar) WHERE uid = \(uid)")
    }

    func settings(uid: Int) throws -> UserSettings {
        try conn.query("SELECT accept_strangers, share_typing, share_read FROM users WHERE uid = \(uid)").first.map { row in
            let r = row.makeRandomAccess()
            return UserSettings(acceptStrangers: try r[0].decode(Bool.self), shareTyping: try r[1].decode(Bool.self),
                                shareRead: try r[2].decode(Bool.self))
        } ?? UserSettings()
    }

    func setSettings(_ settings: UserSettings, uid: Int) throws {
        try conn.execute("""
            UPDATE users SET accept_strangers = \(settings.acceptStrangers), share_typing = \(settings.shareTyping),
                share_read = \(settings.shareRead) WHERE uid = \(uid)
            """)
    }

    func isAvatar(_ key: String) throws -> Bool {
        guard !key.isEmpty else { return false }
        return try conn.scalar("""
            SELECT 1 WHERE EXISTS (SELECT 1 FROM users WHERE avatar = \(key)) OR EXISTS (SELECT 1 FROM chat_group WHERE avatar = \(key))
            """, as: Int.self) != nil
    }

    static func info(_ row: PostgresRow) throws -> UserBasicInfo {
        let r = row.makeRandomAccess()
        return UserBasicInfo(uid: try r[0].decode(Int.self), username: try r[1].decode(String.self),
                             avatar: try r[2].decode(String.self), account: try r[3].decode(String.self),
                             signature: try r[4].decode(String.self))
    }
}

struct PostgresGroupRepository: GroupRepository {
    let conn: PostgresLink

    func insert(name: String, uniqueName: String, notice: String, owner: Int, joinable: Bool, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO chat_group(name, unique_name, notice, owner_uid, joinable, created_at)
            VALUES (\(name), \(uniqueName), \(notice), \(owner), \(joinable), \(createdAt)) RETURNING gid
            """, as: Int.self) ?? 0
    }

    func group(_ gid: Int) throws -> GroupRow? {
        try conn.query("\(unescaped: Self.columns) WHERE gid = \(gid)").first.map(Self.row)
    }

    func group(uniqueName: String) throws -> GroupRow? {
        try conn.query("\(unescaped: Self.columns) WHERE unique_name = \(uniqueName)").first.map(Self.row)
    }

    func update(_ g: GroupRow) throws {
        try conn.execute("""
            UPDATE chat_group SET name = \(g.name), unique_name = \(g.uniqueName), notice = \(g.notice),
                owner_uid = \(g.ownerUid), joinable = \(g.joinable), created_at = \(g.createdAt), dissolved = \(g.dissolved),
                avatar = \(g.avatar)
            WHERE gid = \(g.gid)
            """)
    }

    static let columns = "SELECT gid, name, unique_name, notice, owner_uid, joinable, created_at, dissolved, avatar FROM chat_group"

    static func row(_ row: PostgresRow) throws -> GroupRow {
        let r = row.makeRandomAccess()
        return GroupRow(gid: try r[0].decode(Int.self), name: try r[1].decode(String.self),
                        uniqueName: try r[2].decode(String?.self), notice: try r[3].decode(String.self),
                        ownerUid: try r[4].decode(Int.self), joinable: try r[5].decode(Bool.self),
                        createdAt: try r[6].decode(Int.self), dissolved: try r[7].decode(Bool.self),
                        avatar: try r[8].decode(String.self))
    }
}

struct PostgresMediaRepository: MediaRepository {
    let conn: PostgresLink

    func insert(objectKey: String, uploader: Int, contentType: String, size: Int, createdAt: Int) throws {
        try conn.execute("""
            INSERT INTO media(object_key, uploader_uid, content_type, size, created_at)
            VALUES (\(objectKey), \(uploader), \(contentType), \(size), \(createdAt))
            """)
    }

    func mayRead(_ key: String, uid: Int) throws -> Bool {
        try conn.scalar("""
            SELECT 1 FROM media m WHERE m.object_key = \(key) AND NOT m.destroyed AND (m.uploader_uid = \(uid) OR EXISTS (
                SELECT 1 FROM media_grant g JOIN member mb ON mb.conversation_id = g.conversation_id
                JOIN message msg ON msg.id = g.message_id
                WHERE g.object_key = m.object_key AND mb.uid = \(uid)
                  AND msg.seq > mb.joined_seq AND (mb.left_seq IS NULL OR msg.seq <= mb.left_seq)) OR EXISTS (
                SELECT 1 FROM media_grant g JOIN room_presence p ON g.conversation_id = 'sr_' || p.rid
                WHERE g.object_key = m.object_key AND p.uid = \(uid)) OR EXISTS (
                SELECT 1 FROM favorite_object f WHERE f.object_key = m.object_key AND f.uid = \(uid)))
            """, as: Int.self) != nil
    }

    func firstMessage(naming key: String) throws -> Int64? {
        try conn.scalar("SELECT MIN(message_id) FROM media_grant WHERE object_key = \(key)", as: Int64.self)
    }

    func uploader(of key: String) throws -> Int? {
        try conn.scalar("SELECT uploader_uid FROM media WHERE object_key = \(key) AND NOT destroyed", as: Int.self)
    }

    func contentType(of key: String) throws -> String? {
        try conn.scalar("SELECT content_type FROM media WHERE object_key = \(key) AND NOT destroyed")
    }

    func grant(_ key: String, conversationId: String, messageId: Int64) throws {
        try conn.execute("""
            INSERT INTO media_grant(object_key, conversation_id, message_id) VALUES (\(key), \(conversationId), \(messageId))
            ON CONFLICT DO NOTHING
            """)
    }

    func revokeGrants(messageId: Int64) throws {
        try conn.execute("DELETE FROM media_grant WHERE message_id = \(messageId)")
    }

    func markDestroyed(_ key: String) throws {
        try conn.execute("UPDATE media SET destroyed = TRUE WHERE object_key = \(key)")
    }
}

struct PostgresSignalRepository: SignalRepository {
    let conn: PostgresLink

    func insertSignal(owner: Int, content: String, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO signal(owner_uid, content, created_at) VALUES (\(owner), \(content), \(createdAt)) RETURNING id
            """, as: Int.self) ?? 0
    }

    func insertReply(signalId: Int, from: Int, content: String, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO signal_reply(signal_id, from_uid, content, created_at)
            VALUES (\(signalId), \(from), \(content), \(createdAt)) RETURNING id
            """, as: Int.self) ?? 0
    }

    func inbox(owner: Int, limit: Int) throws -> [SignalReplyRow] {
        try conn.query("""
            SELECT r.id, r.signal_id, s.content, r.content, r.from_uid, r.is_im_opened
            FROM signal_reply r JOIN signal s ON s.id = r.signal_id
            WHERE s.owner_uid = \(owner) ORDER BY r.id DESC LIMIT \(limit)
            """).map { row in
            let r = row.makeRandomAccess()
            return SignalReplyRow(id: try r[0].decode(Int.self), signalId: try r[1].decode(Int.self),
                                  signalContent: try r[2].decode(String.self), replyContent: try r[3].decode(String.self),
                                  fromUid: try r[4].decode(Int.self), isImOpened: try r[5].decode(Bool.self))
        }
    }

    func parties(ofReply id: Int) throws -> (from: Int, owner: Int)? {
        try conn.query("""
            SELECT r.from_uid, s.owner_uid FROM signal_reply r JOIN signal s ON s.id = r.signal_id WHERE r.id = \(id)
            """).first.map { row in try row.decode((Int, Int).self) }
    }

    func markOpened(reply id: Int) throws {
        try conn.execute("UPDATE signal_reply SET is_im_opened = TRUE WHERE id = \(id)")
    }

    func isReply(_ id: Int, between a: Int, and b: Int) throws -> Bool {
        try conn.scalar("""
            SELECT 1 FROM signal_reply r JOIN signal s ON s.id = r.signal_id
            WHERE r.id = \(id) AND ((s.owner_uid = \(a) AND r.from_uid = \(b)) OR (s.owner_uid = \(b) AND r.from_uid = \(a)))
            """, as: Int.self) != nil
    }
    func signal(_ id: Int) throws -> SignalRow? {
        try conn.query("SELECT id, owner_uid, content, created_at, deleted FROM signal WHERE id = \(id)").first.map(Self.row)
    }

    func hasReplied(to signalId: Int, from uid: Int) throws -> Bool {
        try conn.scalar("SELECT 1 FROM signal_reply WHERE signal_id = \(signalId) AND from_uid = \(uid) LIMIT 1", as: Int.self) != nil
    }

    func feed(for reader: Int, before: Int?, limit: Int) throws -> [SignalRow] {
        try conn.query("""
            SELECT s.id, s.owner_uid, s.content, s.created_at, s.deleted,
                   EXISTS (SELECT 1 FROM signal_reply r WHERE r.signal_id = s.id AND r.from_uid = \(reader))
            FROM signal s
            WHERE s.id < \(before ?? Int.max) AND NOT s.deleted AND s.owner_uid <> \(reader)
              AND NOT EXISTS (SELECT 1 FROM signal_hide h WHERE h.uid = \(reader) AND h.signal_id = s.id)
              AND NOT EXISTS (SELECT 1 FROM block b WHERE (b.uid = \(reader) AND b.blocked_uid = s.owner_uid)
                                                      OR (b.uid = s.owner_uid AND b.blocked_uid = \(reader)))
            ORDER BY s.id DESC LIMIT \(limit)
            """).map { row in
            var s = try Self.row(row)
            s.replied = try row.makeRandomAccess()[5].decode(Bool.self)
            return s
        }
    }

    func signals(of owner: Int, limit: Int) throws -> [SignalRow] {
        try conn.query("""
            SELECT s.id, s.owner_uid, s.content, s.created_at, s.deleted,
                   (SELECT COUNT(*) FROM signal_reply r WHERE r.signal_id = s.id)
            FROM signal s WHERE s.owner_uid = \(owner) AND NOT s.deleted ORDER BY s.id DESC LIMIT \(limit)
            """).map { row in
            var s = try Self.row(row)
            s.replyCount = try row.makeRandomAccess()[5].decode(Int.self)
            return s
        }
    }

    func markDeleted(_ id: Int) throws {
        try conn.execute("UPDATE signal SET deleted = TRUE WHERE id = \(id)")
    }

    func hide(_ id: Int, for uid: Int) throws {
        try conn.execute("INSERT INTO signal_hide(uid, signal_id) VALUES (\(uid), \(id)) ON CONFLICT DO NOTHING")
    }

    func report(_ id: Int, by uid: Int, reason: String, at: Int) throws {
        try conn.execute("""
            INSERT INTO signal_report(signal_id, reporter_uid, reason, created_at) VALUES (\(id), \(uid), \(reason), \(at))
            """)
    }

    func reports(limit: Int) throws -> [SignalReportRow] {
        try conn.query("""
            SELECT id, signal_id, reporter_uid, reason, created_at FROM signal_report ORDER BY id DESC LIMIT \(limit)
            """).map { row in
            let r = row.makeRandomAccess()
            return SignalReportRow(id: try r[0].decode(Int.self), signalId: try r[1].decode(Int.self),
                                   reporterUid: try r[2].decode(Int.self), reason: try r[3].decode(String.self),
                                   createdAt: try r[4].decode(Int.self))
        }
    }

    static func row(_ row: PostgresRow) throws -> SignalRow {
        let r = row.makeRandomAccess()
        return SignalRow(id: try r[0].decode(Int.self), ownerUid: try r[1].decode(Int.self), content: try r[2].decode(String.self),
                         createdAt: try r[3].decode(Int.self), deleted: try r[4].decode(Bool.self))
    }
}
