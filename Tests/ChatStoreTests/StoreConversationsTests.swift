import ChatCore
import Foundation
import GRDB
import Testing
@testable import ChatStore

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
        #expect(try store.conversationList().map(\.nickname) == ["B", "D", "C", "E"], "the latest pinned first")
        try store.setPinned(id: "si_tb_1_tb_4", isPinned: false)
        try store.setPinned(id: "si_tb_1_tb_4", isPinned: true)
        #expect(try store.conversationList().map(\.nickname) == ["D", "B", "C", "E"], "pinned again: first, older messages or not")
        try store.apply(events: [.message(msg(1, "新的"))], cursor: 1)
        #expect(try store.conversationList(localizer: Localizer(language: .zhHans)).first { $0.nickname == "B" }?.lastMessagePreview == "新的")
    }

    /// The list reads its rows by position, checking the columns once per
    /// query: the same records as reading every column by name.
    @Test func theListReadByPositionIsTheListReadByName() throws {
        let store = try makeStore()
        try store.saveSummaries([
            summary("si_tb_1_tb_2", peer: 2, name: "Bob 鲍勃", time: 100),
            summary("si_tb_1_tb_3", peer: 3, name: "Carol", pinned: true, time: 300),
        ])
        try store.apply(events: [.message(msg(1, "你好 😀")), .message(msg(2, "第二条"))], cursor: 2)
        try store.setPinned(id: "si_tb_1_tb_2", isPinned: true)
        try store.setDraft(id: "si_tb_1_tb_3", text: "草稿")
        let (positional, named) = try store.dbPool.read { db in
            (try ConversationTable.visible(db),
             try ConversationRecord.fetchAll(db, sql: """
                 SELECT * FROM conversation WHERE hidden = 0 ORDER BY isPinned DESC, pinnedAt DESC, lastMessageTime DESC, id DESC
                 """))
        }
        #expect(positional.count == 2)
        #expect(positional == named)
        #expect(positional.first?.lastContent == "第二条" && positional.last?.draftText == "草稿")
    }

    /// v3: a friend's remark is the name the list and the chat show, and
    /// friend events and requests land in the store.
    @Test func aRemarkNamesTheChatAndPeopleEventsAreKept() throws {
        let store = try makeStore()
        try store.saveSummaries([summary("si_tb_1_tb_2", peer: 2, name: "Bob", time: 100)])
        let bob = UserBasicInfo(uid: 2, username: "Bob", account: "bob")
        try store.apply(events: [.contact(Contact(user: bob, remark: "老鲍", since: 5), removed: false)], cursor: 1)
        #expect(try store.conversationList().map(\.nickname) == ["老鲍"])
        #expect(try store.conversation(id: "si_tb_1_tb_2")?.nickname == "老鲍")
        #expect(try store.contacts().map(\.remark) == ["老鲍"])
        try store.apply(events: [.contact(Contact(user: bob, since: 5), removed: true)], cursor: 2)
        #expect(try store.conversationList().map(\.nickname) == ["Bob"], "no longer a friend: the name again")
        #expect(try store.contacts().isEmpty)

        let me = UserBasicInfo(uid: 1, username: "我", account: "me")
        let asked = FriendRequest(requestId: 3, from: bob, to: me, message: "加我", status: .pending, createdAt: 9)
        let changes = try store.apply(events: [.friendRequest(asked)], cursor: 3)
        #expect(changes.peopleChanged && changes.newRequests.map(\.requestId) == [3])
        #expect(try store.friendRequests().map(\.message) == ["加我"])
        var answered = asked
        answered.status = .accepted
        try store.apply(events: [.friendRequest(answered)], cursor: 4)
        #expect(try store.friendRequests().isEmpty, "answered: no longer pending")
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
        try store.insertOutgoing(local.stored, outbox: OutboxItem(clientMsgID: "mine-1", conversationId: conv, contentType: 101,
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

/// A room's messages are kept for its chat to page, but the room is in no
/// list and nothing of it is unread (PROTOCOL.md v3 "Rooms").
@Suite struct StoreRoomTests {
    func roomMsg(_ seq: Int, _ text: String, from: String = "tb_2", client: String? = nil) -> WireMessage {
        var m = msg(seq, text, from: from, client: client)
        m.conversationId = "sr_5"
        m.recvID = "sr_5"
        return m
    }

    @Test func aRoomIsKeptOutOfTheListAndItsGapsAreKnown() throws {
        let store = try makeStore()
        try store.saveRoomMessages(conversationId: "sr_5", name: "周末徒步", messages: [roomMsg(1, "一"), roomMsg(2, "二")],
                                   coveringFrom: 1, to: 2)
        try store.saveRoomMessages(conversationId: "sr_5", name: "周末徒步", messages: [roomMsg(5, "五")], coveringFrom: 5, to: 5)
        #expect(try store.conversationList(localizer: Localizer(language: .zhHans)).isEmpty, "rooms are not in the list")
        #expect(try store.totalUnread() == 0)
        #expect(try store.newestPage(conversationId: "sr_5", limit: 10).messages.compactMap(\.seq) == [1, 2, 5])
        #expect(try store.missingRanges(conversationId: "sr_5") == [3...4], "the gap is known, so the chat fills it")
        #expect(try store.conversation(id: "sr_5")?.nickname == "周末徒步")
        // What I send there is queued like any message, and the room stays out of the list.
        var local = MessageRecord(wire: roomMsg(0, "我来了", from: "tb_1", client: "mine-r"))
        local.seq = nil
        try store.insertOutgoing(local.stored, outbox: OutboxItem(clientMsgID: "mine-r", conversationId: "sr_5", contentType: 101,
                                                           content: "我来了", pushDesc: "我来了", createdAt: 0))
        #expect(try store.conversationList(localizer: Localizer(language: .zhHans)).isEmpty)
        // The server's answer, then its echo pushed: the same message, still in no list; a rename follows.
        try store.markSent(clientMsgID: "mine-r", response: SendMessageResponse(serverMsgID: "s6", clientMsgID: "mine-r", sendTime: 1_006_000,
                                                                                 seq: 6))
        #expect(try store.conversationList(localizer: Localizer(language: .zhHans)).isEmpty, "an answered send keeps the room hidden")
        try store.saveRoomMessages(conversationId: "sr_5", name: "周六徒步", messages: [roomMsg(6, "我来了", from: "tb_1", client: "mine-r")],
                                   coveringFrom: 6, to: 6)
        #expect(try store.newestPage(conversationId: "sr_5", limit: 10).messages.count == 4)
        #expect(try store.conversation(id: "sr_5")?.nickname == "周六徒步")
        #expect(throws: StoreError.self) {
            try store.saveRoomMessages(conversationId: conv, name: "x", messages: [], coveringFrom: 1, to: 0)
        }
    }
}
