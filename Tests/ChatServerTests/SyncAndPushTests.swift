import ChatCore
import ChatTesting
import Foundation
import GRDB
import Testing
@testable import ChatServer

@Suite(.serialized) struct SyncAndPushTests {
    @Test func syncPagingAndExpiredCursor() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        for i in 1...12 { _ = try await a.sendText(conv, "m\(i)") }
        _ = try await b.post("/chat/conversation/pin", PinRequest(conversationId: conv, isPinned: true))
        var cursor = 0
        var messages: [Int] = []
        var pages = 0
        var sawConversation = false
        while true {
            let r = try await b.get("/chat/sync?since=\(cursor)&limit=5").decode(SyncResponse.self)
            pages += 1
            for e in r.events {
                if case .message(let m) = e { messages.append(m.seq) }
                if case .conversation(let s) = e { sawConversation = s.isPinned }
            }
            #expect(r.cursor >= cursor)
            cursor = r.cursor
            if !r.hasMore { break }
        }
        #expect(messages == Array(1...12))
        #expect(sawConversation)
        #expect(pages == 3)
        let empty = try await b.get("/chat/sync?since=\(cursor)").decode(SyncResponse.self)
        #expect(empty.events.isEmpty && empty.cursor == cursor && !empty.hasMore)

        // Prune everything: an old cursor gets 410, since=0 still works.
        try server.running.service.pruneSyncLog(olderThanMs: Int(Date().timeIntervalSince1970 * 1000) + 1000)
        let expired = try await b.get("/chat/sync?since=3")
        #expect(expired.status == 410)
        #expect(expired.errorCode == "cursor_expired")
        #expect(try await b.get("/chat/sync?since=0").status == 200)
    }

    /// /chat/sync hands out the bodies the server stored; one that a damaged
    /// database turned into broken JSON is left out, and the rest of the
    /// page still reads (a broken body spliced in would break every event).
    @Test func aDamagedStoredEventCostsOnlyItself() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        for i in 1...3 { _ = try await a.sendText(conv, "第\(i)条 \"引号\" \\ \n") }
        let before = try await b.get("/chat/sync?since=0").decode(SyncResponse.self)
        #expect(before.events.count == 3 && before.skippedEvents == 0)
        #expect(before.events.compactMap { if case .message(let m) = $0 { m.content } else { nil } }
                == (1...3).map { "第\($0)条 \"引号\" \\ \n" })
        try server.storage.write { tx in
            var cursors: [Int] = []
            _ = try tx.syncLog.entries(of: ub.uid, after: 0, limit: 10) { cursor, _ in cursors.append(cursor) }
            try tx.syncLog.replaceBody(cursor: cursors[1], with: #"{"kind":"message","message":{"seq":2"#)
        }
        let r = try await b.get("/chat/sync?since=0")
        #expect(r.status == 200)
        let after = try r.decode(SyncResponse.self)
        #expect(after.events.compactMap { if case .message(let m) = $0 { m.seq } else { nil } } == [1, 3])
        #expect(after.cursor == before.cursor, "the cursor still moves past the damaged event")
        #expect(!after.hasMore)
    }

    @Test func webSocketHelloSyncPresencePing() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "你好")
        let wsB = try await WSProbe.open(port: server.port, token: b.token!)
        let wsA = try await WSProbe.open(port: server.port, token: a.token!)
        #expect(await wsB.wait { $0 == .presence(userId: ua.imUid, online: true) } != nil, "b sees a come online")

        let sent = try await a.sendText(conv, "在线吗")
        #expect(sent.status == 200)
        let frame = await wsB.wait { if case .sync = $0 { true } else { false } }
        guard case .sync(let cursor) = frame else { Issue.record("no sync frame"); return }
        let pulled = try await b.get("/chat/sync?since=0").decode(SyncResponse.self)
        #expect(pulled.cursor == cursor)

        try await wsA.send(#"{"type":"ping"}"#)
        #expect(await wsA.wait { $0 == .pong } != nil)
        let seen = wsA.count
        try await wsA.send("garbage that is not json")
        try await wsA.send(#"{"type":"ping"}"#)
        #expect(await wsA.wait(after: seen) { $0 == .pong } != nil, "a bad frame does not close the socket")

        let summary = try await b.get("/chat/conversations").decode([ConversationSummary].self)
        #expect(summary.first?.isOnline == true)
        await wsA.close()
        #expect(await wsB.wait { $0 == .presence(userId: ua.imUid, online: false) } != nil, "b sees a go offline")
        await wsB.close()

        // A bad token is not upgraded and gets 401.
        #expect(try await API(base: server.base, token: "bad").get("/chat/ws").status == 401)
    }

    @Test func restartKeepsData() async throws {
        let dir = TestFolders.make("tongban-restart")
        let first = try await TestServer.start(dir: dir)
        let (a, ua) = try await first.user("keeper")
        let (_, ub) = try await first.user("other")
        let conv = conversationId(ua, ub)
        for i in 1...5 { _ = try await a.sendText(conv, "持久 \(i)") }
        await first.stop()
        let server = try await TestServer.start(dir: dir, database: first.config.databaseURL)
        defer { Task { await server.stop() } }
        let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "keeper", password: "password-keeper"))
        let api = API(base: server.base, token: try login.decode(AuthResponse.self).token)
        #expect(try await api.history(conv).messages.map(\.content) == (1...5).map { "持久 \($0)" })
        #expect(try await api.sendText(conv, "继续").decode(SendMessageResponse.self).seq == 6)
    }
}
