import ChatCore
import Foundation
import GRDB
import Testing
@testable import ChatStore

@Suite struct StoreMessages {
    @Test func echoMergesIntoOptimisticMessage() throws {
        let store = try makeStore()
        var local = MessageRecord(wire: msg(0, "你好", from: "tb_1", client: "mine-1"))
        local.seq = nil
        try store.insertOutgoing(local.stored, outbox: OutboxItem(clientMsgID: "mine-1", conversationId: conv, contentType: 101,
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
        try store.insertOutgoing(local.stored, outbox: OutboxItem(clientMsgID: "bad", conversationId: conv, contentType: 101,
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
        try store.insertOutgoing(next.stored, outbox: OutboxItem(clientMsgID: "now", conversationId: conv, contentType: 101,
                                                          content: "正在发", pushDesc: "", createdAt: 0))
        #expect(try order() == ["一", "二", "没发出去", "三", "四", "正在发"])
        // Out of a small window it waits for the user to scroll back to it.
        #expect(try store.newestPage(conversationId: conv, limit: 2).messages.map(\.content) == ["三", "四", "正在发"])
    }

    @Test func failedThenRetried() throws {
        let store = try makeStore()
        var local = MessageRecord(wire: msg(0, "x", from: "tb_1", client: "f1"))
        local.seq = nil
        let ob = OutboxItem(clientMsgID: "f1", conversationId: conv, contentType: 101, content: "x", pushDesc: "x", createdAt: 0)
        try store.insertOutgoing(local.stored, outbox: ob)
        try store.markFailed(clientMsgID: "f1", reason: "text too long")
        let failed = try #require(try store.message(clientMsgID: "f1"))
        #expect(failed.status == "failed")
        #expect(failed.errorReason == "text too long")
        #expect(try store.outbox().isEmpty)
        // The retry gets the kept row back, uploads and all, not the bare one given.
        try store.requeue(clientMsgID: "f1", outbox: OutboxItem(clientMsgID: "f1", conversationId: conv, contentType: 101,
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

@Suite struct StoreHistoryGaps {
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
}
