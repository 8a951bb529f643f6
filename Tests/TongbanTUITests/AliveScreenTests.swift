import ChatCore
import ChatStore
import ChatViewModels
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Typing, read receipts, the signals page, cards and the seed's last gaps
/// (PROTOCOL.md v4), as the screen shows them and as keys change them.
@Suite struct AliveScreenTests {
    static let zh = Localizer(language: .zhHans)
    static var now: Date { Date(timeIntervalSince1970: Double(Fixture.now) / 1000) }

    static func mine(_ id: String, seq: Int, _ text: String, minutesAgo: Int) -> ChatMessage {
        var m = Fixture.message(id, .text(text), type: .text, me: true, minutesAgo: minutesAgo)
        m.seq = seq
        m.status = .success
        return m
    }

    /// A one-to-one chat where Alice read up to seq 2 of my three messages.
    static func oneToOne(peerReadSeq: Int?) -> AppState {
        var s = Fixture.state(width: 80, height: 16)
        var c = Fixture.conversations[0]
        c.peerReadSeq = peerReadSeq
        let messages = [mine("m3", seq: 3, "还在吗？", minutesAgo: 1), mine("m2", seq: 2, "八点见", minutesAgo: 3),
                        mine("m1", seq: 1, "周六爬山", minutesAgo: 5)]
        s.chat = ChatState(conversation: c, messages: messages, isLoading: false, hasMoreHistory: false,
                           newMessageBannerCount: 0, cachedKeys: [], me: "me")
        s.list = ListState(conversations: [c] + Fixture.conversations.dropFirst())
        return s
    }

    static func group() -> AppState {
        var s = Fixture.state(width: 80, height: 16)
        let c = Conversation(id: "sg_5", targetUid: 0, nickname: "周末爬山群", lastMessagePreview: "Alice：好", lastMessageTime: Fixture.now,
                             groupId: 5, memberCount: 4)
        var theirs = ChatMessage(id: "g0", senderId: "tb_7", receiverId: "sg_5", conversationId: "sg_5", type: .text,
                                 content: .text("我八点到"), createTime: Fixture.now - 120_000, isRead: true, isMe: false)
        theirs.seq = 3
        let messages = [theirs, mine("g2", seq: 2, "山顶见", minutesAgo: 4), mine("g1", seq: 1, "大家好", minutesAgo: 6)]
        var chat = ChatState(conversation: c, messages: messages, isLoading: false, hasMoreHistory: false,
                             newMessageBannerCount: 0, cachedKeys: [], me: "me")
        chat.senderNames = ["tb_7": "Alice 爱丽丝", "tb_8": "Bob 鲍勃"]
        s.chat = chat
        s.list = ListState(conversations: [c])
        return s
    }

    // MARK: Typing

    @Test func theHeaderAndTheListRowSayWhoIsTypingUntilItRunsOut() throws {
        var s = Self.oneToOne(peerReadSeq: nil)
        _ = Update.apply(.sync(.typing(conversationId: "c1", userId: "tb_7", ttlMs: 5000)), to: &s, Self.zh)
        try Golden.check("typing-one-to-one", s, Self.zh)
        // My own typing on another device is no news.
        _ = Update.apply(.sync(.typing(conversationId: "c2", userId: s.myImUid, ttlMs: 5000)), to: &s, Self.zh)
        #expect(s.live.typers(in: "c2", now: s.now).isEmpty)
        // Its time runs out on my clock.
        s.now = s.now.addingTimeInterval(5.1)
        _ = Update.apply(.tick, to: &s, Self.zh)
        #expect(!s.live.anyoneTyping && !s.needsSecondTicks)
        let frame = Screen.render(s, Self.zh, RenderOptions())
        #expect(!Golden.describe(frame).contains("正在输入"))
    }

    @Test func aGroupNamesOneTyperAndCountsSeveral() throws {
        var s = Self.group()
        _ = Update.apply(.sync(.typing(conversationId: "sg_5", userId: "tb_7", ttlMs: 5000)), to: &s, Self.zh)
        try Golden.check("typing-group-one", s, Self.zh)
        _ = Update.apply(.sync(.typing(conversationId: "sg_5", userId: "tb_8", ttlMs: 5000)), to: &s, Self.zh)
        #expect(TypingWords.text(s.live.typers(in: "sg_5", now: s.now), isGroup: true, names: [:], Self.zh) == "2 人正在输入…")
        // A message from Alice ends hers.
        var changes = AppliedChanges()
        changes.newestIncoming["sg_5"] = WireMessage(serverMsgID: "s", clientMsgID: "x", conversationId: "sg_5", seq: 4,
                                                     sendID: "tb_7", recvID: "sg_5", contentType: 101, content: "到了", sendTime: 0)
        _ = Update.apply(.sync(.applied(changes)), to: &s, Self.zh)
        #expect(s.live.typers(in: "sg_5", now: s.now) == ["tb_8"])
    }

    @Test func typingIsToldAtMostEveryThreeSecondsWhileTheInputHoldsText() {
        var s = Self.oneToOne(peerReadSeq: nil)
        s.focus = .input
        #expect(Update.apply(.key(.char("你")), to: &s, Self.zh) == [.live(.typing(conversationId: "c1"))])
        #expect(Update.apply(.key(.char("好")), to: &s, Self.zh).isEmpty, "not again within 3 s")
        s.now = s.now.addingTimeInterval(3)
        #expect(Update.apply(.key(.char("！")), to: &s, Self.zh) == [.live(.typing(conversationId: "c1"))])
        s.now = s.now.addingTimeInterval(10)
        s.input = InputLine(text: " ")
        #expect(Update.apply(.key(.char(" ")), to: &s, Self.zh).isEmpty, "blanks are not typing")
    }

    // MARK: Read receipts

    @Test func myMessagesSayReadOrUnreadByThePeersReadSeq() throws {
        try Golden.check("receipts-one-to-one", Self.oneToOne(peerReadSeq: 2), Self.zh)
        let frame = Golden.describe(Screen.render(Self.oneToOne(peerReadSeq: nil), Self.zh, RenderOptions()))
        #expect(!frame.contains("已读") && !frame.contains("未读"), "reads not shared: no marks")
    }

    @Test func aGroupsMessagesOfMineShowTheirCountsAskedWhenTheyChange() throws {
        var s = Self.group()
        #expect(Update.readCountsWanted(&s) == [.live(.readCounts(conversationId: "sg_5", seqs: [1, 2]))])
        #expect(Update.readCountsWanted(&s).isEmpty, "asked already")
        #expect(Update.apply(.sync(.readChanged(conversationId: "sg_5")), to: &s, Self.zh)
                == [.live(.readCounts(conversationId: "sg_5", seqs: [1, 2]))], "the server said reads moved")
        _ = Update.apply(.readCounts(conversationId: "sg_5", [1: .init(read: 3, unread: 0), 2: .init(read: 1, unread: 2)]),
                         to: &s, Self.zh)
        try Golden.check("receipts-group", s, Self.zh)
    }

    @Test func theReadersPageListsWhoReadAndWhoHasNot() throws {
        var s = Self.group()
        s.focus = .messages
        s.selectedId = "g2"
        #expect(Update.apply(.key(.char("w")), to: &s, Self.zh) == [.live(.readers(conversationId: "sg_5", seq: 2))])
        _ = Update.apply(.readersLoaded(conversationId: "sg_5", seq: 2, ReadersResponse(
            read: [UserBasicInfo(uid: 7, username: "Alice 爱丽丝")],
            unread: [UserBasicInfo(uid: 8, username: "Bob 鲍勃"), UserBasicInfo(uid: 9, username: "Carol 卡罗尔")])), to: &s, Self.zh)
        try Golden.check("readers", s, Self.zh)
        // Not mine: said why.
        _ = Update.apply(.key(.escape), to: &s, Self.zh)
        s.selectedId = "g0"
        #expect(Update.apply(.key(.char("w")), to: &s, Self.zh).isEmpty)
        #expect(s.status == Self.zh.string("ui.readers.onlyMine"))
    }

    // MARK: The message pane and its menu

    @Test func theMessagePaneSelectsTheNewestWhenItTakesTheKeyboard() {
        var s = Self.oneToOne(peerReadSeq: nil)
        s.focus = .input
        _ = Update.apply(.key(.escape), to: &s, Self.zh)
        #expect(s.focus == .messages && s.selectedId == "m3")
    }

    @Test func theMenuFollowsSeed004sOrder() {
        var s = Self.group()
        s.focus = .messages
        s.selectedId = "g2"
        _ = Update.apply(.key(.char(".")), to: &s, Self.zh)
        guard case .actions(let pick) = s.mode else { Issue.record("no menu"); return }
        let titles = pick.items.map(\.title)
        let order = ["回复", "撤回", "转发", "多选", "收藏"].map { t in titles.firstIndex { $0.hasPrefix(t) } }
        #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(titles)")
        #expect(titles.contains("已读详情"))
        // 多选 starts with this message marked.
        let select = pick.items.firstIndex { $0.action == .messagesSelect } ?? 0
        s.mode = .actions(Pick(pick.items, index: select))
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(s.marked == ["g2"])
    }

    // MARK: Signals

    static let feed = [
        SignalFeedItem(signalId: 12, content: "有人推荐好看的科幻小说吗？📚", from: UserBasicInfo(uid: 7, username: "Alice 爱丽丝"),
                       createdAt: Fixture.now - 600_000, replied: false),
        SignalFeedItem(signalId: 11, content: "今晚谁一起打羽毛球？🏸", from: UserBasicInfo(uid: 8, username: "Bob 鲍勃"),
                       createdAt: Fixture.now - 7_200_000, replied: true),
    ]

    @Test func theSignalsPageHasThreeTabs() throws {
        var s = Fixture.state(width: 90, height: 16)
        #expect(Update.apply(.key(.char("s")), to: &s, Self.zh) == [.signals(.load(.feed))])
        _ = Update.apply(.signals(.feed(Self.feed)), to: &s, Self.zh)
        try Golden.check("signals-feed", s, Self.zh)
        #expect(Update.apply(.key(.right), to: &s, Self.zh) == [.signals(.load(.mine))])
        _ = Update.apply(.signals(.mine([MySignal(signalId: 3, content: "周末有人一起去爬香山吗？", createdAt: Fixture.now - 86_400_000,
                                                  replyCount: 2)])), to: &s, Self.zh)
        try Golden.check("signals-mine", s, Self.zh)
        #expect(Update.apply(.key(.char("3")), to: &s, Self.zh) == [.signals(.load(.inbox))])
        _ = Update.apply(.signals(.inbox([SignalInboxItem(receiveId: "r1", signalId: 3, signalContent: "周末有人一起去爬香山吗？",
                                                          replyContent: "我去！", from: UserBasicInfo(uid: 9, username: "Carol 卡罗尔"),
                                                          isImOpened: false)])), to: &s, Self.zh)
        try Golden.check("signals-inbox", s, Self.zh)
        let effects = Update.apply(.key(.enter), to: &s, Self.zh)
        guard case .openSignal(let item)? = effects.first else { Issue.record("Enter opens nothing: \(effects)"); return }
        #expect(item.receiveId == "r1" && s.mode == .normal)
    }

    @Test func anOpenedReplyLinesUpWithTheUnopenedOnesAndHostileWordsAreDefused() {
        let lines = SignalsWidget.lines(SignalsView(tab: .inbox, inbox: [
            SignalInboxItem(receiveId: "r1", signalId: 3, signalContent: "爬山？", replyContent: "我去\u{1B}[2J",
                            from: UserBasicInfo(uid: 9, username: "Carol"), isImOpened: false),
            SignalInboxItem(receiveId: "r2", signalId: 3, signalContent: "爬山？", replyContent: "算我一个",
                            from: UserBasicInfo(uid: 8, username: "Bob"), isImOpened: true),
        ]), Self.zh, now: Self.now, utcOffsetSeconds: 0, rows: 20).map(\.0)
        let carol = lines.first { $0.hasPrefix("● Carol：我去") }
        #expect(carol != nil && carol?.contains("\u{1B}") == false, "the escape never reaches the screen: \(lines)")
        #expect(lines.contains("  Bob：算我一个  ← 爬山？"), "\(lines)")
    }

    @Test func theFeedRepliesHidesAndReportsAndMineDeletesAfterAsking() {
        var view = SignalsView()
        view.loaded(.feed(Self.feed))
        _ = view.update(.enter, Self.zh)
        for ch in "我推荐《三体》" { _ = view.update(.char(ch), Self.zh) }
        #expect(view.update(.enter, Self.zh).effects == [.signals(.reply(12, "我推荐《三体》"))])
        #expect(view.feed?.first?.replied == true && view.composing == nil)
        #expect(view.update(.enter, Self.zh).status == Self.zh.string("ui.signals.repliedAlready"), "one reply per signal")
        _ = view.update(.down, Self.zh)
        #expect(view.update(.char("h"), Self.zh).effects == [.signals(.hide(11))])
        _ = view.update(.char("!"), Self.zh)
        for ch in "广告" { _ = view.update(.char(ch), Self.zh) }
        #expect(view.update(.enter, Self.zh).effects == [.signals(.report(12, reason: "广告"))])
        #expect(view.feed?.isEmpty == true)

        _ = view.update(.char("2"), Self.zh)
        view.loaded(.mine([MySignal(signalId: 3, content: "爬山？", createdAt: 0, replyCount: 0)]))
        _ = view.update(.char("x"), Self.zh)
        #expect(view.update(.char("n"), Self.zh).effects.isEmpty && view.mine?.count == 1, "anything but y keeps it")
        _ = view.update(.char("x"), Self.zh)
        #expect(view.update(.char("y"), Self.zh).effects == [.signals(.delete(3))])
        _ = view.update(.char("n"), Self.zh)
        for ch in "今晚看电影？" { _ = view.update(.char(ch), Self.zh) }
        #expect(view.update(.enter, Self.zh).effects == [.signals(.post("今晚看电影？"))])
    }

    // MARK: List rows

    @Test func listRowsShowPicturesOnAWideScreenAndInitialsOtherwise() throws {
        var s = Fixture.state(width: 110, height: 14)
        var convs = Fixture.conversations
        convs[0].avatar = "face-alice"
        s.list = ListState(conversations: convs)
        #expect(Update.listFacesWanted(&s) == [.decodeAvatar(key: "face-alice")])
        s.thumbnails["face-alice"] = .ready(Fixture.picture(width: 24, height: 24))
        try Golden.check("list-avatars", s, Self.zh)
        s.size = AppState.Size(width: 80, height: 14)
        #expect(Update.listFacesWanted(&s).isEmpty, "no pictures on a narrow screen")
        try Golden.check("list-initials", s, Self.zh)
    }

    @Test func aMultiImageBubbleDrawsItsFirstPicturesSideBySide() throws {
        var s = Fixture.state(width: 80, height: 14)
        let keys = ["p1", "p2", "p3", "p4", "p5"]
        var m = Fixture.message("multi", .multiImage(MultiImagePayload(multiObjectKeys: keys)), type: .multiImage, me: false,
                                minutesAgo: 1)
        m.seq = 1
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [m], isLoading: false, hasMoreHistory: false,
                           newMessageBannerCount: 0, cachedKeys: Set(keys), me: "me")
        #expect(Update.thumbnailsWanted(&s) == ["p1", "p2", "p3"].map { .decodeThumbnail(key: $0) }, "the first three only")
        for (i, key) in ["p1", "p2", "p3"].enumerated() { s.thumbnails[key] = .ready(Fixture.picture(width: 8 + i * 2, height: 8)) }
        try Golden.check("multi-image", s, Self.zh)
    }

    @Test func theContactsViewListsMyRoomsAndEnterEntersOne() throws {
        var s = Fixture.state(width: 90, height: 24)
        let room = RoomInfo(roomId: 3, name: "同伴大厅", uniqueName: "lobby", topic: "", ownerId: "tb_7", presentCount: 2, createdAt: 0)
        s.mode = .contacts(ContactsView.opened(s.people, groups: s.list.conversations, Self.zh))
        _ = Update.apply(.people(.rooms([room])), to: &s, Self.zh)
        try Golden.check("contacts-rooms", s, Self.zh)
        guard case .contacts(var view) = s.mode else { Issue.record("no contacts view"); return }
        let rows = ContactsView.rows(s.people, groups: s.list.conversations, query: "", Self.zh)
        view.index = try #require(rows.firstIndex(of: .room(room)))
        s.mode = .contacts(view)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.room(.enter(unique: "lobby", again: false))])
    }

    // MARK: Emoji

    @Test func emojiByNameWithTabAndTheTextAsTypedWithEnter() throws {
        var s = Self.oneToOne(peerReadSeq: nil)
        s.focus = .input
        for ch in "好的 :thu" { _ = Update.apply(.key(.char(ch)), to: &s, Self.zh) }
        #expect(Update.emojiCandidates(s).first?.emoji == "👍")
        let frame = Golden.describe(Screen.render(s, Self.zh, RenderOptions()))
        #expect(frame.contains("Tab 选择：👍 thumbsup"), "the status line offers them")
        _ = Update.apply(.key(.tab), to: &s, Self.zh)
        #expect(s.input.text == "好的 👍")
        // What is not a name at a word's start is left alone, and Enter sends it as typed.
        for text in ["12:30", "好的 :)", "看:th"] {
            s.input = InputLine(text: text)
            #expect(Update.emojiCandidates(s).isEmpty, "\(text)")
        }
        s.input = InputLine(text: "见 :sm")
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).contains(.sendText("见 :sm")))
    }

    @Test func theEmojiGridPutsOneInTheInputBar() throws {
        var s = Self.oneToOne(peerReadSeq: nil)
        s.focus = .input
        s.input = InputLine(text: "好")
        _ = Update.apply(.key(.ctrl("g")), to: &s, Self.zh)
        _ = Update.apply(.key(.right), to: &s, Self.zh)
        _ = Update.apply(.key(.down), to: &s, Self.zh)
        try Golden.check("emoji-grid", s, Self.zh)
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(s.mode == .normal && s.focus == .input && s.input.text == "好" + EmojiCatalog.all[1 + EmojiGrid.columns].emoji)
    }

    // MARK: Cards and the rest

    @Test func aCardShowsThePersonAndEnterOpensTheirPage() throws {
        var s = Self.oneToOne(peerReadSeq: nil)
        var card = Fixture.message("card", .card(CardPayload(userId: "tb_9", name: "Carol 卡罗尔", account: "carol")), type: .card,
                                   me: false, minutesAgo: 0)
        card.seq = 4
        s.chat?.messages.insert(card, at: 0)
        try Golden.check("card", s, Self.zh)
        s.focus = .messages
        s.selectedId = "card"
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.openPeer(uid: 9))])
        s.focus = .input
        s.input = InputLine(text: "/card carol")
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).contains(.sendCard(account: "carol")))
    }

    @Test func enterOnThePlayingVoiceStopsIt() {
        var s = Fixture.chatState(width: 80, height: 20)
        s.focus = .messages
        s.selectedId = "m-voice"
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.stopPlaying])
        s.playingId = nil
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).first.map { if case .play = $0 { true } else { false } } == true)
    }

    @Test func theOwnerDissolvesTheGroupFromItsPageAfterAsking() {
        var s = Self.group()
        s.chat?.group = GroupInfo(groupId: 5, name: "周末爬山群", uniqueName: "weekend", notice: "", ownerId: "me", memberCount: 4,
                                  joinable: true, createdAt: 0)
        s.mode = .settings(member: 0)
        _ = Update.apply(.key(.char("D")), to: &s, Self.zh)
        #expect(s.mode == .confirm(.dissolveGroup(name: "周末爬山群")))
        #expect(Update.apply(.key(.char("y")), to: &s, Self.zh) == [.group(.dissolve)])
    }
}
