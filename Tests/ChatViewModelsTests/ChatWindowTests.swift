import ChatCore
import ChatStore
import ChatSync
import ChatTesting
import Foundation
import Testing
@testable import ChatViewModels

// The open chat's window follows the store, whoever writes it.

@MainActor @Suite struct ChatWindowTests {
    /// A peer has written `history` messages ("历史 1"…), and my chat with
    /// them is open on a fresh session.
    func chat(_ account: String, history: Int) async throws
        -> (fake: FakeChatAPI, peer: UserBasicInfo, me: Session, vm: ConversationViewModel) {
        let fake = try FakeChatAPI(account: account)
        let peer = try fake.addPeer(account + "peer")
        for i in 1...history { try fake.peerSends(from: peer.uid, text: "历史 \(i)") }
        let me = try fakeSession(fake)
        let vm = try await open(fake.conversationId(with: peer.uid), me, nickname: "peer")
        return (fake, peer, me, vm)
    }
    /// `tongban send` from another terminal writes the same store: the open
    /// chat shows the message, then that it was sent, with no call on it.
    @Test func aWriteTheChatDidNotMakeShowsInIt() async throws {
        let (fake, peer, me, vm) = try await chat("windowme", history: 1)
        let conv = fake.conversationId(with: peer.uid)
        #expect(vm.messages.first?.text == "历史 1")

        let sent = try #require(try await me.sendQueue.sendText("从命令行发的 🚀", to: conv))
        #expect(await settle(vm) { vm.messages.first?.text == "从命令行发的 🚀" })
        #expect(vm.messages.first?.status == .sending)
        #expect(await me.sendQueue.drain() == .empty)
        #expect(await settle(vm) { vm.messages.first { $0.id == sent.clientMsgID }?.status == .success })
    }

    /// Scrolled up, what arrives adds to the window and the oldest message
    /// the reader had stays; back at the bottom the window slides again.
    @Test func scrolledUpTheWindowGrowsAtTheBottomItSlides() async throws {
        let (fake, peer, me, vm) = try await chat("growme", history: 50)
        try await me.sync.pull()  // the sync log's older ten, which the first page left out
        let texts = { vm.messages.compactMap(\.text) }
        #expect(texts().count == 40 && texts().last == "历史 11")

        await vm.scrolled(toBottom: false)
        for i in 1...5 { try fake.peerSends(from: peer.uid, text: "新 \(i)") }
        try await me.sync.pull()
        #expect(await settle(vm) { texts().first == "新 5" && vm.newMessageBannerCount == 5 })
        #expect(texts().count == 45 && texts().last == "历史 11", "the reader's place stayed in the window")

        await vm.scrolled(toBottom: true)
        #expect(vm.newMessageBannerCount == 0)
        for i in 1...3 { try fake.peerSends(from: peer.uid, text: "再 \(i)") }
        try await me.sync.pull()
        #expect(await settle(vm) { texts().first == "再 3" })
        #expect(texts().count == 45 && texts().last == "历史 14", "at the bottom the oldest drop out")
    }

    /// Paging back brings a page from the server while the reader is
    /// scrolled up; what arrives next must not push that page out again.
    @Test func aPageFromTheServerStaysWhenMessagesArrive() async throws {
        let (fake, peer, me, vm) = try await chat("pageme", history: 100)
        let texts = { vm.messages.compactMap(\.text) }
        #expect(texts().last == "历史 61")

        await vm.scrolled(toBottom: false)
        await vm.loadMoreHistory()
        #expect(texts().count == 80 && texts().last == "历史 21", "forty more, from the server")
        for i in 1...3 { try fake.peerSends(from: peer.uid, text: "新 \(i)") }
        try await me.sync.pull()
        #expect(await settle(vm) { texts().first == "新 3" })
        #expect(texts().last == "历史 21", "the page the reader asked for is still there")
    }
}
