import ChatCore
import ChatStore
import ChatSync
@testable import ChatViewModels
import Foundation
import Testing

/// The chat's and the list's updates alone: events in, state and wanted
/// effects out, no store, no server, no clock.
@Suite struct ChatStateTests {
    static let me = "tb_1"
    static let peer = "tb_2"
    static let conv = Conversation(id: "si_1_2", targetUid: 2, nickname: "Bob")

    static func record(_ seq: Int, from: String = peer, _ text: String = "hi") -> StoredMessage {
        StoredMessage(wire: WireMessage(serverMsgID: "s\(seq)", clientMsgID: "c\(seq)", conversationId: conv.id, seq: seq,
                                        sendID: from, recvID: from == me ? peer : me, contentType: ContentType.text,
                                        content: text, sendTime: 1_700_000_000_000 + seq * 1000))
    }

    static func read(_ state: ChatState, seqs: ClosedRange<Int>, group: WindowRead.GroupRead? = nil) -> ChatEvent {
        .windowRead(WindowRead(conversationId: conv.id, window: state.window,
                               page: MessagePage(messages: seqs.map { record($0) }, lowestSeq: seqs.lowerBound),
                               conversation: nil, cachedKeys: [], group: group))
    }

    func opened(seqs: ClosedRange<Int> = 1...10) -> ChatState {
        var s = ChatState(conversation: Self.conv, me: Self.me)
        _ = s.update(.appear)
        _ = s.update(Self.read(s, seqs: seqs))
        return s
    }

    @Test func appearingShowsTheStoreFirstThenAsksTheServer() {
        var s = ChatState(conversation: Self.conv, me: Self.me)
        let effects = s.update(.appear)
        #expect(effects == [.follow, .readWindow(ChatWindow(count: 40), group: false), .markRead, .fillFromServer])
        #expect(s.isLoading && s.isVisible)
        _ = s.update(Self.read(s, seqs: 1...3))
        #expect(s.messages.filter { $0.type != .time }.map(\.id) == ["c3", "c2", "c1"], "newest first")
        #expect(s.messages.last?.type == .time, "a time marker above the oldest")
        let after = s.update(.filled(hasMoreHistory: false))
        #expect(!s.isLoading && !s.hasMoreHistory)
        #expect(after.first == .readWindow(ChatWindow(count: 40), group: false))
        // The pictures are fetched for what the next read shows, not for what was on screen before it.
        #expect(!after.contains { if case .refreshMedia = $0 { true } else { false } })
        #expect(s.update(Self.read(s, seqs: 1...3)).isEmpty, "no pictures: nothing to fetch")
        // A picture that arrives is fetched once, by the read that brings it.
        var picture = Self.record(4)
        picture.contentType = ContentType.custom
        picture.content = #"{"type":"image","objectKey":"k4","url":"http://x/k4"}"#
        let withPicture = WindowRead(conversationId: Self.conv.id, window: s.window,
                                     page: MessagePage(messages: (1...3).map { Self.record($0) } + [picture], lowestSeq: 1),
                                     conversation: nil, cachedKeys: [], group: nil)
        guard case .refreshMedia(let asked) = s.update(.windowRead(withPicture)).first else {
            Issue.record("the new picture was not fetched"); return
        }
        #expect(asked.map(\.id) == ["c4"])
        #expect(s.update(.windowRead(withPicture)).isEmpty, "asked once")
    }

    @Test func aReadForAnotherWindowOrChatIsDropped() {
        var s = opened()
        let stale = Self.read(s, seqs: 1...5)
        _ = s.update(.scrolled(toBottom: false))
        #expect(s.window.keepFrom == 1)
        _ = s.update(stale)   // read for the window before scrolling up
        #expect(s.messages.contains { $0.id == "c10" }, "a read of an older window is not shown over a newer one")
        var other = WindowRead(conversationId: "si_1_3", window: s.window, page: MessagePage(messages: [], lowestSeq: nil),
                               conversation: nil, cachedKeys: [], group: nil)
        other.conversationId = "si_1_3"
        _ = s.update(.windowRead(other))
        #expect(s.messages.contains { $0.id == "c10" }, "another chat's read does not empty this one")
    }

    @Test func scrolledUpTheBannerCountsOnlyWhatArrivedAfter() {
        var s = opened(seqs: 1...10)
        #expect(s.update(.scrolled(toBottom: false)) == [.readWindow(ChatWindow(count: 40, keepFrom: 1), group: false)])
        _ = s.update(Self.read(s, seqs: 1...13))
        #expect(s.newMessageBannerCount == 3)
        let back = s.update(.scrolled(toBottom: true))
        #expect(s.newMessageBannerCount == 0)
        #expect(back.contains(.markRead), "back at the bottom everything is read")
        #expect(s.window.keepFrom == nil, "and the window slides again")
    }

    @Test func readReceiptsGoOneAtATimeCarryingTheNewest() {
        var s = opened()
        #expect(s.update(.markedRead(seq: 10)) == [.sendReadMark(seq: 10)])
        #expect(s.update(.markedRead(seq: 12)).isEmpty, "one request on its way at a time")
        #expect(s.update(.markedRead(seq: 15)).isEmpty)
        #expect(s.update(.readSent(seq: 10)) == [.sendReadMark(seq: 15)], "the next one carries the newest seq")
        #expect(s.update(.readSent(seq: 15)).isEmpty)
        #expect(s.update(.markedRead(seq: 16)) == [.sendReadMark(seq: 16)])
        #expect(s.conversation.unreadCount == 0 && s.conversation.readSeq == 16)
    }

    @Test func leavingAChatHandsOnTheReadMarkTheServerHasNotConfirmed() {
        var s = opened()
        _ = s.update(.markedRead(seq: 10))
        _ = s.update(.markedRead(seq: 12))   // waits behind the request for 10
        #expect(s.update(.disappear(draft: "半句")) == [.stopFollowing(draft: "半句", readMark: 12)],
                "the newest read position goes out even though the chat closed before its turn")
        var t = opened()
        _ = t.update(.markedRead(seq: 10))
        _ = t.update(.readSent(seq: 10))
        #expect(t.update(.disappear(draft: nil)) == [.stopFollowing(draft: nil, readMark: nil)], "nothing left to tell")
    }

    @Test func pagingBackAsksOnceAndTakesTheWindowItFound() {
        var s = opened(seqs: 41...80)
        #expect(s.update(.loadMore).isEmpty, "not while opening still asks the server")
        _ = s.update(.filled(hasMoreHistory: nil))
        let asked = s.update(.loadMore)
        #expect(asked == [.pageBack(PageBack(window: ChatWindow(count: 40), lowestSeq: 41, loaded: 40, isAtBottom: true))])
        #expect(s.update(.loadMore).isEmpty, "a second ask while the first is out does nothing")
        let grown = ChatWindow(count: 80)
        #expect(s.update(.pagedBack(grown, hasMoreHistory: false)) == [.readWindow(grown, group: false)])
        #expect(!s.isLoading && !s.hasMoreHistory && s.window == grown)
    }

    @Test func uploadProgressOnlyGrowsUntilItStartsOver() {
        var s = ChatState(conversation: Self.conv, me: Self.me)
        _ = s.update(.appear)
        var mine = Self.record(0, from: Self.me)
        mine.seq = nil
        mine.clientMsgID = "up"
        _ = s.update(.windowRead(WindowRead(conversationId: Self.conv.id, window: s.window,
                                            page: MessagePage(messages: [mine], lowestSeq: nil), conversation: nil,
                                            cachedKeys: [], group: nil)))
        _ = s.update(.progress(messageId: "up", 0.5))
        _ = s.update(.progress(messageId: "up", 0.3))   // a late chunk report
        #expect(s.messages.first { $0.id == "up" }?.uploadProgress == 0.5)
        _ = s.update(.progress(messageId: "up", 0))
        #expect(s.messages.first { $0.id == "up" }?.uploadProgress == 0, "a retry starts over")
    }

    /// Issue 47: a send with a live socket reads the window twice: the
    /// store's signal after the bubble is written and after the server's
    /// acknowledgement. Neither `.sent` nor the sync's own report of the
    /// echo reads it again (the echo changes nothing in the store).
    @Test func aSendReadsTheWindowTwice() {
        var s = ChatState(conversation: Self.conv, me: Self.me)
        _ = s.update(.appear)
        _ = s.update(.windowRead(WindowRead(conversationId: Self.conv.id, window: s.window, page: MessagePage(messages: [], lowestSeq: nil),
                                            conversation: nil, cachedKeys: [], group: nil)))
        func reads(_ e: [ChatEffect]) -> Int { e.filter { if case .readWindow = $0 { true } else { false } }.count }
        var echo = AppliedChanges()
        echo.conversationIds = [Self.conv.id]
        echo.updatedClientMsgIDs = ["mine"]
        let total = reads(s.update(.storeChanged))   // the bubble, written with its outbox row
            + reads(s.update(.sent))                    // queued: already at the newest
            + reads(s.update(.storeChanged))            // acknowledged
            + reads(s.update(.sync(.applied(echo))))    // the echo, stored already
            + reads(s.update(.sync(.presence(userId: "tb_2", online: true))))   // the store's signal says it
        #expect(total == 2)
    }

    @Test func aGroupIsReadAgainOnlyWhenASyncSaysItChanged() {
        let group = Conversation(id: "sg_7", targetUid: 0, nickname: "群", groupId: 7)
        var s = ChatState(conversation: group, me: Self.me)
        #expect(s.update(.appear).contains(.readWindow(ChatWindow(count: 40), group: true)))
        _ = s.update(.windowRead(WindowRead(conversationId: "sg_7", window: s.window, page: MessagePage(messages: [], lowestSeq: nil),
                                            conversation: nil, cachedKeys: [],
                                            group: .init(senderNames: ["tb_2": "Bob"], members: [], info: nil))))
        #expect(s.senderNames == ["tb_2": "Bob"])
        var message = AppliedChanges()
        message.conversationIds = ["sg_7"]
        #expect(!s.update(.sync(.applied(message))).contains { if case .readWindow = $0 { true } else { false } },
                "a new message does not reread the member list (the store's change signal reads the messages)")
        var changed = message
        changed.groupIds = [7]
        #expect(s.update(.sync(.applied(changed))).first == .readWindow(ChatWindow(count: 40), group: true))
    }

    @Test func mentionsKeepOnlyNamesStillInTheText() {
        var s = ChatState(conversation: Conversation(id: "sg_7", targetUid: 0, nickname: "群", groupId: 7), me: Self.me)
        s.members = [GroupMember(uid: 2, username: "Bob", role: "member", joinedAt: 1), GroupMember(uid: 3, username: "Carol", role: "member", joinedAt: 2)]
        #expect(s.mention("hi @Bob", mentioned: ["tb_2", "tb_3"], atAll: false)?.atUserIDs == ["tb_2"])
        #expect(s.mention("hi", mentioned: ["tb_2"], atAll: false) == nil, "a name deleted after completing is no mention")
        #expect(s.mention("@所有人 hi", mentioned: [], atAll: true)?.atAll == false, "only the owner mentions everyone")
    }

    @Test func theListShowsAChangeUntilTheServerAnswers() {
        var list = ListState(conversations: [Self.conv, Conversation(id: "si_1_3", targetUid: 3, nickname: "Carol", unreadCount: 2)])
        #expect(list.totalUnread == 2)
        #expect(list.update(.change(id: "si_1_3", .mute(true))) == [.ask(id: "si_1_3", .mute(true))])
        #expect(list.totalUnread == 0, "a muted chat's unread leaves the total at once")
        _ = list.update(.stored(list.stored))   // the store, not yet changed, speaks meanwhile
        #expect(list.conversations.first { $0.id == "si_1_3" }?.isMuted == true, "the change stays over it")
        #expect(list.update(.settled(id: "si_1_3")) == [.readList])
        #expect(list.conversations.first { $0.id == "si_1_3" }?.isMuted == false, "refused: the store's row again")
        #expect(list.update(.change(id: "nope", .delete)).isEmpty, "a row not in the list")
        _ = list.update(.change(id: Self.conv.id, .pin(true, at: 1_000)))
        #expect(list.conversations.first?.id == Self.conv.id && list.conversations.first?.pinnedAt == 1_000, "pinned goes first")
    }
}
