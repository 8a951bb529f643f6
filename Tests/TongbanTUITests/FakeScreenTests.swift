import ChatCore
import ChatStore
import ChatSync
import ChatTesting
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

// The full-screen client against FakeChatAPI: keys in, cells out, no server.

@MainActor @Suite struct FakeScreenTests {
    /// A fake server where Ann has written to me, and my client on it with
    /// its sync and send queue running, as `tongban` runs them.
    func annWrote(_ account: String) async throws -> (FakeChatAPI, UserBasicInfo, ChatApp, Session) {
        let fake = try FakeChatAPI(account: account)
        let ann = try fake.addPeer("ann", username: "Ann 安")
        try fake.peerSends(from: ann.uid, text: "在吗？🙂")
        let session = try fakeSession(fake)
        fake.pushNotices(to: session.sync)
        session.sync.start()
        await session.sendQueue.start()
        return (fake, ann, await app(session), session)
    }

    func stop(_ session: Session) async {
        session.sync.stop()
        await session.sendQueue.stop()
    }

    func fakeSession(_ fake: FakeChatAPI) throws -> Session {
        try fake.makeSession(sendPolicy: .retriesQuickly)
    }

    @Test func aChatBothWaysOnScreen() async throws {
        let (fake, ann, app, session) = try await annWrote("screenme")
        let list = app.frame(width: 100, height: 30)
        #expect(list.rowText(0).contains("消息 (1)"))
        let row = try #require(list.find("Ann 安"))
        #expect(list.rowText(row.y + 1).contains("在吗？🙂"))

        await app.handle(.enter)
        await type(app, "马上到 🚶")
        await app.handle(.enter)
        #expect(await waitFor(app, width: 100, height: 30, "马上到 🚶"))
        let conv = fake.conversationId(with: ann.uid)
        #expect(await until { fake.messages(in: conv).last?.content == "马上到 🚶" }, "the server took it")
        #expect(await until { app.frame(width: 100, height: 30).find("马上到 🚶 …") == nil }, "no longer shown as sending")
        // The read mark goes to the server on its own task: wait for it there.
        #expect(await until { fake.summary(of: conv)?.unreadCount == 0 }, "opening read Ann's message on the server too")

        // Ann answers; the fake's notice makes the client pull, as a push would.
        try fake.peerSends(from: ann.uid, text: "好的，楼下等你")
        #expect(await waitFor(app, width: 100, height: 30, "好的，楼下等你"))
        await stop(session)
    }

    @Test func aSendToADeadServerWaitsOnScreenAndGoesOnceWhenBack() async throws {
        let (fake, ann, app, session) = try await annWrote("deadscreen")
        await app.handle(.enter)
        fake.isDown = true
        await type(app, "发不出去")
        await app.handle(.enter)
        // Queued, not failed: the bubble says why it waits.
        #expect(await waitFor(app, width: 100, height: 30, "等待发送：cannot reach the server"))
        #expect(app.frame(width: 100, height: 30).find("发送失败") == nil)
        let conv = fake.conversationId(with: ann.uid)
        #expect(fake.messages(in: conv).count == 1, "nothing reached the server")

        // Back up: the queue's next try (or a wake) sends it, once.
        fake.isDown = false
        await session.sendQueue.wake()
        #expect(await until { fake.messages(in: conv).count == 2 })
        #expect(await until { app.frame(width: 100, height: 30).find("等待发送") == nil })
        #expect(fake.messages(in: conv).map(\.content) == ["在吗？🙂", "发不出去"], "sent once")
        await stop(session)
    }

    @Test func aRefusedMessageHoldsTheNextUntilEnterRetriesOrXDiscardsIt() async throws {
        let (fake, ann, app, session) = try await annWrote("refusedscreen")
        let conv = fake.conversationId(with: ann.uid)
        await app.handle(.enter)
        fake.failNext(.send, with: .server(status: 400, code: .invalidRequest, rawCode: "invalid_request",
                                          message: "不收这条", retryAfter: nil))
        await type(app, "被拒绝的")
        await app.handle(.enter)
        #expect(await waitFor(app, width: 100, height: 30, "发送失败，Enter 重试"))
        await type(app, "排在后面")
        await app.handle(.enter)
        #expect(await waitFor(app, width: 100, height: 30, "等待：前面一条消息发送失败"))
        #expect(fake.messages(in: conv).map(\.content) == ["在吗？🙂"], "the later message did not overtake")

        // x on the failed one (one up from the newest, which the pane selects as it takes the keyboard), y: it goes, and the held one is sent.
        await app.handle(.escape)
        await app.handle(.char("k"))
        await app.handle(.char("x"))
        #expect(await waitFor(app, width: 100, height: 30, "删除这条未送达的消息？(y/N)"))
        await app.handle(.char("y"))
        #expect(await until { fake.messages(in: conv).count == 2 })
        #expect(fake.messages(in: conv).map(\.content) == ["在吗？🙂", "排在后面"])
        #expect(await until { app.frame(width: 100, height: 30).find("被拒绝的") == nil }, "the discarded message is gone")
        #expect(await until { app.frame(width: 100, height: 30).find("等待：") == nil })
        await stop(session)
    }
}
