import ChatCore
import ChatServer
@testable import ChatStore
@testable import ChatSync
import ChatTesting
import Foundation
import Logging
import Testing
@testable import ChatViewModels

func tmp(_ n: String) -> URL { TestFolders.make("tongban-vm-\(n)") }

func server(_ tweak: @Sendable (inout ServerConfig) -> Void = { _ in }) async throws -> RunningServer {
    var c = ServerConfig()
    c.port = 0
    c.dataDir = tmp("srv").path
    var l = Logger(label: "vm-test")
    l.logLevel = .error
    c.logger = l
    // Tests send hundreds of messages as fast as they can; none is about a limit.
    c.limits = .unlimited
    tweak(&c)
    return try await ChatServerApp.start(config: c)
}

func session(_ base: String, _ account: String) async throws -> Session {
    let root = tmp(account)
    let paths = StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                           configDirectory: root.appendingPathComponent("k"))
    let auth = try await APIClient(baseURL: base).register(account: account, password: "password-\(account)")
    let creds = Session.Credentials(server: base, account: account, uid: auth.uid, imUid: auth.imUid, username: auth.username, token: auth.token)
    return try Session(credentials: creds, paths: paths)
}

func msg(_ t: Int, _ id: String) -> ChatMessage {
    ChatMessage(id: id, senderId: "tb_2", receiverId: "tb_1", conversationId: "c", type: .text, content: .text(id),
                createTime: t, isRead: true, isMe: false)
}

@Suite struct TimeMarkerTests {
    @Test func markersFollowTheSeedRule() throws {
        let minute = 60_000
        let base = 1_763_800_000_000
        // newest first, as the view model holds them
        let input = [msg(base + 12 * minute, "e"), msg(base + 9 * minute, "d"), msg(base + 4 * minute, "c"),
                     msg(base + 2 * minute, "b"), msg(base, "a")]
        let out = ChatState.insertTimeMarkers(into: input, utcOffsetSeconds: 8 * 3600)  // Asia/Shanghai
        // a gets a marker (first); b, c within 5 min of that marker; d is 9 min after a -> marker;
        // e is 3 min after d's marker -> none.
        #expect(out.map(\.id) == ["e", "d", "time_\(base + 9 * minute)", "c", "b", "a", "time_\(base)"])
        let text = try #require(out.last?.content.timeMarker, "no marker")
        #expect(text == "11-22 16:26")
        #expect(ChatState.insertTimeMarkers(into: []).isEmpty)
    }

    /// Times read back from a store edited by hand cannot overflow the rule.
    @Test func extremeTimesGetMarkersInsteadOfATrap() {
        let out = ChatState.insertTimeMarkers(into: [msg(Int.min, "b"), msg(Int.max, "a")])
        #expect(out.filter { $0.type == .time }.count == 2)
        #expect(out.map(\.id).contains("b"))
    }
}

@MainActor @Suite struct ListOrderTests {
    func c(_ id: String, _ time: Int, pinned: Bool = false) -> Conversation {
        Conversation(id: id, targetUid: 0, nickname: id, isPinned: pinned, lastMessageTime: time)
    }

    @Test func pinnedFirstThenNewestThenId() {
        let ordered = [c("p", 1, pinned: true), c("b", 9), c("z", 5), c("a", 5), c("old", 1)]
        #expect(ConversationListViewModel.sorted(ordered).map(\.id) == ["p", "b", "z", "a", "old"], "an ordered list stays")
        let shuffled = [c("a", 5), c("old", 1), c("b", 9), c("p", 1, pinned: true), c("z", 5)]
        #expect(ConversationListViewModel.sorted(shuffled).map(\.id) == ["p", "b", "z", "a", "old"])
        let lastTwoSwapped = [c("p", 1, pinned: true), c("b", 9), c("z", 5), c("old", 1), c("a", 5)]
        #expect(ConversationListViewModel.sorted(lastTwoSwapped).map(\.id) == ["p", "b", "z", "a", "old"])
        #expect(ConversationListViewModel.sorted([]).isEmpty)
    }

    /// Among pinned rows the latest pinned comes first (seed 003 `stickTime`),
    /// whatever their messages' times.
    @Test func theLatestPinnedFirst() {
        var early = c("early", 9, pinned: true), late = c("late", 1, pinned: true)
        early.pinnedAt = 100; late.pinnedAt = 200
        #expect(ConversationListViewModel.sorted([early, c("x", 50), late]).map(\.id) == ["late", "early", "x"])
    }
}

@MainActor @Suite(.serialized) struct ListViewModelTests {
    @Test func appearPinDeleteAndRestore() async throws {
        let srv = try await server()
        let me = try await session(srv.baseURL, "listme")
        let p1 = try await session(srv.baseURL, "peer_one")
        let p2 = try await session(srv.baseURL, "peer_two")
        for p in [p1, p2] {
            let conv = ConversationIDHelper.make(myUid: me.credentials.uid, targetUid: p.credentials.uid)
            try await p.sendQueue.sendText("来自 \(p.credentials.account)", to: conv)
            _ = await p.sendQueue.drain()
        }
        let vm = ConversationListViewModel(session: me, localizer: Localizer(language: .zhHans))
        await vm.onAppear()
        #expect(vm.conversations.map(\.nickname) == ["peer_two", "peer_one"], "newest first, names from profiles")
        #expect(vm.totalUnread == 2)
        let oneId = vm.conversations[1].id
        await vm.pinConversation(id: oneId, isPinned: true)
        #expect(vm.conversations.first?.id == oneId)
        #expect(try await me.api.conversations().first { $0.conversationId == oneId }?.isPinned == true, "server confirmed")
        #expect(vm.filtered(by: "TWO").map(\.nickname) == ["peer_two"])

        // The server refuses (it is gone): the conversation comes back with a reason.
        await srv.stop()
        await vm.deleteConversation(id: oneId)
        #expect(vm.conversations.contains { $0.id == oneId })
        #expect(vm.errorMessage == "无法连接服务器")
        #expect(try me.store.conversation(id: oneId) != nil)
    }
}

@MainActor @Suite(.serialized) struct ConversationViewModelTests {
    @Test func historyPagingBannerSendAndRevoke() async throws {
        let srv = try await server()
        defer { Task { await srv.stop() } }
        let me = try await session(srv.baseURL, "chatme")
        let peer = try await session(srv.baseURL, "chatpeer")
        let conv = ConversationIDHelper.make(myUid: me.credentials.uid, targetUid: peer.credentials.uid)
        for i in 1...90 {
            _ = try await peer.api.send(SendMessageRequest(recvID: conv, content: "历史 \(i)", contentType: 101, clientMsgId: "h\(i)"))
        }
        try me.store.ensureConversation(id: conv, nickname: "chatpeer")
        let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me)
        await vm.onAppear()
        let texts = { vm.messages.compactMap(\.text) }
        #expect(texts().count == 40)
        #expect(texts().first == "历史 90", "index 0 is the newest")
        #expect(vm.hasMoreHistory)
        #expect(try me.store.conversation(id: conv)?.unreadCount == 0, "opening marks read")
        await vm.loadMoreHistory()
        #expect(texts().count == 80)
        await vm.loadMoreHistory()
        #expect(texts().count == 90)
        #expect(texts().last == "历史 1")
        #expect(!vm.hasMoreHistory, "false only once the server says so")

        // New messages while scrolled up -> banner.
        await vm.scrolled(toBottom: false)
        me.sync.start()
        defer { me.sync.stop() }
        _ = try await peer.api.send(SendMessageRequest(recvID: conv, content: "新的一条", contentType: 101, clientMsgId: "n1"))
        // The banner is counted from the window's own read, so one wait
        // covers both, and they never disagree in between.
        let deadline = ContinuousClock.now + .seconds(5)
        while vm.newMessageBannerCount == 0 && ContinuousClock.now < deadline {
            #expect(texts().first == "历史 90", "no banner without the message in the window")
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(vm.newMessageBannerCount == 1)
        #expect(texts().first == "新的一条")
        await vm.scrolled(toBottom: true)
        #expect(vm.newMessageBannerCount == 0)

        // Send: trimmed, empty ignored, shown as soon as the store has it.
        await vm.sendText("   ")
        await vm.sendText("  我来了  ")
        #expect(await settle(vm) { texts().first == "我来了" })
        #expect(vm.messages.first?.isMe == true)
        _ = await me.sendQueue.drain()
        vm.reload()
        let mine = try #require(vm.messages.first { $0.isMe })
        #expect(mine.status == .success)

        // Revoke: not theirs; ours works.
        let theirs = try #require(vm.messages.first { !$0.isMe && $0.type == .text })
        await vm.revokeMessage(id: theirs.id)
        #expect(vm.messages.first { $0.id == theirs.id }?.isRecalled == false)
        await vm.revokeMessage(id: mine.id)
        #expect(vm.messages.first { $0.id == mine.id }?.isRecalled == true)
        await vm.onDisappear(draft: "还没写完")
        #expect(try me.store.conversation(id: conv)?.draftText == "还没写完")
    }

    /// A short chat (the server has nothing older) then a burst while it is
    /// open at the bottom: the window slides, and scrolling back must still
    /// reach the messages that slid out of it, down to the first one.
    /// The open chat's header follows the peer coming online and going offline.
    @Test func theOpenChatFollowsThePeersPresence() async throws {
        let srv = try await server()
        defer { Task { await srv.stop() } }
        let me = try await session(srv.baseURL, "presme")
        let peer = try await session(srv.baseURL, "prespeer")
        let conv = ConversationIDHelper.make(myUid: me.credentials.uid, targetUid: peer.credentials.uid)
        try me.store.ensureConversation(id: conv, nickname: "prespeer")
        let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me)
        await vm.onAppear()
        #expect(!vm.conversation.isOnline)
        for online in [true, false] {
            // What the sync engine does with a presence frame: the store's change is the chat's.
            try me.store.setOnline(imUid: peer.credentials.imUid, online: online)
            await vm.handle(.presence(userId: peer.credentials.imUid, online: online))
            #expect(await settle(vm) { vm.conversation.isOnline == online })
        }
        try me.store.setOnline(imUid: "tb_999999", online: true)
        await vm.handle(.presence(userId: "tb_999999", online: true))
        await vm.settle()
        #expect(!vm.conversation.isOnline, "someone else's presence")
    }

    @Test func messagesThatSlidOutOfTheWindowStayReachable() async throws {
        let srv = try await server()
        defer { Task { await srv.stop() } }
        let me = try await session(srv.baseURL, "slideme")
        let peer = try await session(srv.baseURL, "slidepeer")
        let conv = ConversationIDHelper.make(myUid: me.credentials.uid, targetUid: peer.credentials.uid)
        for i in 1...3 {
            _ = try await peer.api.send(SendMessageRequest(recvID: conv, content: "早 \(i)", contentType: 101, clientMsgId: "e\(i)"))
        }
        try me.store.ensureConversation(id: conv, nickname: "slidepeer")
        let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me)
        await vm.onAppear()
        #expect(vm.messages.compactMap(\.text).count == 3)
        #expect(!vm.hasMoreHistory, "the server has nothing older")
        for i in 1...100 {
            _ = try await peer.api.send(SendMessageRequest(recvID: conv, content: "涌来 \(i)", contentType: 101, clientMsgId: "f\(i)"))
        }
        try await me.sync.pull()
        let deadline = ContinuousClock.now + .seconds(5)
        while vm.messages.first?.text != "涌来 100" && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(vm.messages.first?.text == "涌来 100")
        #expect(!vm.messages.compactMap(\.text).contains("早 1"), "the window slid")
        #expect(vm.hasMoreHistory, "what slid out is still below")
        for _ in 0..<10 where vm.hasMoreHistory { await vm.loadMoreHistory() }
        let texts = vm.messages.compactMap(\.text)
        #expect(texts.count == 103)
        #expect(texts.last == "早 1")
        #expect(!vm.hasMoreHistory)
    }

    @Test func pagingBackFillsAHoleInsteadOfJumpingOverIt() async throws {
        let srv = try await server()
        defer { Task { await srv.stop() } }
        let me = try await session(srv.baseURL, "holeme")
        let peer = try await session(srv.baseURL, "holepeer")
        let conv = ConversationIDHelper.make(myUid: me.credentials.uid, targetUid: peer.credentials.uid)
        for i in 1...140 {
            _ = try await peer.api.send(SendMessageRequest(recvID: conv, content: "第\(i)条", contentType: 101, clientMsgId: "g\(i)"))
        }
        // What a resync leaves: the oldest ten and the newest forty, nothing between.
        try me.store.ensureConversation(id: conv, nickname: "holepeer")
        let all = try await me.api.history(conversationId: conv, limit: 100).messages
            + me.api.history(conversationId: conv, beforeSeq: 41, limit: 40).messages
        let bySeq = Dictionary(all.map { ($0.seq, $0) }, uniquingKeysWith: { a, _ in a })
        try me.store.saveHistory(conversationId: conv, messages: (1...10).compactMap { bySeq[$0] }, coveringFrom: 1, to: 10)
        try me.store.saveHistory(conversationId: conv, messages: (101...140).compactMap { bySeq[$0] }, coveringFrom: 101, to: 140)
        #expect(try me.store.missingRanges(conversationId: conv) == [11...100])
        let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me)
        await vm.onAppear()
        #expect(vm.messages.compactMap(\.text).last == "第101条")
        await vm.loadMoreHistory()
        let texts = vm.messages.compactMap(\.text)
        #expect(texts.last == "第61条", "the forty right below, from the server: \(texts.suffix(3))")
        #expect(!texts.contains("第10条"), "not the stored ones past the hole")
        await vm.loadMoreHistory()
        await vm.loadMoreHistory()
        #expect(vm.messages.compactMap(\.text).count == 140)
        #expect(try me.store.missingRanges(conversationId: conv).isEmpty)
    }

    @Test func revokeRefusedRollsBackWithReason() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let srv = try await server { $0.revokeWindowSeconds = 0; $0.clock = clock.clock }
        defer { Task { await srv.stop() } }
        let me = try await session(srv.baseURL, "slowrev")
        let peer = try await session(srv.baseURL, "slowpeer")
        let conv = ConversationIDHelper.make(myUid: me.credentials.uid, targetUid: peer.credentials.uid)
        try me.store.ensureConversation(id: conv)
        let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me,
                                       localizer: Localizer(language: .zhHans))
        await vm.onAppear()
        await vm.sendText("收不回")
        _ = await me.sendQueue.drain()
        vm.reload()
        clock.advance(ms: 1)  // past the zero-second window
        let mine = try #require(vm.messages.first { $0.isMe })
        await vm.revokeMessage(id: mine.id)
        #expect(vm.messages.first { $0.id == mine.id }?.isRecalled == false)
        #expect(vm.errorMessage == "已超过服务器允许的撤回时间，无法撤回")
    }

    @Test func signalQuoteIsSentOnceThenOpenIM() async throws {
        let srv = try await server()
        defer { Task { await srv.stop() } }
        let owner = try await session(srv.baseURL, "sigowner")
        let replier = try await session(srv.baseURL, "sigreply")
        let signal = try await owner.api.createSignal("周末去爬山？")
        let receiveId = try await replier.api.replySignal(signalId: signal, content: "我去")
        let item = try #require(try await owner.api.signalInbox().first)
        #expect(!item.isImOpened)
        let conv = ConversationIDHelper.make(myUid: owner.credentials.uid, targetUid: replier.credentials.uid)
        try owner.store.ensureConversation(id: conv, nickname: "sigreply")
        try owner.store.setSignalContext(id: conv, signalId: signal, receiveId: receiveId, reply: item.replyContent, content: item.signalContent)
        let vm = ConversationViewModel(conversation: try #require(try owner.store.conversation(id: conv)), session: owner)
        await vm.onAppear()
        _ = await owner.sendQueue.drain()
        #expect(vm.messages.contains { $0.type == .signalQuote && $0.signalQuoteReply == "我去" })
        #expect(try await owner.api.signalInbox().first?.isImOpened == true)
        let again = ConversationViewModel(conversation: try #require(try owner.store.conversation(id: conv)), session: owner)
        await again.onAppear()
        _ = await owner.sendQueue.drain()
        let history = try await owner.api.history(conversationId: conv)
        #expect(history.messages.filter { $0.content.contains("signal_quote") }.count == 1, "sent once")
    }
}
