import ChatCore
@testable import ChatStore
@testable import ChatSync
import ChatTesting
import Foundation
import Testing
@testable import ChatViewModels

// The view models against FakeChatAPI: no server, no socket, no loopback.

/// A view model that reports every change through `onChange`.
@MainActor protocol ReportsChanges: AnyObject {
    var onChange: (() -> Void)? { get set }
}

extension ConversationListViewModel: ReportsChanges {}
extension ConversationViewModel: ReportsChanges {}

/// Waits until `condition` holds, checking it again at each change `vm`
/// reports; false if it still does not hold after `timeout`.
@MainActor
func settle(_ vm: some ReportsChanges, timeout: Duration = .seconds(5), until condition: () -> Bool) async -> Bool {
    if condition() { return true }
    let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let previous = vm.onChange
    vm.onChange = {
        previous?()
        continuation.yield()
    }
    defer { vm.onChange = previous }
    let deadline = Task {
        try? await Task.sleep(for: timeout)
        continuation.finish()
    }
    defer { deadline.cancel() }
    for await _ in changes where condition() { return true }
    return condition()
}

/// Waits until `condition` holds, for what no view model reports (the fake
/// server's state after a request the view model sent from a task).
@MainActor
func settle(timeout: Duration = .seconds(5), until condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Opens the chat `conv` as a UI would (zh-Hans), after what the store and the server have.
@MainActor
func open(_ conv: String, _ me: Session, nickname: String = "") async throws -> ConversationViewModel {
    try me.store.ensureConversation(id: conv, nickname: nickname)
    let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me,
                                   localizer: Localizer(language: .zhHans))
    await vm.onAppear()
    return vm
}

/// A session on `fake` whose send queue gives up after two quick attempts.
func fakeSession(_ fake: FakeChatAPI) throws -> Session {
    try fake.makeSession(sendPolicy: .retriesQuickly)
}

@MainActor @Suite struct FakeListViewModelTests {
    @Test func listLoadsWithUnreadCountsAndPinOrder() async throws {
        let fake = try FakeChatAPI(account: "listme")
        let ann = try fake.addPeer("ann", username: "Ann")
        let bob = try fake.addPeer("bob", username: "Bob")
        let cat = try fake.addPeer("cat", username: "Cat")
        try fake.peerSends(from: ann.uid, text: "a1")
        for i in 1...2 { try fake.peerSends(from: bob.uid, text: "b\(i)") }
        for i in 1...3 { try fake.peerSends(from: cat.uid, text: "c\(i)") }
        let annId = fake.conversationId(with: ann.uid), bobId = fake.conversationId(with: bob.uid)
        // Pinned on another device, before this one opens.
        _ = try await fake.api.pin(conversationId: annId, isPinned: true)
        fake.resetCallCounts()

        let me = try fakeSession(fake)
        let vm = ConversationListViewModel(session: me, localizer: Localizer(language: .zhHans))
        await vm.onAppear()
        #expect(vm.conversations.map(\.nickname) == ["Ann", "Cat", "Bob"], "pinned first, then the newest")
        #expect(vm.conversations.map(\.unreadCount) == [1, 3, 2])
        #expect(vm.totalUnread == 6)
        #expect(fake.calls(.conversations) == 1)

        await vm.pinConversation(id: bobId, isPinned: true)
        #expect(vm.conversations.map(\.nickname) == ["Bob", "Ann", "Cat"], "two pinned, the newer first")
        #expect(fake.summary(of: bobId)?.isPinned == true, "the server has it")
        #expect(vm.errorMessage == nil)

        // A refusal puts the pin back, with the server's reason in the user's words.
        fake.failNext(.pin, with: .server(status: 403, code: .forbidden, rawCode: "forbidden", message: "no", retryAfter: nil))
        await vm.pinConversation(id: bobId, isPinned: false)
        #expect(vm.conversations.first?.id == bobId)
        #expect(vm.errorMessage == "没有权限")

        // A peer writes while the list is open: it follows the pull.
        try fake.peerSends(from: bob.uid, text: "b3")
        try await me.sync.pull()
        #expect(await settle(vm) { vm.conversations.first { $0.id == bobId }?.unreadCount == 3 })
        #expect(vm.totalUnread == 7)
    }

    @Test func deleteAgainstADeadServerPutsTheConversationBack() async throws {
        let fake = try FakeChatAPI(account: "delme")
        let ann = try fake.addPeer("ann")
        let bob = try fake.addPeer("bob")
        try fake.peerSends(from: ann.uid, text: "一")
        try fake.peerSends(from: bob.uid, text: "二")
        let annId = fake.conversationId(with: ann.uid), bobId = fake.conversationId(with: bob.uid)
        let me = try fakeSession(fake)
        let vm = ConversationListViewModel(session: me)
        await vm.onAppear()
        #expect(vm.conversations.map(\.id) == [bobId, annId])

        fake.isDown = true
        await vm.deleteConversation(id: annId)
        #expect(vm.conversations.contains { $0.id == annId })
        #expect(vm.errorMessage == "无法连接服务器")
        #expect(try me.store.conversation(id: annId) != nil)
        #expect(fake.summary(of: annId) != nil, "the server was never asked")

        fake.isDown = false
        await vm.deleteConversation(id: annId)
        #expect(vm.conversations.map(\.id) == [bobId])
        #expect(try await fake.api.conversations().map(\.conversationId) == [bobId], "hidden on the server too")
        // A later message shows it again.
        try fake.peerSends(from: ann.uid, text: "还在吗")
        try await me.sync.pull()
        #expect(await settle(vm) { vm.conversations.map(\.id) == [annId, bobId] })
        #expect(vm.conversations.first?.unreadCount == 1, "only what came after the delete")
    }
}

@MainActor @Suite struct FakeConversationViewModelTests {
    @Test func historySendPeerMessageAndRevoke() async throws {
        let fake = try FakeChatAPI(account: "chatme")
        let peer = try fake.addPeer("chatpeer")
        let conv = fake.conversationId(with: peer.uid)
        for i in 1...50 { try fake.peerSends(from: peer.uid, text: "历史 \(i)") }
        let me = try fakeSession(fake)
        let vm = try await open(conv, me, nickname: "chatpeer")
        let texts = { vm.messages.compactMap(\.text) }

        // Opening: the newest page from the server, read here and there.
        #expect(texts().count == 40)
        #expect(texts().first == "历史 50", "index 0 is the newest")
        #expect(vm.hasMoreHistory)
        #expect(try me.store.conversation(id: conv)?.unreadCount == 0)
        #expect(await settle { fake.summary(of: conv)?.unreadCount == 0 }, "the read position reached the server")
        await vm.loadMoreHistory()
        #expect(texts().count == 50)
        #expect(texts().last == "历史 1")
        #expect(!vm.hasMoreHistory)

        // Sending: shown as soon as the store has it, trimmed; the queue gives it its seq.
        await vm.sendText("   ")
        await vm.sendText("  我来了  ")
        #expect(await settle(vm) { vm.messages.first?.isMe == true })
        let mine = try #require(vm.messages.first)
        #expect(mine.text == "我来了")
        #expect(mine.isMe && mine.status == .sending)
        #expect(fake.calls(.send) == 0, "the queue sends, not the view model")
        #expect(await me.sendQueue.drain() == .empty)
        vm.reload()
        #expect(vm.messages.first { $0.id == mine.id }?.status == .success)
        #expect(try me.store.message(clientMsgID: mine.id)?.seq == 51)
        #expect(fake.messages(in: conv).last?.clientMsgID == mine.id)
        #expect(fake.calls(.send) == 1)

        // The peer answers: it shows after a pull.
        try fake.peerSends(from: peer.uid, text: "欢迎")
        try await me.sync.pull()
        #expect(await settle(vm) { vm.messages.first?.text == "欢迎" })
        #expect(vm.messages.filter { $0.id == mine.id }.count == 1, "our echo merged, not doubled")

        // And again, pulled because the fake says so, as a push notice would.
        fake.pushNotices(to: me.sync)
        try fake.peerSends(from: peer.uid, text: "推送")
        #expect(await settle(vm) { vm.messages.first?.text == "推送" })

        // Revoke: not theirs; ours, within the window, everywhere.
        let theirs = try #require(vm.messages.first { !$0.isMe && $0.type == .text })
        await vm.revokeMessage(id: theirs.id)
        #expect(vm.messages.first { $0.id == theirs.id }?.isRecalled == false)
        await vm.revokeMessage(id: mine.id)
        #expect(vm.messages.first { $0.id == mine.id }?.isRecalled == true)
        #expect(fake.messages(in: conv).first { $0.clientMsgID == mine.id }?.revoked == true)
        try await me.sync.pull()
        vm.reload()
        #expect(vm.messages.first { $0.id == mine.id }?.isRecalled == true, "the server's update agrees")

        // Past the window the server refuses, and the message comes back.
        await vm.sendText("收不回")
        _ = await me.sendQueue.drain()
        vm.reload()
        let late = try #require(vm.messages.first { $0.isMe && $0.text == "收不回" })
        fake.advanceClock(by: .seconds(fake.revokeWindowSeconds + 1))
        await vm.revokeMessage(id: late.id)
        #expect(vm.messages.first { $0.id == late.id }?.isRecalled == false)
        #expect(vm.errorMessage == "已超过服务器允许的撤回时间，无法撤回", "the server's window, whatever it is set to")
    }

    @Test func aDeadServerKeepsTheMessageQueuedAndItGoesOnceWhenBack() async throws {
        let fake = try FakeChatAPI(account: "deadme")
        let peer = try fake.addPeer("deadpeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fakeSession(fake)
        let vm = try await open(conv, me)

        fake.isDown = true
        await vm.sendText("发不出去")
        #expect(await settle(vm) { vm.messages.first?.text == "发不出去" })
        let id = try #require(vm.messages.first?.id)
        // However many attempts fail to connect, it stays queued and says why.
        for _ in 0..<20 {
            #expect(await me.sendQueue.drain() == .waiting(reason: FakeChatAPI.unreachable.description,
                                                            clientMsgID: id, mayHaveArrived: false))
        }
        vm.reload()
        #expect(vm.messages.first { $0.id == id }?.status == .sending)
        #expect(vm.messages.first { $0.id == id }?.errorReason == FakeChatAPI.unreachable.description)
        #expect(fake.calls(.send) == 20)
        #expect(fake.messages(in: conv).isEmpty)

        // Back, but the first answer is lost after the server stored it: the
        // queue tries again with the same id, and the server keeps one.
        fake.isDown = false
        fake.failNext(.send, with: .timeout, afterApplying: true)
        #expect(await me.sendQueue.drain() != .empty)
        #expect(await me.sendQueue.drain() == .empty)
        vm.reload()
        #expect(vm.messages.first { $0.id == id }?.status == .success)
        #expect(vm.messages.first { $0.id == id }?.errorReason == nil)
        #expect(fake.calls(.send) == 22)
        #expect(fake.messages(in: conv).map(\.clientMsgID) == [id], "stored exactly once")
        try await me.sync.pull()
        vm.reload()
        #expect(vm.messages.filter { $0.id == id }.count == 1)
    }

    /// A 410 leaves a hole in the local history (the log that would have
    /// delivered it is gone); opening the chat fills it from the server.
    @Test func openingFillsTheHoleAnExpiredCursorLeft() async throws {
        let fake = try FakeChatAPI(account: "holeme")
        let peer = try fake.addPeer("holepeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fakeSession(fake)
        for i in 1...3 { try fake.peerSends(from: peer.uid, text: "第\(i)条") }
        try await me.sync.pull()
        for i in 4...6 { try fake.peerSends(from: peer.uid, text: "第\(i)条") }
        fake.expireSyncLog()
        for i in 7...8 { try fake.peerSends(from: peer.uid, text: "第\(i)条") }
        try await me.sync.pull()
        #expect(try me.store.missingRanges(conversationId: conv) == [4...6])

        let vm = try await open(conv, me)
        #expect(vm.messages.compactMap(\.text) == (1...8).reversed().map { "第\($0)条" })
        #expect(try me.store.missingRanges(conversationId: conv).isEmpty)
    }

    @Test func aSlowSendShowsSendingUntilTheServerAnswers() async throws {
        let fake = try FakeChatAPI(account: "slowme")
        let peer = try fake.addPeer("slowpeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fakeSession(fake)
        let vm = try await open(conv, me)
        let gate = fake.hold(.send)
        await vm.sendText("慢慢来")
        #expect(await settle(vm) { vm.messages.first?.text == "慢慢来" })
        let id = try #require(vm.messages.first?.id)
        let drained = Task { await me.sendQueue.drain() }
        await gate.waitForArrivals(1)
        vm.reload()
        #expect(vm.messages.first { $0.id == id }?.status == .sending, "in flight")
        #expect(fake.messages(in: conv).isEmpty)
        gate.release()
        #expect(await drained.value == .empty)
        vm.reload()
        #expect(vm.messages.first { $0.id == id }?.status == .success)
    }

    @Test func signalQuoteIsSentOnceThenOpenIM() async throws {
        let fake = try FakeChatAPI(account: "sigowner")
        let replier = try fake.addPeer("sigreply")
        let signal = try await fake.api.createSignal("周末去爬山？")
        let receiveId = try await fake.peer(replier.uid).api.replySignal(signalId: signal, content: "我去")
        let item = try #require(try await fake.api.signalInbox().first)
        #expect(!item.isImOpened)
        let conv = fake.conversationId(with: replier.uid)
        let me = try fakeSession(fake)
        try me.store.ensureConversation(id: conv, nickname: "sigreply")
        try me.store.setSignalContext(id: conv, signalId: signal, receiveId: receiveId, reply: item.replyContent,
                                      content: item.signalContent)
        let vm = try await open(conv, me)
        _ = await me.sendQueue.drain()
        #expect(vm.messages.contains { $0.type == .signalQuote && $0.signalQuoteReply == "我去" })
        #expect(try await fake.api.signalInbox().first?.isImOpened == true)
        let again = try await open(conv, me)
        _ = await me.sendQueue.drain()
        #expect(again.messages.filter { $0.type == .signalQuote }.count == 1)
        #expect(fake.messages(in: conv).filter { $0.content.contains("signal_quote") }.count == 1, "sent once")
    }
}
