import ChatCore
import Foundation
import GRDB
import Testing
@testable import ChatStore

@Suite struct StoreSearch {
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

    /// v3: mentions by their text, replies by theirs, files by their name;
    /// rows stored before the migration are found too.
    @Test func mentionsRepliesAndFileNamesAreFound() throws {
        let dir = tempDir()
        let path = dir.appendingPathComponent("old.sqlite").path
        let mention = MentionPayload(text: "@阿紫 周末登山", atUserIDs: ["tb_1"]).jsonText
        let file = #"{"type":"file","objectKey":"k","name":"登山路线图.pdf","size":3}"#
        do {
            // Stored and indexed by a version that kept no words for them.
            let q = try DatabaseQueue(path: path)
            try StoreMigrations.migrator.migrate(q, upTo: "v9-message-actions")
            try q.write { db in
                try db.execute(sql: "INSERT INTO conversation(id, targetUid) VALUES (?, 2)", arguments: [conv])
                for (seq, type, content) in [(1, 106, mention), (2, 110, file), (3, 110, "{not json")] {
                    try db.execute(sql: """
                        INSERT INTO message(clientMsgID, conversationId, seq, sendID, recvID, contentType, content, sendTime,
                                            revoked, flashViewed, isControl, status, searchText)
                        VALUES (?, ?, ?, 'tb_2', 'tb_1', ?, ?, ?, 0, 0, 0, 'success', '')
                        """, arguments: ["c\(seq)", conv, seq, type, content, 1_000_000 + seq])
                }
                try db.execute(sql: "UPDATE search_index_state SET indexedThrough = 3")
            }
        }
        let store = try ChatStore(path: path, myUid: 1)
        #expect(Set(try store.search("周末登山").map(\.seq)) == [1], "an old mention, by its text")
        #expect(Set(try store.search("路线图").map(\.seq)) == [2], "an old file, by its name")
        try store.apply(events: [
            .message(msg(4, QuotePayload(text: "登山鞋带了吗", quote: .init(clientMsgID: "c1")).jsonText, type: ContentType.quote)),
            .message(msg(5, MentionPayload(text: "@所有人 登山集合", atUserIDs: [], atAll: true).jsonText, type: ContentType.mention)),
        ], cursor: 5)
        #expect(try store.indexSearchBacklog() == false)
        #expect(Set(try store.search("登山").map(\.seq)) == [1, 2, 4, 5])
        try ftsIntegrity(store)
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
