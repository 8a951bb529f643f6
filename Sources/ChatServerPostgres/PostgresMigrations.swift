import ChatServer
import PostgresNIO

/// The server's PostgreSQL schema: the same tables as `SQLiteMigrations`
/// (snake_case, `users` for SQLite's `user`, which PostgreSQL reserves),
/// plus what several nodes share: the signing secret, failed logins and
/// request counts. Named migrations, applied once under an advisory lock,
/// so nodes that start together do not race; never edit a shipped one.
enum PostgresMigrations {
    static let lock: Int64 = 0x746F_6E67_6261_6E02

    static let steps: [(name: String, sql: [String])] = [
        ("v1", [
            """
            CREATE TABLE users (
                uid BIGSERIAL PRIMARY KEY, account TEXT NOT NULL UNIQUE, username TEXT NOT NULL,
                avatar TEXT NOT NULL DEFAULT '', pw_salt BYTEA NOT NULL, pw_hash BYTEA NOT NULL,
                pw_rounds BIGINT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE TABLE token (hash TEXT PRIMARY KEY, uid BIGINT NOT NULL, created_at BIGINT NOT NULL)",
            "CREATE INDEX token_uid ON token(uid)",
            """
            CREATE TABLE conversation (
                id TEXT PRIMARY KEY, uid_low BIGINT NOT NULL, uid_high BIGINT NOT NULL,
                max_seq BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX conversation_low ON conversation(uid_low)",
            "CREATE INDEX conversation_high ON conversation(uid_high)",
            """
            CREATE TABLE member (
                conversation_id TEXT NOT NULL, uid BIGINT NOT NULL,
                is_pinned BOOLEAN NOT NULL DEFAULT FALSE, read_seq BIGINT NOT NULL DEFAULT 0,
                cleared_seq BIGINT NOT NULL DEFAULT 0, hidden BOOLEAN NOT NULL DEFAULT FALSE,
                is_im_opened BOOLEAN NOT NULL DEFAULT FALSE, is_muted BOOLEAN NOT NULL DEFAULT FALSE,
                mention_seq BIGINT NOT NULL DEFAULT 0, joined_seq BIGINT NOT NULL DEFAULT 0,
                joined_at BIGINT NOT NULL DEFAULT 0, left_seq BIGINT,
                PRIMARY KEY (conversation_id, uid))
            """,
            "CREATE INDEX member_uid ON member(uid)",
            """
            CREATE TABLE message (
                id BIGSERIAL PRIMARY KEY, server_msg_id TEXT NOT NULL UNIQUE, client_msg_id TEXT NOT NULL,
                sender_uid BIGINT NOT NULL, conversation_id TEXT NOT NULL, seq BIGINT NOT NULL,
                send_id TEXT NOT NULL, recv_id TEXT NOT NULL, content_type BIGINT NOT NULL, content TEXT NOT NULL,
                send_time BIGINT NOT NULL, revoked BOOLEAN NOT NULL DEFAULT FALSE,
                flash_viewed BOOLEAN NOT NULL DEFAULT FALSE, is_control BOOLEAN NOT NULL DEFAULT FALSE,
                notice_seq BIGINT,
                UNIQUE (sender_uid, client_msg_id), UNIQUE (conversation_id, seq))
            """,
            "CREATE INDEX message_conversation_client ON message(conversation_id, client_msg_id)",
            """
            CREATE TABLE event (
                cur BIGSERIAL PRIMARY KEY, uid BIGINT NOT NULL, message_id BIGINT,
                body TEXT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX event_uid_cursor ON event(uid, cur)",
            "CREATE INDEX event_message ON event(message_id)",
            "CREATE TABLE meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
            "CREATE TABLE secret (name TEXT PRIMARY KEY, value BYTEA NOT NULL)",
            """
            CREATE TABLE media (
                object_key TEXT PRIMARY KEY, uploader_uid BIGINT NOT NULL, content_type TEXT NOT NULL,
                size BIGINT NOT NULL, created_at BIGINT NOT NULL, destroyed BOOLEAN NOT NULL DEFAULT FALSE)
            """,
            """
            CREATE TABLE media_grant (
                object_key TEXT NOT NULL, conversation_id TEXT NOT NULL, message_id BIGINT NOT NULL,
                PRIMARY KEY (object_key, conversation_id, message_id))
            """,
            "CREATE INDEX media_grant_message ON media_grant(message_id)",
            """
            CREATE TABLE signal (
                id BIGSERIAL PRIMARY KEY, owner_uid BIGINT NOT NULL, content TEXT NOT NULL, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE signal_reply (
                id BIGSERIAL PRIMARY KEY, signal_id BIGINT NOT NULL, from_uid BIGINT NOT NULL,
                content TEXT NOT NULL, created_at BIGINT NOT NULL, is_im_opened BOOLEAN NOT NULL DEFAULT FALSE)
            """,
            "CREATE INDEX signal_reply_signal ON signal_reply(signal_id)",
            """
            CREATE TABLE chat_group (
                gid BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, unique_name TEXT UNIQUE,
                notice TEXT NOT NULL DEFAULT '', owner_uid BIGINT NOT NULL, joinable BOOLEAN NOT NULL DEFAULT TRUE,
                created_at BIGINT NOT NULL, dissolved BOOLEAN NOT NULL DEFAULT FALSE)
            """,
            "CREATE TABLE login_failure (account TEXT NOT NULL, at BIGINT NOT NULL)",
            "CREATE INDEX login_failure_account ON login_failure(account, at)",
            "CREATE TABLE request_rate (uid BIGINT PRIMARY KEY, second BIGINT NOT NULL, count BIGINT NOT NULL)",
        ]),
        // Acting on a message (PROTOCOL.md v3): reactions as one JSON object
        // per message (every write holds the cluster's advisory lock, so
        // read-modify-write is safe) and when it was last edited.
        ("v2-message-actions", [
            "ALTER TABLE message ADD COLUMN reactions TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE message ADD COLUMN edited_at BIGINT",
            // Delete for me: a message a user never sees again (others keep it).
            "CREATE TABLE message_hidden (uid BIGINT NOT NULL, message_id BIGINT NOT NULL, PRIMARY KEY (uid, message_id))",
        ]),
        // Favourites (PROTOCOL.md v3): a copy of the message, and the objects
        // it keeps readable by its owner.
        ("v3-favorites", [
            """
            CREATE TABLE favorite (
                id BIGSERIAL PRIMARY KEY, uid BIGINT NOT NULL, conversation_id TEXT NOT NULL,
                conversation_name TEXT NOT NULL, message_id BIGINT NOT NULL, message TEXT NOT NULL,
                created_at BIGINT NOT NULL, UNIQUE (uid, message_id))
            """,
            "CREATE INDEX favorite_message ON favorite(message_id)",
            """
            CREATE TABLE favorite_object (
                favorite_id BIGINT NOT NULL REFERENCES favorite(id) ON DELETE CASCADE, uid BIGINT NOT NULL,
                object_key TEXT NOT NULL, PRIMARY KEY (favorite_id, object_key))
            """,
            "CREATE INDEX favorite_object_key ON favorite_object(object_key, uid)",
        ]),
        // People (PROTOCOL.md v3), as SQLite's v6-people.
        ("v4-people", [
            "ALTER TABLE users ADD COLUMN signature TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE users ADD COLUMN accept_strangers BOOLEAN NOT NULL DEFAULT TRUE",
            "CREATE INDEX users_avatar ON users(avatar)",
            "ALTER TABLE chat_group ADD COLUMN avatar TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX chat_group_avatar ON chat_group(avatar)",
            """
            CREATE TABLE friend (
                uid BIGINT NOT NULL, peer_uid BIGINT NOT NULL, remark TEXT NOT NULL DEFAULT '',
                since BIGINT NOT NULL, PRIMARY KEY (uid, peer_uid))
            """,
            """
            CREATE TABLE friend_request (
                id BIGSERIAL PRIMARY KEY, from_uid BIGINT NOT NULL, to_uid BIGINT NOT NULL, message TEXT NOT NULL,
                status TEXT NOT NULL, created_at BIGINT NOT NULL, UNIQUE (from_uid, to_uid))
            """,
            "CREATE INDEX friend_request_to ON friend_request(to_uid)",
            """
            CREATE TABLE block (
                uid BIGINT NOT NULL, blocked_uid BIGINT NOT NULL, created_at BIGINT NOT NULL,
                PRIMARY KEY (uid, blocked_uid))
            """,
            "ALTER TABLE token ADD COLUMN session_id TEXT",
            "ALTER TABLE token ADD COLUMN last_seen_at BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE token ADD COLUMN user_agent TEXT NOT NULL DEFAULT ''",
            "UPDATE token SET session_id = substr(md5(random()::text || hash), 1, 16), last_seen_at = created_at",
            "CREATE UNIQUE INDEX token_session ON token(session_id)",
        ]),
        // Group messages written once, as SQLite's v7-timelines.
        ("v5-timelines", [
            "ALTER TABLE event ADD COLUMN conversation_id TEXT",
            "CREATE INDEX event_timeline ON event(conversation_id, cur) WHERE uid = 0",
            """
            CREATE TABLE timeline_span (
                uid BIGINT NOT NULL, conversation_id TEXT NOT NULL, from_cur BIGINT NOT NULL, to_cur BIGINT,
                PRIMARY KEY (uid, conversation_id, from_cur))
            """,
            """
            INSERT INTO timeline_span(uid, conversation_id, from_cur)
            SELECT m.uid, m.conversation_id, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM event_cur_seq)
            FROM member m JOIN conversation c ON c.id = m.conversation_id
            WHERE c.uid_low = 0 AND c.uid_high = 0 AND m.left_seq IS NULL
            """,
        ]),
        // Rooms, as SQLite's v8-rooms.
        ("v6-rooms", [
            """
            CREATE TABLE room (
                rid BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, unique_name TEXT UNIQUE, topic TEXT NOT NULL DEFAULT '',
                owner_uid BIGINT NOT NULL, created_at BIGINT NOT NULL, dropped BOOLEAN NOT NULL DEFAULT FALSE)
            """,
            """
            CREATE TABLE room_presence (
                rid BIGINT NOT NULL, uid BIGINT NOT NULL, entered_at BIGINT NOT NULL, PRIMARY KEY (rid, uid))
            """,
            "CREATE INDEX room_presence_uid ON room_presence(uid)",
            "CREATE TABLE room_ban (rid BIGINT NOT NULL, uid BIGINT NOT NULL, PRIMARY KEY (rid, uid))",
        ]),
        // Limits and consent, as SQLite's v9-limits; and the shared request bucket.
        ("v7-limits", [
            "ALTER TABLE timeline_span ADD COLUMN from_seq BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE timeline_span s SET from_seq = m.joined_seq FROM member m
            WHERE m.uid = s.uid AND m.conversation_id = s.conversation_id AND s.to_cur IS NULL
            """,
            "ALTER TABLE event ADD COLUMN summary_key TEXT",
            """
            UPDATE event SET summary_key = (body::jsonb #>> '{conversation,conversationId}') || chr(10)
                || (body::jsonb #>> '{conversation,lastMessage,clientMsgID}')
            WHERE message_id IS NULL AND strpos(body, '"kind":"conversation"') > 0
              AND strpos(body, '"lastMessage"') > 0
            """,
            "CREATE INDEX event_summary ON event(summary_key) WHERE summary_key IS NOT NULL",
            "CREATE TABLE usage (uid BIGINT NOT NULL, kind TEXT NOT NULL, at BIGINT NOT NULL, amount BIGINT NOT NULL)",
            "CREATE INDEX usage_uid_kind_at ON usage(uid, kind, at)",
            """
            UPDATE media_grant g SET message_id = COALESCE((SELECT m.id FROM message m
                WHERE m.conversation_id = g.conversation_id AND strpos(m.content, g.object_key) > 0
                ORDER BY m.id LIMIT 1), 0)
            WHERE g.message_id = 0
            """,
            "CREATE TABLE request_bucket (uid BIGINT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, at BIGINT NOT NULL)",
        ]),
        // Typing, read receipts and the signal feed, as SQLite's v10-alive.
        ("v8-alive", [
            "ALTER TABLE users ADD COLUMN share_typing BOOLEAN NOT NULL DEFAULT TRUE",
            "ALTER TABLE users ADD COLUMN share_read BOOLEAN NOT NULL DEFAULT TRUE",
            "ALTER TABLE signal ADD COLUMN deleted BOOLEAN NOT NULL DEFAULT FALSE",
            "CREATE INDEX signal_reply_from ON signal_reply(signal_id, from_uid)",
            "CREATE INDEX block_blocked ON block(blocked_uid)",
            "CREATE TABLE signal_hide (uid BIGINT NOT NULL, signal_id BIGINT NOT NULL, PRIMARY KEY (uid, signal_id))",
            """
            CREATE TABLE signal_report (
                id BIGSERIAL PRIMARY KEY, signal_id BIGINT NOT NULL, reporter_uid BIGINT NOT NULL, reason TEXT NOT NULL,
                created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX signal_report_signal ON signal_report(signal_id)",
            "CREATE TABLE room_visit (uid BIGINT NOT NULL, rid BIGINT NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (uid, rid))",
        ]),
        // Secret chats, as SQLite's v11-secret.
        ("v9-secret", [
            """
            CREATE TABLE device_key (
                uid BIGINT NOT NULL, device_id TEXT NOT NULL, identity_key BYTEA NOT NULL, signing_key BYTEA NOT NULL,
                spk_id BIGINT NOT NULL, spk_key BYTEA NOT NULL, spk_signature BYTEA NOT NULL, created_at BIGINT NOT NULL,
                PRIMARY KEY (uid, device_id))
            """,
            """
            CREATE TABLE one_time_prekey (
                uid BIGINT NOT NULL, device_id TEXT NOT NULL, key_id BIGINT NOT NULL, key BYTEA NOT NULL,
                PRIMARY KEY (uid, device_id, key_id))
            """,
            "CREATE TABLE secret_expiry (message_id BIGINT PRIMARY KEY, expire_at BIGINT NOT NULL)",
            "CREATE INDEX secret_expiry_at ON secret_expiry(expire_at)",
        ]),
    ]

    /// `upTo`: the last step to apply (tests bring a database to an older schema); nil applies all.
    static func migrate(_ conn: PostgresLink, upTo last: String? = nil) throws {
        try conn.transaction(holding: lock) {
            try conn.run("CREATE TABLE IF NOT EXISTS schema_migration (name TEXT PRIMARY KEY)")
            var applied = Set<String>()
            for row in try conn.query("SELECT name FROM schema_migration") {
                applied.insert(try row.decode(String.self))
            }
            for step in steps where !applied.contains(step.name) {
                for sql in step.sql { try conn.run(sql) }
                try conn.execute("INSERT INTO schema_migration(name) VALUES (\(step.name))")
                if step.name == last { break }
            }
        }
    }
}
