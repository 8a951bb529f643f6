import ChatCore
import Foundation
import GRDB
import Testing
@testable import ChatStore

let conv = "si_tb_1_tb_2"

func tempDir() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-store-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func makeStore(_ dir: URL = tempDir()) throws -> ChatStore {
    try ChatStore(path: dir.appendingPathComponent("u/chat.sqlite").path, myUid: 1)
}

func msg(_ seq: Int, _ text: String = "hi", from: String = "tb_2", client: String? = nil, time: Int? = nil,
         type: Int = 101) -> WireMessage {
    WireMessage(serverMsgID: "m\(seq)", clientMsgID: client ?? "c\(seq)", conversationId: conv, seq: seq,
                sendID: from, recvID: from == "tb_1" ? "tb_2" : "tb_1", contentType: type, content: text,
                sendTime: time ?? (1_000_000 + seq * 1000))
}

/// FTS5's own check that the search index is internally sound. It fails
/// after a 'delete' of a row the index never held (a trigger firing for a
/// row still waiting for the indexer). Its content comparison (rank 1)
/// does not apply: rows with no text are left out of the index on purpose.
func ftsIntegrity(_ store: ChatStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(throws: Never.self, "the search index is sound", sourceLocation: sourceLocation) {
        try store.dbPool.write { db in
            try db.execute(sql: "INSERT INTO message_fts(message_fts, rank) VALUES ('integrity-check', 0)")
        }
    }
}

@Suite struct StoreBasics {
    @Test func emptyFileMigratesAndIsPrivate() throws {
        let dir = tempDir()
        let store = try makeStore(dir)
        #expect(try store.appliedMigrations() == ["v1-core", "v2-search", "v3-outbox-failed", "v4-search-in-background",
                                                 "v5-profile-account"])
        let attrs = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
        let dirAttrs = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("u").path)
        #expect((dirAttrs[.posixPermissions] as? Int) == 0o700)
        let journal = try store.dbPool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    @Test func migratesFileFromPreviousMigration() throws {
        let dir = tempDir()
        let path = dir.appendingPathComponent("old.sqlite").path
        do {
            let q = try DatabaseQueue(path: path)
            try StoreMigrations.migrator.migrate(q, upTo: "v1-core")
            try q.write { db in
                var r = MessageRecord(wire: msg(1, "旧版本里的消息已撤回"))
                try r.insert(db)
                try ConversationRecord(id: conv, targetUid: 2).insert(db)
                try db.execute(sql: "INSERT INTO profile(uid, username, avatar, updatedAt) VALUES (2, '老朋友', '', 0)")
            }
        }
        let store = try ChatStore(path: path, myUid: 1)
        #expect(try store.appliedMigrations().last == "v5-profile-account")
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

@Suite struct StoreMessages {
    @Test func echoMergesIntoOptimisticMessage() throws {
        let store = try makeStore()
        var local = MessageRecord(wire: msg(0, "你好", from: "tb_1", client: "mine-1"))
        local.seq = nil
        try store.insertOutgoing(local, outbox: OutboxRecord(clientMsgID: "mine-1", conversationId: conv, contentType: 101,
                                                           content: "你好", pushDesc: "你好", createdAt: 0))
        #expect(try store.outbox().count == 1)
        let pending = try store.newestPage(conversationId: conv).messages
        #expect(pending.count == 1)
        #expect(pending[0].status == "sending")
        // The echo arrives through sync before the HTTP answer.
        try store.apply(events: [.message(msg(5, "你好", from: "tb_1", client: "mine-1"))], cursor: 1)
        try store.markSent(clientMsgID: "mine-1", response: SendMessageResponse(serverMsgID: "m5", clientMsgID: "mine-1", sendTime: 1, seq: 5))
        let page = try store.newestPage(conversationId: conv).messages
        #expect(page.count == 1, "no duplicate bubble")
        #expect(page[0].seq == 5)
        #expect(page[0].status == "success")
        #expect(try store.outbox().isEmpty)
        // Applying the same batch twice changes nothing.
        try store.apply(events: [.message(msg(5, "你好", from: "tb_1", client: "mine-1"))], cursor: 1)
        #expect(try store.newestPage(conversationId: conv).messages.count == 1)
    }

    @Test func aPeerReusingMyClientMsgIdDoesNotRewriteMyMessage() throws {
        let store = try makeStore()
        try store.apply(events: [.message(msg(1, "我写的", from: "tb_1", client: "mine"))], cursor: 1)
        try store.apply(events: [.message(msg(2, "冒名顶替", from: "tb_2", client: "mine"))], cursor: 2)
        let m = try #require(try store.message(clientMsgID: "mine"))
        #expect(m.content == "我写的" && m.sendID == "tb_1" && m.seq == 1)
    }

    @Test func aFailedMessageStaysWhereItWasWritten() throws {
        let store = try makeStore()
        let zh = Localizer(language: .zhHans)
        try store.apply(events: [.message(msg(1, "一")), .message(msg(2, "二"))], cursor: 2)
        var local = MessageRecord(wire: msg(0, "没发出去", from: "tb_1", client: "bad"))
        local.seq = nil
        try store.insertOutgoing(local, outbox: OutboxRecord(clientMsgID: "bad", conversationId: conv, contentType: 101,
                                                           content: "没发出去", pushDesc: "", createdAt: 0))
        try store.markFailed(clientMsgID: "bad", reason: "too long")
        #expect(try store.conversationList(localizer: zh).first?.lastMessagePreview == "没发出去")
        try store.apply(events: [.message(msg(3, "三")), .message(msg(4, "四"))], cursor: 4)
        func order() throws -> [String] { try store.newestPage(conversationId: conv).messages.map(\.content) }
        #expect(try order() == ["一", "二", "没发出去", "三", "四"], "what arrived since shows below it")
        #expect(try store.conversationList(localizer: zh).first?.lastMessagePreview == "四")
        // A message being sent is always the newest.
        var next = MessageRecord(wire: msg(0, "正在发", from: "tb_1", client: "now"))
        next.seq = nil
        try store.insertOutgoing(next, outbox: OutboxRecord(clientMsgID: "now", conversationId: conv, contentType: 101,
                                                          content: "正在发", pushDesc: "", createdAt: 0))
        #expect(try order() == ["一", "二", "没发出去", "三", "四", "正在发"])
        // Out of a small window it waits for the user to scroll back to it.
        #expect(try store.newestPage(conversationId: conv, limit: 2).messages.map(\.content) == ["三", "四", "正在发"])
    }

    @Test func failedThenRetried() throws {
        let store = try makeStore()
        var local = MessageRecord(wire: msg(0, "x", from: "tb_1", client: "f1"))
        local.seq = nil
        let ob = OutboxRecord(clientMsgID: "f1", conversationId: conv, contentType: 101, content: "x", pushDesc: "x", createdAt: 0)
        try store.insertOutgoing(local, outbox: ob)
        try store.markFailed(clientMsgID: "f1", reason: "text too long")
        let failed = try #require(try store.message(clientMsgID: "f1"))
        #expect(failed.status == "failed")
        #expect(failed.errorReason == "text too long")
        #expect(try store.outbox().isEmpty)
        // The retry gets the kept row back, uploads and all, not the bare one given.
        try store.requeue(clientMsgID: "f1", outbox: OutboxRecord(clientMsgID: "f1", conversationId: conv, contentType: 101,
                                                                 content: "bare", pushDesc: "", createdAt: 0))
        #expect(try store.outbox().map(\.clientMsgID) == ["f1"])
        #expect(try store.outbox().first?.pushDesc == "x")
        #expect(try store.message(clientMsgID: "f1")?.status == "sending")
    }

    @Test func pagingNewestFirstThenBefore() throws {
        let store = try makeStore()
        try store.apply(events: (1...100).map { .message(msg($0)) }, cursor: 100)
        let newest = try store.newestPage(conversationId: conv, limit: 40)
        #expect(newest.messages.map(\.seq) == Array(61...100))
        let older = try store.page(conversationId: conv, before: 61, limit: 40)
        #expect(older.messages.map(\.seq) == Array(21...60))
        let oldest = try store.page(conversationId: conv, before: 21, limit: 40)
        #expect(oldest.messages.map(\.seq) == Array(1...20))
    }

    @Test func revokeNoticeAndFlashViewedUpdateTargets() throws {
        let store = try makeStore()
        try store.apply(events: [
            .message(msg(1, "秘密消息内容")),
            .message(msg(2, #"{"type":"flash_image","objectKey":"k","url":"u","expireAt":1}"#, from: "tb_1", client: "flash", type: 110)),
        ], cursor: 2)
        try store.apply(events: [
            .message(msg(3, #"{"clientMsgID":"c1"}"#, type: 2101)),
            .message(msg(4, #"{"type":"flash_viewed","msgId":"flash"}"#, type: 110)),
        ], cursor: 4)
        let page = try store.newestPage(conversationId: conv).messages
        #expect(page.map(\.seq) == [1, 2], "control messages are not bubbles")
        #expect(page[0].revoked)
        #expect(page[0].content == "")
        #expect(page[1].flashViewed)
        #expect(try store.search("秘密消息").isEmpty, "revoked text is gone from the index")
        let c = try #require(try store.conversation(id: conv, localizer: Localizer(language: .zhHans)))
        #expect(c.maxSeq == 4)
        #expect(c.unreadCount == 0, "our flash image at seq 2 read everything before it; control messages never count")
    }

    @Test func unreadCountsOnlyPeersMessagesAfterRead() throws {
        let store = try makeStore()
        try store.apply(events: [.message(msg(1)), .message(msg(2)), .message(msg(3))], cursor: 3)
        #expect(try store.totalUnread() == 3)
        try store.markRead(id: conv, upTo: 2)
        #expect(try store.conversation(id: conv)?.unreadCount == 1)
        try store.markRead(id: conv, upTo: 1)
        #expect(try store.conversation(id: conv)?.readSeq == 2, "readSeq only moves forward")
        // Sending means we have read what came before.
        try store.apply(events: [.message(msg(4, from: "tb_1")), .message(msg(5))], cursor: 5)
        #expect(try store.conversation(id: conv)?.readSeq == 4)
        #expect(try store.totalUnread() == 1)
    }
}

@Suite struct StoreConversations {
    func summary(_ id: String, peer: Int, name: String, pinned: Bool = false, time: Int) -> ConversationSummary {
        ConversationSummary(conversationId: id, userId: "tb_\(peer)", showName: name, faceURL: "", isPinned: pinned,
                            unreadCount: 0, lastMessage: nil, lastMessageTime: time, maxSeq: 0, readSeq: 0,
                            isOnline: false, isImOpened: false)
    }

    @Test func listIsPinnedFirstThenNewest() throws {
        let store = try makeStore()
        try store.saveSummaries([
            summary("si_tb_1_tb_2", peer: 2, name: "B", time: 100),
            summary("si_tb_1_tb_3", peer: 3, name: "C", time: 300),
            summary("si_tb_1_tb_4", peer: 4, name: "D", pinned: true, time: 50),
            summary("si_tb_1_tb_5", peer: 5, name: "E", time: 200),
        ])
        #expect(try store.conversationList().map(\.nickname) == ["D", "C", "E", "B"])
        // The cached list follows every change.
        try store.setPinned(id: "si_tb_1_tb_2", isPinned: true)
        #expect(try store.conversationList().map(\.nickname) == ["B", "D", "C", "E"], "pinned by time, as the seed sorts")
        try store.apply(events: [.message(msg(1, "新的"))], cursor: 1)
        #expect(try store.conversationList(localizer: Localizer(language: .zhHans)).first { $0.nickname == "B" }?.lastMessagePreview == "新的")
    }

    @Test func deleteHidesUntilNewMessageAndClearedNeverReturns() throws {
        let store = try makeStore()
        try store.apply(events: [.message(msg(1, "旧消息")), .message(msg(2))], cursor: 2)
        try store.deleteConversation(id: conv)
        #expect(try store.conversationList().isEmpty)
        // An old message replayed by a sync must not come back.
        try store.apply(events: [.message(msg(1, "旧消息"))], cursor: 3)
        #expect(try store.conversationList().isEmpty)
        try store.apply(events: [.message(msg(3, "新消息"))], cursor: 4)
        let list = try store.conversationList(localizer: Localizer(language: .zhHans))
        #expect(list.count == 1)
        #expect(list[0].lastMessagePreview == "新消息")
        #expect(try store.newestPage(conversationId: conv).messages.map(\.seq) == [3])
    }

    @Test func previewIsThePendingSendThenTheHighestSeq() throws {
        let store = try makeStore()
        let zh = Localizer(language: .zhHans)
        func preview() throws -> String? { try store.conversationList(localizer: zh).first?.lastMessagePreview }
        // Out of order on the wire: the preview still follows seq, not arrival.
        try store.apply(events: [.message(msg(2, "二")), .message(msg(1, "一"))], cursor: 2)
        #expect(try preview() == "二")
        var local = MessageRecord(wire: msg(0, "待发", from: "tb_1", client: "mine-1"))
        local.seq = nil
        try store.insertOutgoing(local, outbox: OutboxRecord(clientMsgID: "mine-1", conversationId: conv, contentType: 101,
                                                           content: "待发", pushDesc: "待发", createdAt: 0))
        // A message arriving while ours is still being sent does not hide it.
        try store.apply(events: [.message(msg(3, "三"))], cursor: 3)
        #expect(try preview() == "待发")
        try store.apply(events: [.message(msg(4, "待发", from: "tb_1", client: "mine-1")), .message(msg(5, "五"))], cursor: 5)
        #expect(try preview() == "五")
        // Cleared history is not shown as the preview again.
        try store.clearHistory(id: conv)
        let cleared = try preview()
        #expect(cleared != "五")
        try store.apply(events: [.message(msg(3, "三"))], cursor: 6)
        #expect(try preview() == cleared, "a replayed old message is not the preview")
        try store.apply(events: [.message(msg(6, "六"))], cursor: 7)
        #expect(try preview() == "六")
    }

    @Test func clearKeepsConversation() throws {
        let store = try makeStore()
        try store.apply(events: [.message(msg(1)), .message(msg(2))], cursor: 2)
        try store.clearHistory(id: conv)
        #expect(try store.conversationList().count == 1)
        #expect(try store.newestPage(conversationId: conv).messages.isEmpty)
        #expect(try store.missingRanges(conversationId: conv).isEmpty, "cleared seqs are not holes")
    }

    @Test func draftPreview() throws {
        let store = try makeStore()
        try store.apply(events: [.message(msg(1))], cursor: 1)
        try store.setDraft(id: conv, text: "  ")
        #expect(try store.conversation(id: conv)?.draftText == nil)
        try store.setDraft(id: conv, text: "写了一半")
        #expect(try store.conversation(id: conv)?.draftText == "写了一半")
        // Leaving a chat with the draft as it was keeps the cached list (the
        // list of 1,000 is read again only when something changed).
        _ = try store.conversationList()
        let generation = store.listCache.generation
        try store.setDraft(id: conv, text: "写了一半")
        #expect(store.listCache.generation == generation)
        try store.setDraft(id: conv, text: nil)
        #expect(store.listCache.generation != generation)
        #expect(try store.conversation(id: conv)?.draftText == nil)
        let cleared = store.listCache.generation
        try store.setDraft(id: conv, text: "")
        #expect(store.listCache.generation == cleared)
    }

    /// Opening a chat with unread messages, typing a draft, a peer coming
    /// online: the cached list takes the change (it is not read again) and
    /// shows exactly what a fresh read shows.
    @Test func readDraftAndPresencePatchTheCachedList() throws {
        let store = try makeStore()
        let other = "si_tb_1_tb_3"
        let elsewhere = WireMessage(serverMsgID: "o1", clientMsgID: "o1", conversationId: other, seq: 1, sendID: "tb_3",
                                        recvID: "tb_1", contentType: 101, content: "别处", sendTime: 2_000_000)
        try store.apply(events: [.message(msg(1)), .message(msg(2)), .message(msg(3)), .message(elsewhere)], cursor: 4)
        let language = Localizer.current.language
        #expect(try store.conversationList().first { $0.id == conv }?.unreadCount == 3)
        func cachedMatchesDatabase() throws -> [Conversation] {
            let cached = try #require(store.listCache.get(language), "the cached list was dropped")
            #expect(cached == (try store.conversationList(useCache: false)))
            return cached
        }
        try store.markRead(id: conv, upTo: 2)
        var list = try cachedMatchesDatabase()
        #expect(list.first { $0.id == conv }?.unreadCount == 1)
        #expect(list.first { $0.id == conv }?.readSeq == 2)
        #expect(list.first { $0.id == other }?.unreadCount == 1, "only the read chat changes")
        try store.setDraft(id: conv, text: "草稿")
        try store.setImOpened(id: conv)
        try store.setOnline(imUid: "tb_3", online: true)
        list = try cachedMatchesDatabase()
        #expect(list.first { $0.id == conv }?.draftText == "草稿")
        #expect(list.first { $0.id == conv }?.isImOpened == true)
        #expect(list.first { $0.id == other }?.isOnline == true)
        #expect(list.first { $0.id == conv }?.isOnline == false)
        // A new message moves the row and its preview: the list is read again.
        try store.apply(events: [.message(msg(4, "新的"))], cursor: 5)
        #expect(store.listCache.get(language) == nil)
        #expect(try store.conversationList().first { $0.id == conv }?.lastMessagePreview == "新的")
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

@Suite struct StoreGapsAndSearch {
    @Test func gapsFromSeqsAndRanges() throws {
        let store = try makeStore()
        try store.apply(events: [1, 2, 3, 7, 8, 12].map { .message(msg($0)) }, cursor: 6)
        #expect(try store.missingRanges(conversationId: conv) == [4...6, 9...11])
        // The server said seq 4-6 were revoke notices we already know are covered.
        try store.addHistoryRange(conversationId: conv, low: 4, high: 6)
        #expect(try store.missingRanges(conversationId: conv) == [9...11])
        try store.saveHistory(conversationId: conv, messages: [9, 10, 11].map { msg($0) }, coveringFrom: 9, to: 11)
        #expect(try store.missingRanges(conversationId: conv).isEmpty)
        // A conversation summary saying maxSeq is 15 opens a gap at the top.
        var s = ConversationSummary(conversationId: conv, userId: "tb_2", showName: "B", faceURL: "", isPinned: false,
                                    unreadCount: 0, lastMessage: nil, lastMessageTime: 1, maxSeq: 15, readSeq: 0,
                                    isOnline: false, isImOpened: false)
        s.lastMessage = nil
        try store.saveSummaries([s])
        #expect(try store.missingRanges(conversationId: conv) == [13...15])
    }

    @Test func rangesMerge() throws {
        let store = try makeStore()
        try store.addHistoryRange(conversationId: conv, low: 1, high: 3)
        try store.addHistoryRange(conversationId: conv, low: 8, high: 9)
        try store.addHistoryRange(conversationId: conv, low: 4, high: 7)
        #expect(try storedRanges(store) == [1...9])
    }

    @Test func chineseSearch() throws {
        let store = try makeStore()
        try store.apply(events: [
            .message(msg(1, "明天一起去爬山吧")),
            .message(msg(2, "好的 see you")),
            .message(msg(3, "100%_真的")),
            .message(msg(4, #"{"type":"signal_quote","signalId":1,"replyContent":"周末爬山我也去","signalContent":"s"}"#, type: 110)),
        ], cursor: 4)
        // The same answers from the rows still waiting for the index and,
        // once indexed, from the trigram index.
        for state in ["waiting for the index", "indexed"] {
            if state == "indexed" {
                #expect(try store.searchBacklog() == 4)
                #expect(try store.indexSearchBacklog() == false)
                #expect(try store.searchBacklog() == 0)
            }
            #expect(Set(try store.search("爬山").map(\.seq)) == [1, 4], "two characters use the LIKE path (\(state))")
            #expect(try store.search("去爬山").map(\.seq) == [1], "three or more use FTS trigram (\(state))")
            #expect(try store.search("SEE YOU").map(\.seq) == [2], "\(state)")
            #expect(try store.search("%_").map(\.seq) == [3], "LIKE wildcards are escaped (\(state))")
            #expect(try store.search("100%_真").map(\.seq) == [3], "\(state)")
            #expect(try store.search("\"").isEmpty)
            #expect(try store.search("不存在的内容").isEmpty)
        }
        try ftsIntegrity(store)
    }
}

/// The search index grows after messages are stored (`SearchIndexer`), not
/// in the transaction that stores them.
@Suite struct SearchIndexing {
    /// Never indexes by itself: the test decides when.
    static let manual = SearchIndexTiming(quiet: .seconds(3600), maxDelay: .seconds(3600))

    func store(_ dir: URL = tempDir(), _ timing: SearchIndexTiming = manual) throws -> ChatStore {
        try ChatStore(path: dir.appendingPathComponent("u/chat.sqlite").path, myUid: 1, searchIndexing: timing)
    }

    /// Waits (up to 10 s) until nothing waits for the index.
    func caughtUp(_ store: ChatStore) async throws -> Bool {
        for _ in 0..<1000 {
            if try store.searchBacklog() == 0 { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func revokingAndClearingIndexedAndWaitingMessagesKeepsTheIndexSound() throws {
        let store = try store()
        try store.apply(events: [
            .message(msg(1, "第一条秘密消息")), .message(msg(2, "第二条消息")), .message(msg(3, "第三条消息")),
        ], cursor: 3)
        #expect(try store.indexSearchBacklog() == false)
        try store.apply(events: [
            .message(msg(4, "第四条秘密消息")), .message(msg(5, "第五条消息")),
        ], cursor: 5)
        #expect(try store.searchBacklog() == 2)
        // One revoked message already in the index, one still waiting.
        try store.apply(events: [
            .message(msg(6, #"{"clientMsgID":"c1"}"#, type: 2101)),
            .message(msg(7, #"{"clientMsgID":"c4"}"#, type: 2101)),
        ], cursor: 7)
        try ftsIntegrity(store)
        #expect(try store.search("秘密消息").isEmpty, "revoked text is found neither in the index nor in the waiting rows")
        #expect(try store.search("条消息").map(\.seq) == [5, 3, 2])
        #expect(try store.indexSearchBacklog() == false)
        try ftsIntegrity(store)
        #expect(try store.search("秘密消息").isEmpty)
        #expect(try store.search("条消息").map(\.seq) == [5, 3, 2])

        // Clearing the history deletes indexed rows (taken out of the
        // index) and waiting ones (never in it).
        try store.apply(events: [.message(msg(8, "第八条消息"))], cursor: 8)
        try store.clearHistory(id: conv)
        try ftsIntegrity(store)
        #expect(try store.search("条消息").isEmpty)
        #expect(try store.indexSearchBacklog() == false)
        try ftsIntegrity(store)
        try store.apply(events: [.message(msg(9, "清空之后的消息"))], cursor: 9)
        #expect(try store.search("之后的").map(\.seq) == [9])
    }

    @Test func aBurstIsIndexedOnceItIsOver() async throws {
        let store = try store(tempDir(), SearchIndexTiming(quiet: .milliseconds(50), maxDelay: .seconds(30), batch: 7))
        for b in 0..<10 {
            try store.apply(events: (1...10).map { .message(msg(b * 10 + $0, "消息 \(b * 10 + $0) 内容")) }, cursor: b * 10 + 10)
        }
        #expect(try store.searchBacklog() > 0, "nothing is indexed while the burst lasts")
        #expect(try await caughtUp(store), "indexed in batches of 7 after 50 ms of quiet")
        try ftsIntegrity(store)
        #expect(try store.search("消息 57 ").map(\.seq) == [57])
    }

    @Test func aSteadyTrickleIsIndexedWithoutWaitingForQuiet() async throws {
        let store = try store(tempDir(), SearchIndexTiming(quiet: .seconds(3600), maxDelay: .milliseconds(100)))
        // Messages keep coming (quiet never arrives) until the indexer has
        // run anyway, because the oldest waiting message waited maxDelay.
        var sent = 0
        while sent < 500 {
            sent += 1
            try store.apply(events: [.message(msg(sent, "细水长流 \(sent)"))], cursor: sent)
            if try store.searchBacklog() < sent { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try store.searchBacklog() < sent, "indexed during the trickle, after \(sent) messages")
        #expect(try await caughtUp(store))
        try ftsIntegrity(store)
    }

    @Test func reopeningIndexesWhatTheLastRunLeft() async throws {
        let dir = tempDir()
        do {
            let first = try store(dir)
            try first.apply(events: [.message(msg(1, "上次没来得及索引")), .message(msg(2, "还有这一条"))], cursor: 2)
            #expect(try first.searchBacklog() == 2)
        }
        let reopened = try store(dir, SearchIndexTiming(quiet: .milliseconds(10), maxDelay: .milliseconds(10)))
        #expect(try await caughtUp(reopened), "indexed without any new message")
        #expect(try reopened.search("来得及").map(\.seq) == [1])
        try ftsIntegrity(reopened)
    }
}

/// The history ranges recorded for `conv`, as the store reads them back.
func storedRanges(_ store: ChatStore) throws -> [ClosedRange<Int>] {
    try store.dbPool.read { db in
        try Row.fetchAll(db, sql: "SELECT lowSeq, highSeq FROM history_range WHERE conversationId = ? ORDER BY lowSeq",
                         arguments: [conv]).compactMap { ChatStore.seqRange($0["lowSeq"], $0["highSeq"]) }
    }
}
