import ChatCore
@testable import ChatStore
import ChatTesting
import GRDB
import Synchronization
import Testing
@testable import ChatSync

/// An open chat reads its window when the store says its messages or its
/// conversation changed: each commit that says so must have changed them.
@Suite struct StoreSignalTests {
    @Test func mySendCommitsTwiceWhatAnOpenChatWatchesAndItsEchoNothing() async throws {
        let fake = try FakeChatAPI(account: "signalme")
        let peer = try fake.addPeer("signalpeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fake.makeSession()
        try fake.peerSends(from: peer.uid, text: "你好")
        try await me.sync.pull()

        // Called on the writer's queue inside each commit that touched them.
        let commits = Mutex(0)
        let watching = DatabaseRegionObservation(tracking: Table("message"), Table("conversation"))
            .start(in: me.store.dbPool, onError: { Issue.record($0) }, onChange: { _ in commits.withLock { $0 += 1 } })
        defer { watching.cancel() }

        let queued = try #require(try await me.sendQueue.sendText("回你 👋", to: conv))
        #expect(commits.withLock { $0 } == 1, "the bubble and its outbox row, in one commit")
        #expect(await me.sendQueue.drain() == .empty)
        #expect(commits.withLock { $0 } == 2, "acknowledged: its seq and the preview")
        try await me.sync.pull()
        #expect(commits.withLock { $0 } == 2, "the sync's echo of it changes nothing")
        #expect(try me.store.message(clientMsgID: queued.clientMsgID)?.status == MessageStatus.success.rawValue)

        try fake.peerSends(from: peer.uid, text: "收到")
        try await me.sync.pull()
        #expect(commits.withLock { $0 } == 3, "a new message is one")
    }
}
