import ChatCore
import ChatServer
@testable import ChatStore
import Foundation
import Logging
import ChatTesting
import Testing
@testable import ChatSync

func tempURL(_ name: String) -> URL {
    TestFolders.make("tongban-sync-\(name)")
}

/// A file's URL (`name.ext`) in a folder of its own, removed with the others.
func tempFile(_ name: String, _ ext: String) -> URL {
    TestFolders.folder("tongban-sync-\(name)").appendingPathComponent("\(name).\(ext)")
}

func startServer(dir: URL, port: Int = 0, _ tweak: (inout ServerConfig) -> Void = { _ in }) async throws -> RunningServer {
    var config = ServerConfig()
    config.port = port
    config.dataDir = dir.path
    var logger = Logger(label: "sync-test-server")
    logger.logLevel = .error
    config.logger = logger
    // Suites sign many users up from one address; a test of a limit sets it.
    config.limits = .unlimited
    tweak(&config)
    return try await ChatServerApp.start(config: config)
}

/// A registered user with their own local data folder (`device`: keeps the session id, as secret chats need).
/// `a` sends `b` nine messages; `b` pulls after the first three, and the
/// sync log loses 4–8 before `b` pulls again: `b`'s store misses 4...8 (the
/// last pull is left to the caller, which may watch it).
func sendAcrossAPrunedLog(_ server: RunningServer, from a: Session, to b: Session) async throws -> String {
    let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
    for i in 1...3 { _ = try await a.api.send(SendMessageRequest(recvID: conv, content: "早 \(i)", contentType: 101, clientMsgId: "e\(i)")) }
    try await b.sync.pull()
    for i in 4...8 { _ = try await a.api.send(SendMessageRequest(recvID: conv, content: "晚 \(i)", contentType: 101, clientMsgId: "e\(i)")) }
    try server.service.pruneSyncLog(olderThanMs: Int(Date().timeIntervalSince1970 * 1000) + 1000)
    _ = try await a.api.send(SendMessageRequest(recvID: conv, content: "最新", contentType: 101, clientMsgId: "e9"))
    return conv
}

func makeSession(_ server: String, _ account: String, root: URL? = nil, fast: Bool = true, device: Bool = false) async throws -> Session {
    let root = root ?? tempURL(account)
    let paths = StorePaths(dataDirectory: root.appendingPathComponent("data"), cacheDirectory: root.appendingPathComponent("cache"),
                           configDirectory: root.appendingPathComponent("config"))
    let api = APIClient(baseURL: server)
    let auth: AuthResponse
    do {
        auth = try await api.register(account: account, password: "password-\(account)")
    } catch {
        auth = try await api.login(account: account, password: "password-\(account)")
    }
    let creds = Session.Credentials(server: server, account: account, uid: auth.uid, imUid: auth.imUid,
                                    username: auth.username, token: auth.token, sessionId: device ? auth.sessionId : nil)
    try Session.save(creds, paths: paths)
    var timing = SyncEngine.Timing()
    if fast {
        timing.pollOnline = .seconds(30)
        timing.pollOffline = .milliseconds(200)
        timing.backoffBase = .milliseconds(50)
        timing.backoffCap = .milliseconds(200)
    }
    return try Session(credentials: creds, paths: paths, timing: timing)
}

func eventually(_ timeout: Duration = .seconds(5), _ check: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try check() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try check()
}

/// What a call to a server that was just stopped fails with. A kept-alive
/// connection the client already saw closed is left for a new one
/// (refused); one it had not yet seen closed may still take the first try
/// (outcome unknown), so a second is made. Records an issue if one succeeds.
func failureOnceStopped(_ call: () async throws -> Void) async -> (any Error)? {
    var last: (any Error)?
    for _ in 0..<2 {
        do {
            try await call()
            Issue.record("the server is stopped")
        } catch {
            last = error
            if (error as? APIError)?.neverReachedServer == true { break }
        }
    }
    return last
}

func texts(_ s: Session, _ conv: String) throws -> [String] {
    try s.store.newestPage(conversationId: conv, limit: 200).messages.map { $0.chatMessage(myImUid: s.credentials.imUid).text ?? "" }
}

@Suite(.serialized) struct TwoUserTests {
    @Test func chatBothWaysWithoutDuplicates() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "anna")
        let b = try await makeSession(server.baseURL, "bert")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)

        try await a.sendQueue.sendText("  你好，Bert  ", to: conv)
        #expect(try texts(a, conv) == ["你好，Bert"], "optimistic message shows at once, trimmed")
        #expect(try a.store.newestPage(conversationId: conv).messages[0].status == "sending")
        #expect(try await a.sendQueue.sendText("   ", to: conv) == nil, "blank text is ignored")
        #expect(await a.sendQueue.drain() == .empty)
        try await a.sync.pull()
        #expect(try texts(a, conv) == ["你好，Bert"], "the echo merged into the optimistic message")
        #expect(try a.store.newestPage(conversationId: conv).messages[0].seq == 1)

        try await b.sync.pull()
        #expect(try texts(b, conv) == ["你好，Bert"])
        #expect(try b.store.conversation(id: conv)?.unreadCount == 1)
        try await b.sendQueue.sendText("你好 Anna 😀", to: conv)
        _ = await b.sendQueue.drain()
        try await a.sync.pull()
        #expect(try texts(a, conv) == ["你好，Bert", "你好 Anna 😀"])
        #expect(try b.store.conversation(id: conv)?.unreadCount == 0, "replying reads what came before")

        // 100 rapid sends keep their order on both sides.
        for i in 1...100 { try await a.sendQueue.sendText("快速 \(i)", to: conv) }
        #expect(await a.sendQueue.drain() == .empty)
        try await b.sync.pull()
        try await a.sync.pull()
        let rapid = (1...100).map { "快速 \($0)" }
        #expect(Array(try texts(b, conv).suffix(100)) == rapid)
        #expect(Array(try texts(a, conv).suffix(100)) == rapid, "no duplicates from the echoes")
        #expect(try texts(a, conv).count == 102)
    }

    @Test func pushWakesThePeer() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "pusher")
        let b = try await makeSession(server.baseURL, "listener")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        b.sync.start()
        defer { b.sync.stop() }
        #expect(await eventually { b.sync.state == .online })
        try await a.sendQueue.sendText("推送来了", to: conv)
        _ = await a.sendQueue.drain()
        // The poll interval is 30 s while online: only the push can deliver this quickly.
        #expect(try await eventually { try texts(b, conv) == ["推送来了"] })
    }

    @Test func noticesInABurstShareAPullButAFirstNoticeIsPulledAtOnce() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "noticed")
        let engine = a.sync
        #expect(engine.timing.noticeGap == .milliseconds(100))
        // A notice after a quiet spell: pulled without waiting for the gap.
        engine.noticeArrived()
        #expect(await eventually(.seconds(5)) { engine.pullsStarted.withLock { $0.count } == 1 })
        // When the engine let each pull go (its own clock readings: when a
        // pull then reaches the network depends on the machine's load).
        let first = try #require(engine.noticeState.withLock { $0.lastStart })
        // Thirty more within a few milliseconds: one more pull, a gap after the first.
        for _ in 0..<30 { engine.noticeArrived() }
        #expect(await eventually(.seconds(5)) { engine.pullsStarted.withLock { $0.count } == 2 })
        let second = try #require(engine.noticeState.withLock { $0.lastStart })
        #expect(second - first >= engine.timing.noticeGap, "the second pull waited out the gap")
        // Nothing is left scheduled: the burst's notices shared that one pull.
        #expect(!engine.noticeState.withLock { $0.scheduled }, "no further pull is pending")
        #expect(engine.pullsStarted.withLock { $0.count } == 2, "the burst's notices shared one pull")
    }

    @Test func pollingDeliversWhenTheSocketIsDown() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "pollsender")
        let b = try await makeSession(server.baseURL, "pollreader")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        var timing = SyncEngine.Timing()
        timing.pollOffline = .milliseconds(200)
        timing.backoffBase = .milliseconds(100)
        // The push socket points nowhere: only the poll timer can deliver.
        let engine = SyncEngine(api: b.api, store: b.store, timing: timing, pushURL: "ws://127.0.0.1:1/chat/ws")
        engine.start()
        defer { engine.stop() }
        #expect(await eventually { if case .offline = engine.state { true } else { false } }, "the status says offline")
        try await a.sendQueue.sendText("轮询送达", to: conv)
        _ = await a.sendQueue.drain()
        #expect(try await eventually { try texts(b, conv) == ["轮询送达"] })
    }

    @Test func offlineQueueSurvivesRestartAndIsSentInOrderOnce() async throws {
        let dir = tempURL("srv")
        let first = try await startServer(dir: dir)
        let port = first.port
        let root = tempURL("queue")
        var a: Session? = try await makeSession(first.baseURL, "queuer", root: root)
        let b = try await makeSession(first.baseURL, "target")
        let conv = ConversationIDHelper.make(myUid: a!.credentials.uid, targetUid: b.credentials.uid)
        // The server accepted this one, but we "crashed" before recording it.
        _ = try await a!.api.send(SendMessageRequest(recvID: conv, content: "一", contentType: 101, clientMsgId: "m1"))
        await first.stop()

        try await a!.sendQueue.sendText("一", to: conv, clientMsgID: "m1")
        for i in 2...50 { try await a!.sendQueue.sendText("第 \(i) 条", to: conv, clientMsgID: "m\(i)") }
        guard case .waiting = await a!.sendQueue.drain() else {
            Issue.record("the server is down: the queue must wait"); return
        }
        #expect(try a!.store.outbox().map(\.clientMsgID) == (1...50).map { "m\($0)" })

        // Restart the client (new objects, same folder) and the server.
        a = nil
        let server = try await startServer(dir: dir, port: port)
        defer { Task { await server.stop() } }
        let again = try await makeSession(server.baseURL, "queuer", root: root)
        #expect(try again.store.outbox().count == 50, "the outbox survived the restart")
        #expect(await again.sendQueue.drain() == .empty)
        let history = try await b.api.history(conversationId: conv, limit: 100)
        let expected = ["一"] + (2...50).map { "第 \($0) 条" }
        #expect(history.messages.map(\.content) == expected, "all 50, in order, and m1 only once")
        #expect(history.messages.map(\.seq) == Array(1...50))
        try await again.sync.pull()
        #expect(try texts(again, conv) == expected)
    }

    /// A stopped server is "cannot reach the server" within seconds, not
    /// after the request's whole 15 s deadline: an HTTP pool that keeps
    /// retrying refused connects until then would hold a send to a dead
    /// server for 15 s before the queue says it waits. And it is known not
    /// to have reached the server, which `tongban send` relies on to say
    /// "not sent" instead of "outcome unknown".
    @Test func aStoppedServerIsReportedUnreachableQuickly() async throws {
        let port = try ReservedPort()
        let server = try await startServer(dir: tempURL("srv"), port: port.port)
        let s = try await makeSession(server.baseURL, "stopper")
        _ = try await s.api.conversations()
        await server.stop()
        let start = ContinuousClock.now
        let last = await failureOnceStopped { _ = try await s.api.conversations() }
        guard case .cannotConnect? = last as? APIError else { Issue.record("\(String(describing: last))"); return }
        #expect(ContinuousClock.now - start < .seconds(10), "reported after \(ContinuousClock.now - start), the deadline is 15 s")
    }

    @Test func aFailedPictureIsSentWholeOnRetry() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "picretry")
        let b = try await makeSession(server.baseURL, "picwatch")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        // The file is not there yet: the send fails for good, with its upload still to do.
        let file = tempFile("later", "png")
        try await a.sendQueue.enqueue(.image(ImagePayload(objectKey: "@upload0", w: 2, h: 2)), to: conv,
                                       uploads: [.init(path: file.path, contentType: "image/png", kind: "chat_image", placeholder: "@upload0")],
                                       clientMsgID: "pic1")
        _ = await a.sendQueue.drain()
        #expect(try a.store.message(clientMsgID: "pic1")?.status == "failed")
        #expect(try a.store.outbox().isEmpty, "a failed send waits for the user, not the queue")
        try SampleMedia.png(width: 2, height: 2) { _, _ in (1, 2, 3) }.write(to: file)
        try await a.sendQueue.retry(clientMsgID: "pic1")
        #expect(await a.sendQueue.drain() == .empty)
        let sent = try #require(try a.store.message(clientMsgID: "pic1"))
        #expect(sent.status == "success" && sent.seq != nil)
        #expect(!sent.content.contains("@upload0") && sent.content.contains("chat/image/"), "the upload ran on retry: \(sent.content)")
    }

    @Test func aRefusalHoldsItsConversationUntilRetriedOrDiscarded() async throws {
        let server = try await startServer(dir: tempURL("srv")) { $0.maxTextCharacters = 10 }
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "longtalker")
        let b = try await makeSession(server.baseURL, "shortlistener")
        let c = try await makeSession(server.baseURL, "otherlistener")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        let other = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: c.credentials.uid)
        let record = try #require(try await a.sendQueue.sendText("这句话太长了，超过了十个字符", to: conv, clientMsgID: "long"))
        try await a.sendQueue.sendText("短的", to: conv, clientMsgID: "short")
        try await a.sendQueue.sendText("别处", to: other, clientMsgID: "elsewhere")
        #expect(await a.sendQueue.drain() == .empty)
        let failed = try #require(try a.store.message(clientMsgID: record.clientMsgID))
        #expect(failed.status == "failed")
        #expect(failed.errorReason?.contains("too_large") == true)
        // What stands behind it in its chat waits, and says so; another chat goes on.
        // (The server does not know the chat yet: nothing of it reached Bob.)
        #expect((try? await b.api.history(conversationId: conv).messages) == nil, "nothing overtook the failed message")
        #expect(try a.store.message(clientMsgID: "short")?.errorReason == MessageStatus.heldReason)
        #expect(try await a.sendQueue.fate(of: "short") == .held)
        #expect(try await c.api.history(conversationId: other).messages.map(\.content) == ["别处"])
        #expect(try a.store.outboxState() == OutboxState(queued: 0, held: 1, failed: 1, lastError: nil))

        // A retry goes with the same id (and is refused again: still held).
        try await a.sendQueue.retry(clientMsgID: "long")
        #expect(try a.store.outbox().map(\.clientMsgID) == ["long", "short"])
        #expect(try a.store.message(clientMsgID: "short")?.errorReason == nil)
        #expect(await a.sendQueue.drain() == .empty)
        #expect(try await a.sendQueue.fate(of: "short") == .held)

        // Discarding it lets the rest go, and it is gone from the chat.
        #expect(try await a.sendQueue.discard(clientMsgID: "short") == false, "only a failed message can be discarded")
        #expect(try await a.sendQueue.discard(clientMsgID: "long"))
        #expect(await a.sendQueue.drain() == .empty)
        #expect(try await b.api.history(conversationId: conv).messages.map(\.content) == ["短的"])
        #expect(try a.store.message(clientMsgID: "long") == nil)
        #expect(try a.store.outboxState().isEmpty)
        #expect(try a.store.conversation(id: conv)?.lastMessagePreview == "短的")
    }

    @Test func revokeRollsBackWhenRefused() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await startServer(dir: tempURL("srv")) { $0.revokeWindowSeconds = 0; $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "reverter")
        let b = try await makeSession(server.baseURL, "watcher")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        try await a.sendQueue.sendText("收不回来", to: conv, clientMsgID: "keep")
        _ = await a.sendQueue.drain()
        clock.advance(ms: 1)  // past the zero-second window
        await #expect(throws: APIError.self) { try await a.sendQueue.revoke(clientMsgID: "keep") }
        do {
            try await a.sendQueue.revoke(clientMsgID: "keep")
        } catch let e as APIError {
            #expect(e.code == .revokeWindowPassed)
        }
        let m = try #require(try a.store.message(clientMsgID: "keep"))
        #expect(!m.revoked)
        #expect(m.content == "收不回来", "rolled back to the snapshot")
    }

    @Test func revokeAndFlashViewedReachThePeer() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "sender1")
        let b = try await makeSession(server.baseURL, "viewer1")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        try await a.sendQueue.sendText("马上撤回", to: conv, clientMsgID: "r1")
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (0, 0, 255) }
        let file = tempFile("flash", "png")
        try png.write(to: file)
        try await a.sendQueue.enqueue(.flashImage(FlashImagePayload(objectKey: "@upload0")), to: conv,
                                       uploads: [.init(path: file.path, contentType: "image/png", kind: "chat_image", placeholder: "@upload0")],
                                       clientMsgID: "f1")
        #expect(await a.sendQueue.drain() == .empty)
        #expect(await a.sendQueue.progress["f1"] == 1.0, "upload progress reaches 100%")
        try await b.sync.pull()
        try await a.sendQueue.revoke(clientMsgID: "r1")
        try await b.sendQueue.enqueue(.flashViewed(targetClientMsgID: "f1"), to: conv)
        _ = await b.sendQueue.drain()
        try await b.sync.pull()
        try await a.sync.pull()
        for s in [a, b] {
            let page = try s.store.newestPage(conversationId: conv).messages
            #expect(page.count == 2, "notices are not bubbles")
            #expect(page.first { $0.clientMsgID == "r1" }?.revoked == true)
            #expect(page.first { $0.clientMsgID == "f1" }?.flashViewed == true)
            #expect(try s.store.search("马上撤回").isEmpty)
        }
    }

    @Test func expiredCursorReloadsAndGapsAreFillable() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "gapper")
        let b = try await makeSession(server.baseURL, "gapped")
        let conv = try await sendAcrossAPrunedLog(server, from: a, to: b)
        let resynced = ResyncFlag()
        b.sync.observe { if case .resynced = $0 { resynced.set() } }
        try await b.sync.pull()
        #expect(resynced.value)
        #expect(try b.store.missingRanges(conversationId: conv) == [4...8], "the hole the log could not fill")
        let page = try await b.api.history(conversationId: conv, afterSeq: 3, limit: 5)
        try b.store.saveHistory(conversationId: conv, messages: page.messages, coveringFrom: 4, to: 8)
        #expect(try b.store.missingRanges(conversationId: conv).isEmpty)
        #expect(try texts(b, conv).count == 9)
    }
}

final class ProgressLog: Sendable {
    private let box = Mutex<[Double]>([])
    func append(_ v: Double) { box.withLock { $0.append(v) } }
    var values: [Double] { box.withLock { $0 } }
}

final class ResyncFlag: Sendable {
    private let box = Mutex(false)
    func set() { box.withLock { $0 = true } }
    var value: Bool { box.withLock { $0 } }
}

import Synchronization

@Suite struct MediaCacheTests {
    @Test func fileNameRuleAndSafety() {
        #expect(MediaCacheService.fileName(for: "chat/image/2026/03/20/abc.jpg") == "chat_image_2026_03_20_abc.jpg")
        #expect(!MediaCacheService.fileName(for: "../../etc/passwd").contains("/"))
        #expect(MediaCacheService.fileName(for: "..") != "..")
    }

    @Test func uploadProgressCountsBytesUpTo100() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "uploader")
        let b = try await makeSession(server.baseURL, "watcher")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        // ~300 KB (stored, uncompressed PNG): about ten chunks on the wire.
        let png = SampleMedia.png(width: 320, height: 320) { x, y in (UInt8(x & 0xFF), UInt8(y & 0xFF), 7) }
        #expect(png.count > 300_000)
        let file = tempFile("big", "png")
        try png.write(to: file)
        let seen = ProgressLog()
        let reports = a.sendQueue.progressUpdates()
        let watcher = Task { for await (id, value) in reports where id == "big1" { seen.append(value) } }
        defer { watcher.cancel() }
        try await a.sendQueue.enqueue(.image(ImagePayload(objectKey: "@upload0", w: 320, h: 320)), to: conv,
                                       uploads: [.init(path: file.path, contentType: "image/png", kind: "chat_image", placeholder: "@upload0")],
                                       clientMsgID: "big1")
        #expect(await a.sendQueue.drain() == .empty)
        // Chunk reports hop through tasks and may land after the answer.
        _ = await eventually { Set(seen.values.filter { $0 > 0 && $0 < 1 }).count >= 5 }
        let values = seen.values
        let between = Set(values.filter { $0 > 0 && $0 < 1 })
        #expect(between.count >= 5, "progress moves with the bytes, not only 0 and 100%: \(values)")
        #expect(values.last == 1.0)
        #expect(await a.sendQueue.progress["big1"] == 1.0)
        #expect(try a.store.message(clientMsgID: "big1")?.status == "success")
    }

    @Test func resolveUsesCacheThenSignsExpiredInOneBatch() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        let a = try await makeSession(server.baseURL, "cacher")
        let png = SampleMedia.png(width: 3, height: 3) { _, _ in (9, 9, 9) }
        let k1 = try await a.api.upload(png, contentType: "image/png", kind: "chat_image").objectKey
        let k2 = try await a.api.upload(png, contentType: "image/png", kind: "chat_image").objectKey
        let k3 = try await a.api.upload(png, contentType: "image/png", kind: "chat_image").objectKey
        let own = server.baseURL + "/media/object/"
        func message(_ key: String, expireAt: Int, url: String? = nil) -> ChatMessage {
            IMMessageMapper.map(WireMessage(serverMsgID: "", clientMsgID: key, conversationId: "si_tb_1_tb_2", seq: 1, sendID: "tb_2",
                                            recvID: a.credentials.imUid, contentType: 110,
                                            content: #"{"type":"image","objectKey":"\#(key)","url":"\#(url ?? own + key + "?exp=1&sig=00")","expireAt":\#(expireAt)}"#,
                                            sendTime: 0), currentUID: a.credentials.imUid)
        }
        try a.media.save(png, for: k1, conversationId: "si_tb_1_tb_2")
        let resolved = try await a.media.resolveMediaURLs(for: [message(k1, expireAt: 1), message(k2, expireAt: 1),
                                                               message("chat/image/2026/01/01/none.png", expireAt: 4_000_000_000),
                                                               message(k3, expireAt: 4_000_000_000, url: "http+unix://%2Frun%2Fx.sock/\(k3)"),
                                                               message("k/4.png", expireAt: 4_000_000_000,
                                                                       url: "http://169.254.169.254/media/object/k/4.png?exp=9&sig=ab")])
        #expect(resolved[k1]?.hasPrefix("file://") == true, "cache hit needs no network")
        #expect(resolved[k2]?.hasPrefix(own + k2 + "?") == true, "expired -> re-signed")
        #expect(resolved[k3]?.hasPrefix(own + k3 + "?") == true, "no signed URL in the payload -> re-signed")
        #expect(resolved["k/4.png"] == own + "k/4.png?exp=9&sig=ab", "another host in the payload: only the signature is kept, asked of our server")
        #expect(resolved.count == 4, "a valid URL of the server is left alone")
        // A peer's URL is never fetched, whatever the payload says.
        await #expect(throws: APIError.self) { try await a.api.download("http://127.0.0.1:1/media/object/\(k3)?exp=9&sig=0") }
        await #expect(throws: APIError.self) {
            try await a.media.prefetch(url: "http://169.254.169.254/latest", expireAt: 4_000_000_000, objectKey: "chat/image/2026/01/01/none.png")
        }
        // Cached media still resolves with the server gone.
        await server.stop()
        let offline = try await a.media.resolveMediaURLs(for: [message(k1, expireAt: 1)])
        #expect(offline[k1]?.hasPrefix("file://") == true)
        let attrs = try FileManager.default.attributesOfItem(atPath: try #require(a.media.localURL(for: k1)).path)
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
    }
}
