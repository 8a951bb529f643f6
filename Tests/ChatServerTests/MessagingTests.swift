import ChatCore
import Foundation
import Testing
@testable import ChatServer

@Suite(.serialized) struct MessagingTests {
    @Test func sendHistoryConversationsAndReadState() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)

        let start = try await a.post("/chat/conversation/start", StartConversationRequest(userId: ub.uid))
        #expect(try start.decode(ConversationSummary.self).conversationId == conv)
        #expect(try await a.post("/chat/conversation/start", StartConversationRequest(userId: ua.uid)).status == 400)
        #expect(try await a.post("/chat/conversation/start", StartConversationRequest(userId: 999_999)).status == 404)
        #expect(try await b.get("/chat/conversations").decode([ConversationSummary].self).isEmpty,
                "an empty conversation does not appear for the peer")

        for i in 1...45 {
            let r = try await (i % 2 == 0 ? a : b).sendText(conv, "消息 \(i)")
            #expect(try r.decode(SendMessageResponse.self).seq == i)
        }
        let newest = try await a.history(conv)
        #expect(newest.messages.map(\.seq) == Array(6...45))
        #expect(newest.hasMore)
        let older = try await a.history(conv, query: "&before_seq=6")
        #expect(older.messages.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(!older.hasMore)
        let forward = try await a.history(conv, query: "&after_seq=40&limit=3")
        #expect(forward.messages.map(\.seq) == [41, 42, 43])
        #expect(forward.hasMore)

        var list = try await a.get("/chat/conversations").decode([ConversationSummary].self)
        #expect(list.count == 1)
        #expect(list[0].maxSeq == 45)
        #expect(list[0].lastMessage?.content == "消息 45")
        #expect(list[0].userId == ub.imUid)
        // a sent seq 44, so everything before is read; b's seq 45 is unread.
        #expect(list[0].unreadCount == 1)
        let read = try await a.post("/chat/conversation/read", ReadRequest(conversationId: conv, seq: 45))
        #expect(try read.decode(ConversationSummary.self).unreadCount == 0)
        let back = try await a.post("/chat/conversation/read", ReadRequest(conversationId: conv, seq: 3))
        #expect(try back.decode(ConversationSummary.self).readSeq == 45, "readSeq only moves forward")

        let pinned = try await b.post("/chat/conversation/pin", PinRequest(conversationId: conv, isPinned: true))
        #expect(try pinned.decode(ConversationSummary.self).isPinned)
        list = try await a.get("/chat/conversations").decode([ConversationSummary].self)
        #expect(!list[0].isPinned, "pin is per user")

        // Clear: history before now is gone for b only.
        #expect(try await b.post("/chat/conversation/clear", ConversationIDRequest(conversationId: conv)).status == 204)
        #expect(try await b.history(conv).messages.isEmpty)
        #expect(try await a.history(conv).messages.count == 40)
        #expect(try await b.get("/chat/conversations").decode([ConversationSummary].self).count == 1)

        // Delete: hidden until the next message.
        #expect(try await b.post("/chat/conversation/delete", ConversationIDRequest(conversationId: conv)).status == 204)
        #expect(try await b.get("/chat/conversations").decode([ConversationSummary].self).isEmpty)
        _ = try await a.sendText(conv, "还在吗")
        let again = try await b.get("/chat/conversations").decode([ConversationSummary].self)
        #expect(again.count == 1)
        #expect(again[0].unreadCount == 1)
        #expect(try await b.history(conv).messages.map(\.content) == ["还在吗"])
    }

    @Test func idempotentSend() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let first = try await a.sendText(conv, "一次", id: "same-id").decode(SendMessageResponse.self)
        let second = try await a.sendText(conv, "一次", id: "same-id").decode(SendMessageResponse.self)
        #expect(first == second)
        #expect(try await a.history(conv).messages.count == 1)
    }

    @Test func serverMessageIDsAreUniqueAndInTimeOrder() {
        let ids = (0..<20_000).map { _ in MessageService.newServerMsgID() }
        #expect(Set(ids).count == ids.count)
        // Milliseconds, then the counter: the id index grows at its end.
        #expect(ids == ids.sorted())
        #expect(ids.allSatisfy { $0.hasPrefix("m_") && $0.count == 2 + 12 + 8 + 8 })
    }

    @Test func noHolesUnderConcurrency() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let seqs = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<200 {
                group.addTask {
                    let r = try await (i % 2 == 0 ? a : b).sendText(conv, "并发 \(i)", id: "c-\(i)")
                    return try r.decode(SendMessageResponse.self).seq
                }
            }
            var all: [Int] = []
            for try await s in group { all.append(s) }
            return all
        }
        #expect(seqs.sorted() == Array(1...200))
        var stored: [Int] = []
        var before = ""
        repeat {
            let page = try await a.history(conv, query: "&limit=100" + before)
            stored = page.messages.map(\.seq) + stored
            before = "&before_seq=\(page.messages.first?.seq ?? 0)"
            if !page.hasMore { break }
        } while true
        #expect(stored == Array(1...200))
    }

    @Test func aBadSendInAGroupCommitFailsAlone() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let (c, _) = try await server.user()
        let conv = conversationId(ua, ub)
        let png = SampleMedia.png(width: 4, height: 4) { _, _ in (0, 0, 255) }
        let foreignKey = try await c.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        enum Outcome: Sendable { case sent(Int), refused(String), duplicate(SendMessageResponse) }
        // Valid texts, sends of someone else's picture and ten copies of one
        // clientMsgId, all at once: they share transactions.
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for i in 0..<120 {
                group.addTask {
                    if i % 6 == 5 {
                        let r = try await a.sendCustom(conv, ["type": "image", "objectKey": foreignKey, "url": "", "expireAt": 0, "w": 4, "h": 4])
                        return .refused(r.errorCode ?? "sent")
                    }
                    return .sent(try await a.sendText(conv, "批量 \(i)", id: "g-\(i)").decode(SendMessageResponse.self).seq)
                }
            }
            for _ in 0..<10 {
                group.addTask { .duplicate(try await a.sendText(conv, "只存一次", id: "dup").decode(SendMessageResponse.self)) }
            }
            var all: [Outcome] = []
            for try await o in group { all.append(o) }
            return all
        }
        let refused = outcomes.compactMap { if case .refused(let code) = $0 { return code } else { return nil } }
        #expect(refused.count == 20 && refused.allSatisfy { $0 == "forbidden" })
        let dups = outcomes.compactMap { if case .duplicate(let r) = $0 { return r } else { return nil } }
        #expect(Set(dups.map(\.seq)).count == 1 && Set(dups.map(\.serverMsgID)).count == 1, "one message for ten retries")
        let seqs = outcomes.compactMap { if case .sent(let s) = $0 { return s } else { return nil } } + [dups[0].seq]
        #expect(seqs.sorted() == Array(1...101), "refused sends took no seq: no holes")
        let newer = try await a.history(conv, query: "&limit=100")
        let older = try await a.history(conv, query: "&limit=100&before_seq=\(newer.messages.first?.seq ?? 0)")
        #expect((older.messages + newer.messages).map(\.seq) == Array(1...101))
    }

    @Test func badInputGetsTheProtocolBody() async throws {
        let server = try await TestServer.start { $0.maxTextCharacters = 4000 }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        #expect(try await a.postRaw("/chat/message/send", "{not json").errorCode == "invalid_request")
        #expect(try await a.postRaw("/chat/message/send", #"{"recvID": 5, "content": "x", "contentType": 101, "clientMsgId": "a"}"#).errorCode == "invalid_request")
        #expect(try await a.send(.POST, "/chat/message/send", body: Data([0x7B, 0xFF, 0xFE, 0x7D])).errorCode == "invalid_request")
        #expect(try await a.sendText(conv, "   ").errorCode == "invalid_request")
        #expect(try await a.sendText("si_bad", "x").errorCode == "invalid_request")
        #expect(try await a.sendText(conv, String(repeating: "长", count: 4001)).errorCode == "too_large")
        #expect(try await a.sendText(conv, String(repeating: "长", count: 4000)).status == 200)
        #expect(try await a.send(.POST, "/chat/message/send", body: Data(repeating: 0x20, count: 70_000)).errorCode == "too_large")
        #expect(try await a.post("/chat/message/send", SendMessageRequest(recvID: conv, content: "x", contentType: 2101, clientMsgId: "n")).status == 400)
        #expect(try await a.post("/chat/message/send", SendMessageRequest(recvID: conv, content: "x", contentType: 7, clientMsgId: "n")).status == 400)
        #expect(try await a.sendCustom(conv, ["type": "image", "objectKey": 5]).status == 400)
        #expect(try await a.get("/no/such/route").errorCode == "not_found")
        #expect(try await a.get("/chat/messages?conversation_id=\(conv)&limit=0").status == 400)
        #expect(try await a.get("/chat/messages?conversation_id=\(conv)&before_seq=x").status == 400)
        #expect(try await a.get("/chat/sync?since=-1").status == 400)
        // An unknown custom type is legal and kept as is.
        #expect(try await a.sendCustom(conv, ["type": "sticker", "msgDesc": "[表情]"]).status == 200)
        #expect(try await a.history(conv).messages.last?.content.contains("sticker") == true)
        // Nothing stored before was lost.
        #expect(try await a.history(conv).messages.count == 2)
    }

    @Test func rateLimit() async throws {
        let server = try await TestServer.start { $0.limits.requestsPerSecond = 3; $0.limits.requestBurst = 3 }
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        var statuses: [Int] = []
        for _ in 0..<8 { statuses.append(try await a.get("/user/me").status) }
        #expect(statuses.contains(429))
        let limited = try await a.get("/user/me")
        if limited.status == 429 {
            #expect(limited.errorCode == "rate_limited")
            #expect(limited.header("Retry-After") == "1")
        }
    }
}
