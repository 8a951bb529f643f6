import Foundation
import GRDB

/// The server's SQLite schema. Named migrations; never edit a shipped one.
enum SQLiteMigrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.create(table: "user") { t in
                t.autoIncrementedPrimaryKey("uid")
                t.column("account", .text).notNull().unique()
                t.column("username", .text).notNull()
                t.column("avatar", .text).notNull().defaults(to: "")
                t.column("pwSalt", .blob).notNull()
                t.column("pwHash", .blob).notNull()
                t.column("pwRounds", .integer).notNull()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "token") { t in
                t.primaryKey("hash", .text)
                t.column("uid", .integer).notNull().indexed()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "conversation") { t in
                t.primaryKey("id", .text)
                t.column("uidLow", .integer).notNull()
                t.column("uidHigh", .integer).notNull()
                t.column("maxSeq", .integer).notNull().defaults(to: 0)
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "member") { t in
                t.column("conversationId", .text).notNull()
                t.column("uid", .integer).notNull().indexed()
                t.column("isPinned", .boolean).notNull().defaults(to: false)
                t.column("readSeq", .integer).notNull().defaults(to: 0)
                t.column("clearedSeq", .integer).notNull().defaults(to: 0)
                t.column("hidden", .boolean).notNull().defaults(to: false)
                t.column("isImOpened", .boolean).notNull().defaults(to: false)
                t.primaryKey(["conversationId", "uid"])
            }
            try db.create(table: "message") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("serverMsgID", .text).notNull().unique()
                t.column("clientMsgID", .text).notNull()
                t.column("senderUid", .integer).notNull()
                t.column("conversationId", .text).notNull()
                t.column("seq", .integer).notNull()
                t.column("sendID", .text).notNull()
                t.column("recvID", .text).notNull()
                t.column("contentType", .integer).notNull()
                t.column("content", .text).notNull()
                t.column("sendTime", .integer).notNull()
                t.column("revoked", .boolean).notNull().defaults(to: false)
                t.column("flashViewed", .boolean).notNull().defaults(to: false)
                t.column("isControl", .boolean).notNull().defaults(to: false)
                t.column("noticeSeq", .integer)
                t.uniqueKey(["senderUid", "clientMsgID"])
                t.uniqueKey(["conversationId", "seq"])
            }
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("cursor")
                t.column("uid", .integer).notNull()
                t.column("messageId", .integer)
                t.column("body", .text).notNull()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(index: "event_uid_cursor", on: "event", columns: ["uid", "cursor"])
            try db.create(index: "event_message", on: "event", columns: ["messageId"])
            try db.create(table: "meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .integer).notNull()
            }
            try db.create(table: "media") { t in
                t.primaryKey("objectKey", .text)
                t.column("uploaderUid", .integer).notNull()
                t.column("contentType", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("destroyed", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "media_grant") { t in
                t.column("objectKey", .text).notNull()
                t.column("conversationId", .text).notNull()
                t.column("messageId", .integer).notNull()
                t.primaryKey(["objectKey", "conversationId", "messageId"])
            }
            try db.create(table: "signal") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("ownerUid", .integer).notNull()
                t.column("content", .text).notNull()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "signal_reply") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("signalId", .integer).notNull()
                t.column("fromUid", .integer).notNull()
                t.column("content", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("isImOpened", .boolean).notNull().defaults(to: false)
            }
        }
        // A clientMsgID names one message inside a conversation (revoke and
        // flash_viewed look it up that way): sends check it through this index.
        m.registerMigration("v2-conversation-client-id") { db in
            try db.create(index: "message_conversation_client", on: "message", columns: ["conversationId", "clientMsgID"])
        }
        // Groups (PROTOCOL.md v2): the group itself, and per member the
        // seq they joined after (their history floor), the seq of the notice
        // that took them out (their ceiling; NULL while a member), mute and
        // the newest seq that mentioned them. A dissolved group frees its
        // unique name (NULLs do not collide in a UNIQUE column).
        m.registerMigration("v3-groups") { db in
            try db.create(table: "chat_group") { t in
                t.autoIncrementedPrimaryKey("gid")
                t.column("name", .text).notNull()
                t.column("uniqueName", .text).unique()
                t.column("notice", .text).notNull().defaults(to: "")
                t.column("ownerUid", .integer).notNull()
                t.column("joinable", .boolean).notNull().defaults(to: true)
                t.column("createdAt", .integer).notNull()
                t.column("dissolved", .boolean).notNull().defaults(to: false)
            }
            try db.alter(table: "member") { t in
                t.add(column: "isMuted", .boolean).notNull().defaults(to: false)
                t.add(column: "mentionSeq", .integer).notNull().defaults(to: 0)
                t.add(column: "joinedSeq", .integer).notNull().defaults(to: 0)
                t.add(column: "joinedAt", .integer).notNull().defaults(to: 0)
                t.add(column: "leftSeq", .integer)
            }
        }
        // Acting on a message (PROTOCOL.md v3): reactions as one JSON
        // object per message (every write holds the database's one writer,
        // so read-modify-write is safe) and when it was last edited.
        m.registerMigration("v4-message-actions") { db in
            try db.alter(table: "message") { t in
                t.add(column: "reactions", .text).notNull().defaults(to: "")
                t.add(column: "editedAt", .integer)
            }
            // Delete for me: a message a user never sees again (others keep it).
            try db.create(table: "message_hidden") { t in
                t.column("uid", .integer).notNull()
                t.column("messageId", .integer).notNull()
                t.primaryKey(["uid", "messageId"])
            }
        }
        // Favourites (PROTOCOL.md v3): a copy of the message, and the
        // objects it keeps readable by its owner.
        m.registerMigration("v5-favorites") { db in
            try db.create(table: "favorite") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("uid", .integer).notNull()
                t.column("conversationId", .text).notNull()
                t.column("conversationName", .text).notNull()
                t.column("messageId", .integer).notNull()
                t.column("message", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.uniqueKey(["uid", "messageId"])
            }
            try db.create(index: "favorite_message", on: "favorite", columns: ["messageId"])
            try db.create(table: "favorite_object") { t in
                t.column("favoriteId", .integer).notNull().references("favorite", onDelete: .cascade)
                t.column("uid", .integer).notNull()
                t.column("objectKey", .text).notNull()
                t.primaryKey(["favoriteId", "objectKey"])
            }
            try db.create(index: "favorite_object_key", on: "favorite_object", columns: ["objectKey", "uid"])
        }
        // People (PROTOCOL.md v3): signatures, the strangers setting,
        // friends (a row each way, with that side's remark), requests (one
        // per direction, asked again in place), blocks, group pictures, and
        // a token's device: its id, when it was last used, what it said it was.
        m.registerMigration("v6-people") { db in
            try db.alter(table: "user") { t in
                t.add(column: "signature", .text).notNull().defaults(to: "")
                t.add(column: "acceptStrangers", .boolean).notNull().defaults(to: true)
            }
            try db.create(index: "user_avatar", on: "user", columns: ["avatar"])
            try db.alter(table: "chat_group") { t in t.add(column: "avatar", .text).notNull().defaults(to: "") }
            try db.create(index: "chat_group_avatar", on: "chat_group", columns: ["avatar"])
            try db.create(table: "friend") { t in
                t.column("uid", .integer).notNull()
                t.column("peerUid", .integer).notNull()
                t.column("remark", .text).notNull().defaults(to: "")
                t.column("since", .integer).notNull()
                t.primaryKey(["uid", "peerUid"])
            }
            try db.create(table: "friend_request") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("fromUid", .integer).notNull()
                t.column("toUid", .integer).notNull().indexed()
                t.column("message", .text).notNull()
                t.column("status", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.uniqueKey(["fromUid", "toUid"])
            }
            try db.create(table: "block") { t in
                t.column("uid", .integer).notNull()
                t.column("blockedUid", .integer).notNull()
                t.column("createdAt", .integer).notNull()
                t.primaryKey(["uid", "blockedUid"])
            }
            try db.alter(table: "token") { t in
                t.add(column: "sessionId", .text)
                t.add(column: "lastSeenAt", .integer).notNull().defaults(to: 0)
                t.add(column: "userAgent", .text).notNull().defaults(to: "")
            }
            try db.execute(sql: "UPDATE token SET sessionId = lower(hex(randomblob(8))), lastSeenAt = createdAt")
            try db.create(index: "token_session", on: "token", columns: ["sessionId"], unique: true)
        }
        // Group messages written once (read diffusion): a group's entries
        // go to its timeline (uid 0, the conversation named), and each
        // member reads the timeline between the cursors they joined and left
        // at. Entries logged to each member before this stay where they are,
        // so a cursor from before it still pages on; today's members read
        // the timelines from here on.
        m.registerMigration("v7-timelines") { db in
            try db.alter(table: "event") { t in t.add(column: "conversationId", .text) }
            try db.execute(sql: "CREATE INDEX event_timeline ON event(conversationId, cursor) WHERE uid = 0")
            try db.create(table: "timeline_span") { t in
                t.column("uid", .integer).notNull()
                t.column("conversationId", .text).notNull()
                t.column("fromCursor", .integer).notNull()
                t.column("toCursor", .integer)
                t.primaryKey(["uid", "conversationId", "fromCursor"])
            }
            try db.execute(sql: """
                INSERT INTO timeline_span(uid, conversationId, fromCursor)
                SELECT m.uid, m.conversationId, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'event'), 0)
                FROM member m JOIN conversation c ON c.id = m.conversationId
                WHERE c.uidLow = 0 AND c.uidHigh = 0 AND m.leftSeq IS NULL
                """)
        }
        // Rooms (PROTOCOL.md v3): a room's fields, who is present (rows
        // that live as long as the presence), who is banned. A room's
        // messages are those of its conversation `sr_<rid>`.
        m.registerMigration("v8-rooms") { db in
            try db.create(table: "room") { t in
                t.autoIncrementedPrimaryKey("rid")
                t.column("name", .text).notNull()
                t.column("uniqueName", .text).unique()
                t.column("topic", .text).notNull().defaults(to: "")
                t.column("ownerUid", .integer).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("dropped", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "room_presence") { t in
                t.column("rid", .integer).notNull()
                t.column("uid", .integer).notNull().indexed()
                t.column("enteredAt", .integer).notNull()
                t.primaryKey(["rid", "uid"])
            }
            try db.create(table: "room_ban") { t in
                t.column("rid", .integer).notNull()
                t.column("uid", .integer).notNull()
                t.primaryKey(["rid", "uid"])
            }
        }
        // Limits and consent (PROTOCOL.md v4). A span remembers the seq its
        // member joined after: the timeline's entries about older messages
        // (an edit, a reaction) stay out of their sync. A logged conversation
        // summary names its last message, so a revoke or an edit finds the
        // summaries to scrub by an index, not by reading every body. `usage`
        // counts what the daily quotas limit, one row per use.
        m.registerMigration("v9-limits") { db in
            try db.alter(table: "timeline_span") { t in t.add(column: "fromSeq", .integer).notNull().defaults(to: 0) }
            try db.execute(sql: """
                UPDATE timeline_span SET fromSeq = COALESCE((SELECT m.joinedSeq FROM member m
                    WHERE m.uid = timeline_span.uid AND m.conversationId = timeline_span.conversationId), 0)
                WHERE toCursor IS NULL
                """)
            try db.alter(table: "event") { t in t.add(column: "summaryKey", .text) }
            try db.execute(sql: """
                UPDATE event SET summaryKey = json_extract(body, '$.conversation.conversationId') || char(10)
                    || json_extract(body, '$.conversation.lastMessage.clientMsgID')
                WHERE messageId IS NULL AND json_valid(body) AND json_extract(body, '$.kind') = 'conversation'
                  AND json_extract(body, '$.conversation.lastMessage.clientMsgID') IS NOT NULL
                """)
            try db.execute(sql: "CREATE INDEX event_summary ON event(summaryKey) WHERE summaryKey IS NOT NULL")
            try db.create(table: "usage") { t in
                t.column("uid", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("at", .integer).notNull()
                t.column("amount", .integer).notNull()
            }
            try db.create(index: "usage_uid_kind_at", on: "usage", columns: ["uid", "kind", "at"])
            // The demo seeded its grants with message 0; a grant now counts
            // for the span its message is in, so each is given its message.
            try db.execute(sql: """
                UPDATE OR IGNORE media_grant SET messageId = COALESCE((SELECT m.id FROM message m
                    WHERE m.conversationId = media_grant.conversationId AND instr(m.content, media_grant.objectKey) > 0
                    ORDER BY m.id LIMIT 1), 0)
                WHERE messageId = 0
                """)
        }
        // Typing, read receipts and the signal feed (PROTOCOL.md v4): the
        // two sharing switches; a signal its owner deleted stays for the
        // replies in their inbox; hides and reports per signal; the rooms a
        // user entered lately (`/room/mine`), one row per room and user.
        m.registerMigration("v10-alive") { db in
            try db.alter(table: "user") { t in
                t.add(column: "shareTyping", .boolean).notNull().defaults(to: true)
                t.add(column: "shareRead", .boolean).notNull().defaults(to: true)
            }
            try db.alter(table: "signal") { t in t.add(column: "deleted", .boolean).notNull().defaults(to: false) }
            try db.create(index: "signal_reply_from", on: "signal_reply", columns: ["signalId", "fromUid"])
            try db.create(index: "block_blocked", on: "block", columns: ["blockedUid"])
            try db.create(table: "signal_hide") { t in
                t.column("uid", .integer).notNull()
                t.column("signalId", .integer).notNull()
                t.primaryKey(["uid", "signalId"])
            }
            try db.create(table: "signal_report") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("signalId", .integer).notNull().indexed()
                t.column("reporterUid", .integer).notNull()
                t.column("reason", .text).notNull()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "room_visit") { t in
                t.column("uid", .integer).notNull()
                t.column("rid", .integer).notNull()
                t.column("at", .integer).notNull()
                t.primaryKey(["uid", "rid"])
            }
        }
        // Secret chats (PROTOCOL.md v4): devices' public keys, one-time
        // prekeys (each claimed once), disappearing messages' times.
        m.registerMigration("v11-secret") { db in
            try db.create(table: "device_key") { t in
                t.column("uid", .integer).notNull()
                t.column("deviceId", .text).notNull()
                t.column("identityKey", .blob).notNull()
                t.column("signingKey", .blob).notNull()
                t.column("spkId", .integer).notNull()
                t.column("spkKey", .blob).notNull()
                t.column("spkSignature", .blob).notNull()
                t.column("createdAt", .integer).notNull()
                t.primaryKey(["uid", "deviceId"])
            }
            try db.create(table: "one_time_prekey") { t in
                t.column("uid", .integer).notNull()
                t.column("deviceId", .text).notNull()
                t.column("keyId", .integer).notNull()
                t.column("key", .blob).notNull()
                t.primaryKey(["uid", "deviceId", "keyId"])
            }
            try db.create(table: "secret_expiry") { t in
                t.primaryKey("messageId", .integer)
                t.column("expireAt", .integer).notNull().indexed()
            }
        }
        return m
    }
}
