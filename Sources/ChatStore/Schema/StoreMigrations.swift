import GRDB

/// Named, append-only migrations. Never edit a shipped migration: add one.
enum StoreMigrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1-core") { db in
            try db.create(table: "conversation") { t in
                t.primaryKey("id", .text)
                t.column("targetUid", .integer).notNull()
                t.column("nickname", .text).notNull().defaults(to: "")
                t.column("avatar", .text).notNull().defaults(to: "")
                t.column("isOnline", .boolean).notNull().defaults(to: false)
                t.column("fromSignal", .boolean).notNull().defaults(to: false)
                t.column("signalId", .integer)
                t.column("receiveId", .text)
                t.column("signalReply", .text)
                t.column("signalContent", .text)
                t.column("isImOpened", .boolean).notNull().defaults(to: false)
                t.column("isPinned", .boolean).notNull().defaults(to: false)
                t.column("pinnedAt", .integer).notNull().defaults(to: 0)
                t.column("draftText", .text)
                t.column("unreadCount", .integer).notNull().defaults(to: 0)
                t.column("lastMessageTime", .integer).notNull().defaults(to: 0)
                t.column("maxSeq", .integer).notNull().defaults(to: 0)
                t.column("readSeq", .integer).notNull().defaults(to: 0)
                t.column("hidden", .boolean).notNull().defaults(to: false)
                t.column("clearedSeq", .integer).notNull().defaults(to: 0)
                t.column("lastClientMsgID", .text)
                t.column("lastSendID", .text)
                t.column("lastContentType", .integer)
                t.column("lastContent", .text)
                t.column("lastRevoked", .boolean).notNull().defaults(to: false)
                t.column("lastSeq", .integer)
            }
            try db.create(index: "conversation_list", on: "conversation",
                          columns: ["hidden", "isPinned", "lastMessageTime"])

            try db.create(table: "message") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("clientMsgID", .text).notNull().unique()
                t.column("serverMsgID", .text)
                t.column("conversationId", .text).notNull()
                t.column("seq", .integer)
                t.column("sendID", .text).notNull()
                t.column("recvID", .text).notNull()
                t.column("contentType", .integer).notNull()
                t.column("content", .text).notNull()
                t.column("sendTime", .integer).notNull()
                t.column("revoked", .boolean).notNull().defaults(to: false)
                t.column("flashViewed", .boolean).notNull().defaults(to: false)
                t.column("isControl", .boolean).notNull().defaults(to: false)
                t.column("status", .text).notNull().defaults(to: "success")
                t.column("errorReason", .text)
                t.column("searchText", .text).notNull().defaults(to: "")
            }
            try db.create(index: "message_conversation_seq", on: "message", columns: ["conversationId", "seq"])

            try db.create(table: "outbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("clientMsgID", .text).notNull().unique()
                t.column("conversationId", .text).notNull()
                t.column("contentType", .integer).notNull()
                t.column("content", .text).notNull()
                t.column("receiveId", .text)
                t.column("pushDesc", .text).notNull().defaults(to: "")
                t.column("pendingUploads", .text)
                t.column("mediaKind", .text)
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("lastError", .text)
                t.column("createdAt", .integer).notNull()
            }

            try db.create(table: "profile") { t in
                t.primaryKey("uid", .integer)
                t.column("username", .text).notNull()
                t.column("avatar", .text).notNull().defaults(to: "")
                t.column("updatedAt", .integer).notNull()
            }

            try db.create(table: "sync_state") { t in
                t.primaryKey("key", .text)
                t.column("value", .integer).notNull()
            }

            // Seq ranges [lowSeq, highSeq] of a conversation known to be held
            // locally in full (seed 001's history checkpoints). Kept merged:
            // ranges of one conversation never touch or overlap.
            try db.create(table: "history_range") { t in
                t.column("conversationId", .text).notNull()
                t.column("lowSeq", .integer).notNull()
                t.column("highSeq", .integer).notNull()
                t.primaryKey(["conversationId", "lowSeq"])
            }
        }

        m.registerMigration("v2-search") { db in
            // Trigram FTS over message text: finds 已撤回 inside 消息已撤回.
            // Queries shorter than three characters use a LIKE fallback.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE message_fts USING fts5(
                    searchText, content='message', content_rowid='id', tokenize='trigram');
                CREATE TRIGGER message_fts_ai AFTER INSERT ON message WHEN new.searchText <> '' BEGIN
                    INSERT INTO message_fts(rowid, searchText) VALUES (new.id, new.searchText);
                END;
                CREATE TRIGGER message_fts_ad AFTER DELETE ON message WHEN old.searchText <> '' BEGIN
                    INSERT INTO message_fts(message_fts, rowid, searchText) VALUES ('delete', old.id, old.searchText);
                END;
                CREATE TRIGGER message_fts_au AFTER UPDATE OF searchText ON message BEGIN
                    INSERT INTO message_fts(message_fts, rowid, searchText)
                        SELECT 'delete', old.id, old.searchText WHERE old.searchText <> '';
                    INSERT INTO message_fts(rowid, searchText)
                        SELECT new.id, new.searchText WHERE new.searchText <> '';
                END;
                INSERT INTO message_fts(message_fts) VALUES ('rebuild');
                """)
        }
        m.registerMigration("v3-outbox-failed") { db in
            // A send that failed for good keeps its outbox row (its pending
            // uploads, receive_id and push text) so a retry can send it whole.
            try db.alter(table: "outbox") { t in
                t.add(column: "failed", .boolean).notNull().defaults(to: false)
            }
        }
        m.registerMigration("v4-search-in-background") { db in
            // The search index grows outside the transaction that stores a
            // message (v2's insert trigger, dropped here, did it inside), so
            // a burst of incoming messages reaches the screen before its
            // trigrams are computed. `SearchIndexer` indexes the rows past
            // `indexedThrough` once the burst is over, and search reads
            // those rows directly until then. Row ids only grow (AUTOINCREMENT),
            // so "id > indexedThrough" is exactly the rows the index lacks;
            // deletes and text changes touch the index only for rows in it.
            try db.execute(sql: """
                CREATE TABLE search_index_state(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    indexedThrough INTEGER NOT NULL);
                INSERT INTO search_index_state(id, indexedThrough)
                    VALUES (1, (SELECT COALESCE(MAX(id), 0) FROM message));
                DROP TRIGGER message_fts_ai;
                DROP TRIGGER message_fts_ad;
                DROP TRIGGER message_fts_au;
                CREATE TRIGGER message_fts_ad AFTER DELETE ON message
                    WHEN old.searchText <> '' AND old.id <= (SELECT indexedThrough FROM search_index_state WHERE id = 1)
                BEGIN
                    INSERT INTO message_fts(message_fts, rowid, searchText) VALUES ('delete', old.id, old.searchText);
                END;
                CREATE TRIGGER message_fts_au AFTER UPDATE OF searchText ON message
                    WHEN old.id <= (SELECT indexedThrough FROM search_index_state WHERE id = 1)
                BEGIN
                    INSERT INTO message_fts(message_fts, rowid, searchText)
                        SELECT 'delete', old.id, old.searchText WHERE old.searchText <> '';
                    INSERT INTO message_fts(rowid, searchText)
                        SELECT new.id, new.searchText WHERE new.searchText <> '';
                END;
                """)
        }

        m.registerMigration("v5-profile-account") { db in
            // A peer's login name, so `send --to ACCOUNT` resolves offline.
            // NULL: not known yet (cached before this column, or from a
            // server that does not send it); such profiles are fetched again.
            try db.alter(table: "profile") { t in t.add(column: "account", .text) }
            try db.create(index: "profile_account", on: "profile", columns: ["account"])
        }

        m.registerMigration("v6-groups") { db in
            // PROTOCOL.md v2: mute and mentions for every conversation; a
            // group's id, member count and whether I am still in it; the
            // groups and members known, so a group opens offline.
            try db.alter(table: "conversation") { t in
                t.add(column: "isMuted", .boolean).notNull().defaults(to: false)
                t.add(column: "mentionSeq", .integer).notNull().defaults(to: 0)
                t.add(column: "groupId", .integer)
                t.add(column: "memberCount", .integer).notNull().defaults(to: 0)
                t.add(column: "isMember", .boolean).notNull().defaults(to: true)
            }
            try db.create(table: "group_info") { t in
                t.primaryKey("groupId", .integer)
                t.column("name", .text).notNull()
                t.column("uniqueName", .text).notNull()
                t.column("notice", .text).notNull()
                t.column("ownerId", .text).notNull()
                t.column("memberCount", .integer).notNull()
                t.column("joinable", .boolean).notNull()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "group_member") { t in
                t.column("groupId", .integer).notNull()
                t.column("uid", .integer).notNull()
                t.column("username", .text).notNull()
                t.column("role", .text).notNull()
                t.column("joinedAt", .integer).notNull()
                t.column("account", .text)
                t.primaryKey(["groupId", "uid"])
            }
        }
        m.registerMigration("v7-outbox-may-have-arrived") { db in
            // An attempt whose request may have reached the server: such a
            // message is only ever resent (same clientMsgID), never taken back.
            try db.alter(table: "outbox") { t in
                t.add(column: "mayHaveArrived", .boolean).notNull().defaults(to: false)
            }
        }
        m.registerMigration("v8-pinned-order") { db in
            // The list's order (Conversation.listOrder) straight from the index.
            try db.drop(index: "conversation_list")
            try db.create(index: "conversation_list", on: "conversation",
                          columns: ["hidden", "isPinned", "pinnedAt", "lastMessageTime", "id"])
        }
        m.registerMigration("v9-message-actions") { db in
            // PROTOCOL.md v3: a message's reactions (`Reactions.jsonText`,
            // "" for none) and when its sender last edited it.
            try db.alter(table: "message") { t in
                t.add(column: "reactions", .text).notNull().defaults(to: "")
                t.add(column: "editedAt", .integer)
            }
        }
        m.registerMigration("v10-search-mentions-and-files") { db in
            // Search finds a mention by its text and a file by its name
            // (`MessageKind.searchText`); rows stored before are given
            // theirs. The update trigger keeps the index in step for rows
            // already in it; the others are indexed as usual.
            try db.execute(sql: """
                UPDATE message SET searchText = json_extract(content, '$.text')
                WHERE contentType = 106 AND revoked = 0 AND json_valid(content)
                  AND json_type(content, '$.text') = 'text';
                UPDATE message SET searchText = json_extract(content, '$.name')
                WHERE contentType = 110 AND revoked = 0 AND json_valid(content)
                  AND json_extract(content, '$.type') = 'file' AND json_type(content, '$.name') = 'text';
                """)
        }
        m.registerMigration("v11-people") { db in
            // PROTOCOL.md v3 "People": friends as last heard (`contact`
            // events, `/friend/list`) and pending friend requests both ways,
            // so the contacts view opens offline.
            try db.create(table: "contact") { t in
                t.primaryKey("uid", .integer)
                t.column("username", .text).notNull()
                t.column("avatar", .text).notNull().defaults(to: "")
                t.column("account", .text)
                t.column("signature", .text)
                t.column("remark", .text).notNull().defaults(to: "")
                t.column("since", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "friendRequest") { t in
                t.primaryKey("requestId", .integer)
                t.column("status", .text).notNull()
                t.column("createdAt", .integer).notNull()
                // The request as the server sent it (`FriendRequest` JSON).
                t.column("body", .text).notNull()
            }
        }
        m.registerMigration("v12-peer-read") { db in
            // PROTOCOL.md v4 read receipts: how far the peer of a one-to-one chat read.
            try db.alter(table: "conversation") { t in t.add(column: "peerReadSeq", .integer) }
        }
        m.registerMigration("v13-secret") { db in
            // PROTOCOL.md v4 secret chats. This device's keys (private halves
            // included: the store is 0600 and never leaves the machine), its
            // ratchet sessions with other devices, the devices it knows of each
            // person (safety numbers), base keys it has answered (replays),
            // and each secret chat's disappearing-message timer.
            try db.create(table: "secretIdentity") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("deviceId", .text).notNull()
                t.column("keys", .blob).notNull()
                t.column("uploaded", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "secretSession") { t in
                t.column("imUid", .text).notNull()
                t.column("deviceId", .text).notNull()
                // 0 is the session in use; higher slots are older ones kept for
                // messages still on their way (both sides starting at once).
                t.column("slot", .integer).notNull()
                t.column("identityKey", .blob).notNull()
                t.column("ad", .blob).notNull()
                t.column("state", .blob).notNull()
                // The X3DH start sent with each message until the peer answers.
                t.column("start", .blob)
                // A session this device answered: the initiator's base key.
                t.column("baseKey", .blob)
                t.primaryKey(["imUid", "deviceId", "slot"])
            }
            try db.create(table: "secretDevice") { t in
                t.column("imUid", .text).notNull()
                t.column("deviceId", .text).notNull()
                t.column("identityKey", .blob).notNull()
                t.column("signingKey", .blob).notNull()
                t.primaryKey(["imUid", "deviceId"])
            }
            try db.create(table: "secretPeer") { t in
                t.primaryKey("imUid", .text)
                // The safety number the user marked verified ("" for none).
                t.column("verified", .text).notNull().defaults(to: "")
            }
            try db.create(table: "secretBaseKey") { t in t.primaryKey("baseKey", .blob) }
            // What this device sealed, by clientMsgID: its own controls come
            // back without an envelope for it and are applied from here.
            // The keys of secret messages' blobs, so a picture fetched later
            // (a flash image, one that failed to fetch) is opened too.
            try db.create(table: "secretBlobKey") { t in
                t.primaryKey("objectKey", .text)
                t.column("key", .text).notNull()
                t.column("sha256", .text).notNull()
            }
            try db.create(table: "secretSent") { t in
                t.primaryKey("clientMsgID", .text)
                t.column("plaintext", .blob).notNull()
            }
            try db.create(table: "secretChat") { t in
                t.primaryKey("conversationId", .text)
                t.column("timerSeconds", .integer).notNull().defaults(to: 0)
                t.column("timerSeq", .integer).notNull().defaults(to: 0)
            }
        }
        return m
    }
}
