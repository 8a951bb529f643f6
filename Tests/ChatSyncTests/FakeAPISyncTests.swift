import ChatCore
@testable import ChatStore
import ChatTesting
import Foundation
import Synchronization
import Testing
@testable import ChatSync

// The sync engine, the send queue and the media cache against FakeChatAPI.

/// What an engine reports, as a stream, from now on.
func updates(of engine: SyncEngine) -> (AsyncStream<SyncUpdate>, stop: @Sendable () -> Void) {
    let (stream, continuation) = AsyncStream<SyncUpdate>.makeStream()
    let id = engine.observe { continuation.yield($0) }
    return (stream, { engine.removeObserver(id); continuation.finish() })
}

/// The first update `match` accepts, nil when none comes within `timeout`.
func firstUpdate(_ stream: AsyncStream<SyncUpdate>, timeout: Duration = .seconds(5),
                 where match: @escaping @Sendable (SyncUpdate) -> Bool) async -> SyncUpdate? {
    await withTaskGroup(of: SyncUpdate?.self) { group in
        group.addTask {
            for await u in stream where match(u) { return u }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

func storedTexts(_ s: Session, _ conv: String) throws -> [String] {
    try s.store.newestPage(conversationId: conv, limit: 1000).messages.map { $0.chatMessage(myImUid: s.credentials.imUid).text ?? "" }
}

@Suite struct FakeAPISyncTests {
    @Test func theCursorOnlyGrowsAndPagesAreFollowedToTheEnd() async throws {
        let fake = try FakeChatAPI(account: "cursorme")
        let peer = try fake.addPeer("cursorpeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fake.makeSession()
        var seen = [try me.store.syncCursor()]

        try await me.sync.pull()
        seen.append(try me.store.syncCursor())
        #expect(fake.calls(.sync) == 1)

        for i in 1...3 { try fake.peerSends(from: peer.uid, text: "一 \(i)") }
        try await me.sync.pull()
        seen.append(try me.store.syncCursor())
        #expect(try storedTexts(me, conv) == ["一 1", "一 2", "一 3"])

        // More than one page (500 events): one pull follows hasMore to the end.
        fake.resetCallCounts()
        for i in 1...620 { try fake.peerSends(from: peer.uid, text: "二 \(i)") }
        let changes = try await me.sync.pull()
        seen.append(try me.store.syncCursor())
        #expect(fake.calls(.sync) == 2)
        #expect(changes.incoming[conv] == 620)
        #expect(try me.store.conversation(id: conv)?.unreadCount == 623)

        // Nothing new: the cursor stays.
        try await me.sync.pull()
        seen.append(try me.store.syncCursor())
        #expect(seen == seen.sorted(), "never moves back: \(seen)")
        #expect(seen[2] > seen[1] && seen[3] > seen[2], "each batch moved it on: \(seen)")
        #expect(seen[4] == seen[3])
        #expect(seen.last == fake.syncCursor)
    }

    @Test func anExpiredCursorReloadsConversationsAndRecordsTheHole() async throws {
        let fake = try FakeChatAPI(account: "expireme")
        let peer = try fake.addPeer("expirepeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fake.makeSession()
        let (stream, stop) = updates(of: me.sync)
        defer { stop() }

        for i in 1...3 { try fake.peerSends(from: peer.uid, text: "\(i)") }
        try await me.sync.pull()
        let before = try me.store.syncCursor()
        for i in 4...6 { try fake.peerSends(from: peer.uid, text: "\(i)") }
        fake.expireSyncLog()
        for i in 7...8 { try fake.peerSends(from: peer.uid, text: "\(i)") }
        fake.resetCallCounts()

        try await me.sync.pull()
        #expect(fake.calls(.conversations) == 1, "the list is reloaded")
        #expect(fake.calls(.sync) == 2, "the expired ask, then from the start")
        #expect(await firstUpdate(stream) { if case .resynced = $0 { true } else { false } } != nil)
        #expect(try storedTexts(me, conv) == ["1", "2", "3", "7", "8"])
        #expect(try me.store.missingRanges(conversationId: conv) == [4...6])
        #expect(try me.store.syncCursor() > before)
        #expect(try me.store.syncCursor() == fake.syncCursor)

        // What /chat/messages gives for the hole is what the log lost.
        let page = try await me.api.history(conversationId: conv, afterSeq: 3, limit: 3)
        #expect(page.messages.map(\.content) == ["4", "5", "6"])
        #expect(page.hasMore)
    }

    @Test func noticesFromTheFakeDriveThePulls() async throws {
        let fake = try FakeChatAPI(account: "noticeme")
        let peer = try fake.addPeer("noticepeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fake.makeSession()
        let (stream, stop) = updates(of: me.sync)
        defer { stop() }
        fake.pushNotices(to: me.sync)

        try fake.peerSends(from: peer.uid, text: "推来的")
        let applied = await firstUpdate(stream) { u in
            if case .applied(let c) = u { return c.incoming[conv] == 1 }
            return false
        }
        #expect(applied != nil)
        #expect(try storedTexts(me, conv) == ["推来的"])
    }

    /// With no push socket the poll alone tells whether the server is there.
    @Test func withoutPushThePollSaysOnlineAndOffline() async throws {
        let fake = try FakeChatAPI(account: "pollme")
        var timing = SyncEngine.Timing()
        timing.pollOffline = .milliseconds(10)
        timing.pollOnline = .seconds(60)
        let me = try fake.makeSession(timing: timing)
        let (stream, stop) = updates(of: me.sync)
        defer { stop() }
        #expect(me.api.pushURL == nil)

        me.sync.start()
        defer { me.sync.stop() }
        #expect(await firstUpdate(stream) { $0.isConnection(.online) } != nil)
        fake.isDown = true
        let down = await firstUpdate(stream) { if case .connection(.offline) = $0 { true } else { false } }
        guard case .connection(.offline(let why))? = down else { Issue.record("never offline"); return }
        #expect(why.contains("cannot reach"))
        fake.isDown = false
        #expect(await firstUpdate(stream) { $0.isConnection(.online) } != nil, "polled at the fast pace while down")
    }

    /// Without push, a poll that brought messages is followed at once by
    /// the next: a flood is not fetched one page every `pollOffline`.
    @Test func withoutPushABusyPollIsFollowedSoon() async throws {
        let timing = SyncEngine.Timing()
        #expect(timing.pollWait(pushUp: true, lastPullBrought: true) == timing.pollOnline, "push says when")
        #expect(timing.pollWait(pushUp: false, lastPullBrought: false) == timing.pollOffline)
        #expect(timing.pollWait(pushUp: false, lastPullBrought: true) == timing.pollBusy)
        #expect(timing.pollBusy < timing.pollOffline / 10)

        let fake = try FakeChatAPI(account: "busyme")
        let peer = try fake.addPeer("busypeer")
        let conv = fake.conversationId(with: peer.uid)
        var slow = SyncEngine.Timing()
        slow.pollOffline = .milliseconds(10)  // the first poll; after it only the busy pace can be fast
        slow.pollBusy = .milliseconds(10)
        slow.pollOnline = .seconds(600)
        let me = try fake.makeSession(timing: slow)
        let (stream, stop) = updates(of: me.sync)
        defer { stop() }
        try fake.peerSends(from: peer.uid, text: "一")
        me.sync.start()
        defer { me.sync.stop() }
        #expect(await firstUpdate(stream) { u in if case .applied(let c) = u { c.incoming[conv] == 1 } else { false } } != nil)
        try fake.peerSends(from: peer.uid, text: "二")
        #expect(await firstUpdate(stream) { u in if case .applied(let c) = u { c.incoming[conv] == 1 } else { false } } != nil)
        #expect(try storedTexts(me, conv) == ["一", "二"])
    }

    @Test func aLostAnswerIsResentWithTheSameIdAndStoredOnce() async throws {
        let fake = try FakeChatAPI(account: "lostme")
        let peer = try fake.addPeer("lostpeer")
        let conv = fake.conversationId(with: peer.uid)
        var policy = SendQueue.Policy()
        policy.backoffBase = .milliseconds(1)
        policy.backoffCap = .milliseconds(2)
        let me = try fake.makeSession(sendPolicy: policy)

        fake.failNext(.send, times: 2, with: .timeout, afterApplying: true)
        let record = try #require(try await me.sendQueue.sendText("只一次", to: conv))
        // Each lost answer leaves it queued (the server may have it); the
        // third attempt gets the server's answer for the one it kept.
        for _ in 0..<2 {
            #expect(await me.sendQueue.drain() == .waiting(reason: APIError.timeout.description,
                                                            clientMsgID: record.clientMsgID, mayHaveArrived: true))
        }
        #expect(await me.sendQueue.drain() == .empty)
        #expect(fake.calls(.send) == 3)
        #expect(fake.messages(in: conv).map(\.clientMsgID) == [record.clientMsgID])
        #expect(try me.store.message(clientMsgID: record.clientMsgID)?.seq == 1)

        // A refusal is final: no retries.
        fake.resetCallCounts()
        fake.failNext(.send, with: .server(status: 400, code: .invalidRequest, rawCode: "invalid_request",
                                          message: "no", retryAfter: nil))
        let refused = try #require(try await me.sendQueue.sendText("不行", to: conv))
        #expect(await me.sendQueue.drain() == .empty)
        #expect(fake.calls(.send) == 1)
        #expect(try me.store.message(clientMsgID: refused.clientMsgID)?.status == MessageStatus.failed.rawValue)
    }

    /// An answer that could not be read may be the server's success: the
    /// message is resent (the server keeps one), never failed; and one whose
    /// request may have arrived is never taken back by `tongban send`.
    @Test func anUnreadableAnswerIsNotARefusalAndAMaybeDeliveredMessageIsNotTakenBack() async throws {
        let fake = try FakeChatAPI(account: "garbledme")
        let peer = try fake.addPeer("garbledpeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fake.makeSession(sendPolicy: .retriesQuickly)

        fake.failNext(.send, with: .badResponse("SendMessageResponse: not JSON"), afterApplying: true)
        let garbled = try #require(try await me.sendQueue.sendText("乱码回复", to: conv))
        #expect(await me.sendQueue.drain() != .empty)
        #expect(try await me.sendQueue.fate(of: garbled.clientMsgID) != .failed(reason: ""), "not failed")
        #expect(await me.sendQueue.drain() == .empty)
        #expect(fake.messages(in: conv).map(\.content) == ["乱码回复"], "stored once")
        #expect(try me.store.message(clientMsgID: garbled.clientMsgID)?.status == MessageStatus.success.rawValue)

        // Timed out (the server may have it): taking it back keeps it queued.
        fake.failNext(.send, with: .timeout, afterApplying: true)
        let maybe = try #require(try await me.sendQueue.sendText("也许到了", to: conv))
        #expect(await me.sendQueue.drain() != .empty)
        guard case .queued = try await me.sendQueue.takeBack(clientMsgID: maybe.clientMsgID) else {
            Issue.record("a message that may have arrived was taken back"); return
        }
        // Never reached the server: it is taken back, and never sent.
        fake.isDown = true
        let never = try #require(try await me.sendQueue.sendText("没发出去", to: conv))
        _ = await me.sendQueue.drain()
        fake.isDown = false
        #expect(await me.sendQueue.drain() == .empty)
        #expect(try me.store.message(clientMsgID: never.clientMsgID)?.status == MessageStatus.success.rawValue,
                "queued behind the maybe-delivered one, it went once the server was back")
        let drop = try #require(try await me.sendQueue.sendText("收回", to: conv))
        fake.isDown = true
        _ = await me.sendQueue.drain()
        #expect(try await me.sendQueue.takeBack(clientMsgID: drop.clientMsgID) == .gone)
        fake.isDown = false
        // Refused for now (429): the server stored nothing, so it waits, and can be taken back.
        fake.failNext(.send, with: .server(status: 429, code: .rateLimited, rawCode: "rate_limited", message: "slow down",
                                          retryAfter: 1))
        let limited = try #require(try await me.sendQueue.sendText("太快了", to: conv))
        #expect(await me.sendQueue.drain() == .waiting(reason: MessageStatus.rateLimitedReason, clientMsgID: limited.clientMsgID,
                                                        mayHaveArrived: false))
        #expect(try await me.sendQueue.takeBack(clientMsgID: limited.clientMsgID) == .gone)
        #expect(await me.sendQueue.drain() == .empty)
        #expect(fake.messages(in: conv).map(\.content) == ["乱码回复", "也许到了", "没发出去"])
    }

    @Test func picturesGoUpAndComeBackThroughTheMediaCache() async throws {
        let fake = try FakeChatAPI(account: "picme")
        let peer = try fake.addPeer("picpeer")
        let conv = fake.conversationId(with: peer.uid)
        let me = try fake.makeSession()
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (9, 8, 7) }

        // The peer sends a picture: upload, then a message naming its key.
        let them = fake.peer(peer.uid)
        let key = try await them.api.upload(png, contentType: "image/png", kind: "chat_image").objectKey
        let (type, body) = try #require(IMMessageMapper.wireContent(for: .image(ImagePayload(objectKey: key, w: 2, h: 2))))
        _ = try await them.api.send(SendMessageRequest(recvID: conv, content: body, contentType: type, clientMsgId: "pic1"))
        try await me.sync.pull()

        let message = try #require(try me.store.message(clientMsgID: "pic1")).chatMessage(myImUid: me.credentials.imUid)
        let urls = try await me.media.resolveMediaURLs(for: [message])
        let url = try #require(urls[key])
        #expect(url.hasPrefix(fake.baseURL + "/media/object/"))
        try await me.media.prefetch(url: url, expireAt: 0, objectKey: key)
        let cached = try #require(me.media.localURL(for: key))
        #expect(FileManager.default.contents(atPath: cached.path) == png)

        // Bytes that are not the declared type are refused, as by the server.
        await #expect(throws: APIError.self) { try await me.api.upload(Data("nope".utf8), contentType: "image/png", kind: "chat_image") }
        // A stranger's key cannot be signed.
        let stranger = try fake.addPeer("stranger")
        let theirs = try await fake.peer(stranger.uid).api.upload(png, contentType: "image/png", kind: "chat_image").objectKey
        #expect(try await me.api.sign([theirs]).urls.isEmpty)
    }
}

extension SyncUpdate {
    func isConnection(_ state: ConnectionState) -> Bool {
        if case .connection(let s) = self { return s == state }
        return false
    }
}
