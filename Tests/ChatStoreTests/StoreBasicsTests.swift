import ChatCore
import Foundation
import GRDB
import Testing
@testable import ChatStore

@Suite struct StoreBasics {
    @Test func emptyFileMigratesAndIsPrivate() throws {
        let dir = tempDir()
        let store = try makeStore(dir)
        #expect(try store.appliedMigrations() == ["v1-core", "v2-search", "v3-outbox-failed", "v4-search-in-background",
                                                 "v5-profile-account", "v6-groups", "v7-outbox-may-have-arrived",
                                                 "v8-pinned-order", "v9-message-actions", "v10-search-mentions-and-files",
                                                 "v11-people", "v12-peer-read", "v13-secret"])
        let attrs = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
        let dirAttrs = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("u").path)
        #expect((dirAttrs[.posixPermissions] as? Int) == 0o700)
        let journal = try store.dbPool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    /// A flood's inserts must not grow the writer's page cache to SQLite's
    /// 2 MiB default; the readers, which page and search, keep it.
    @Test func theWriterKeepsASmallPageCacheAndTheReadersTheDefault() throws {
        let store = try makeStore(tempDir())
        let writer = try store.dbPool.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        let reader = try store.dbPool.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        #expect(writer == -ChatStore.writerCacheKiB)
        #expect(ChatStore.writerCacheKiB < 2000)
        #expect(reader == -2000)
    }

    @Test func migratesFileFromPreviousMigration() throws {
        let dir = tempDir()
        let path = dir.appendingPathComponent("old.sqlite").path
        do {
            let q = try DatabaseQueue(path: path)
            try StoreMigrations.migrator.migrate(q, upTo: "v1-core")
            try q.write { db in
                // The rows as v1 wrote them (today's record has more columns).
                let r = MessageRecord(wire: msg(1, "旧版本里的消息已撤回"))
                try db.execute(sql: """
                    INSERT INTO message(clientMsgID, serverMsgID, conversationId, seq, sendID, recvID, contentType, content,
                                        sendTime, revoked, flashViewed, isControl, status, errorReason, searchText)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [r.clientMsgID, r.serverMsgID, r.conversationId, r.seq, r.sendID, r.recvID, r.contentType,
                                     r.content, r.sendTime, r.revoked, r.flashViewed, r.isControl, r.status, r.errorReason,
                                     r.searchText])
                try db.execute(sql: "INSERT INTO conversation(id, targetUid) VALUES (?, 2)", arguments: [conv])
                try db.execute(sql: "INSERT INTO profile(uid, username, avatar, updatedAt) VALUES (2, '老朋友', '', 0)")
            }
        }
        let store = try ChatStore(path: path, myUid: 1)
        #expect(try store.appliedMigrations().last == "v13-secret")
        let kept = try #require(try store.message(clientMsgID: "c1"))
        #expect(kept.reactions.isEmpty && kept.editedAt == nil, "an old message has no reactions and was never edited")
        let old = try #require(try store.conversation(id: conv))
        #expect(!old.isGroup && !old.isMuted && old.mentionSeq == 0 && old.isMember, "an old row reads as a one-to-one chat")
        #expect(old.peerReadSeq == nil, "no read receipts were heard before v4")
        // A profile cached before accounts were kept is asked for again.
        #expect(try store.peersLackingProfile() == [2])
        #expect(try store.profiles(uids: [2])[2]?.username == "老朋友")
        #expect(try store.search("撤回").count == 1)
        #expect(try store.search("版本里").map(\.clientMsgID) == ["c1"])
        #expect(try store.searchBacklog() == 0, "rows indexed by the old trigger are not indexed twice")
        try ftsIntegrity(store)
    }

    @Test func reopenKeepsEverything() throws {
        let dir = tempDir()
        do {
            let store = try makeStore(dir)
            try store.apply(events: [.message(msg(1)), .message(msg(2))], cursor: 9)
            try store.setDraft(id: conv, text: "草稿")
            try store.setPinned(id: conv, isPinned: true)
        }
        let store = try makeStore(dir)
        #expect(try store.syncCursor() == 9)
        #expect(try store.newestPage(conversationId: conv).messages.map(\.seq) == [1, 2])
        let c = try #require(try store.conversation(id: conv, localizer: Localizer(language: .zhHans)))
        #expect(c.draftText == "草稿")
        #expect(c.isPinned)
    }
}

@Suite struct StoreEditedByHand {
    /// Rows nobody but a hand (or a broken disk) writes: gaps are still
    /// computed, within the seqs the wire allows, without a trap.
    @Test func impossibleSeqRowsDoNotTrap() throws {
        let store = try makeStore()
        try store.apply(events: [1, 2, 5].map { .message(msg($0)) }, cursor: 3)
        try store.dbPool.write { db in
            try db.execute(sql: "INSERT INTO history_range(conversationId, lowSeq, highSeq) VALUES (?, 9, 3)", arguments: [conv])
            try db.execute(sql: "INSERT INTO history_range(conversationId, lowSeq, highSeq) VALUES (?, ?, ?)", arguments: [conv, Int.min, Int.max])
            try db.execute(sql: "UPDATE conversation SET maxSeq = ? WHERE id = ?", arguments: [Int.max, conv])
        }
        let missing = try store.missingRanges(conversationId: conv)
        #expect(missing.first == 3...4)
        #expect(missing.last?.upperBound == WireRange.max)
        #expect(try storedRanges(store).isEmpty, "neither row is a range")
    }
}
