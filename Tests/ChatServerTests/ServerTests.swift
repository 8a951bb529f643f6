import ChatCore
import Crypto
import Foundation
import GRDB
import Testing
@testable import ChatServer

@Suite(.serialized) struct AccountTests {
    @Test func registerLoginLogoutAndErrors() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let anon = server.anonymous
        #expect(try await anon.get("/healthz").text.contains("ok"))

        let (api, auth) = try await server.user("alice_1")
        #expect(auth.imUid == "tb_\(auth.uid)")
        #expect(auth.token.count == 64, "256-bit token")
        #expect(try await api.get("/user/me").decode(UserBasicInfo.self).username == "alice_1")

        // Taken account, bad account, short password.
        #expect(try await anon.post("/auth/register", RegisterRequest(account: "alice_1", password: "whatever123")).status == 409)
        #expect(try await anon.post("/auth/register", RegisterRequest(account: "A!", password: "whatever123")).errorCode == "invalid_request")
        #expect(try await anon.post("/auth/register", RegisterRequest(account: "zed", password: "short")).status == 400)

        // Login and wrong password.
        let login = try await anon.post("/auth/login", LoginRequest(account: "alice_1", password: "password-alice_1"))
        #expect(login.status == 200)
        #expect(try await anon.post("/auth/login", LoginRequest(account: "alice_1", password: "wrong-password")).errorCode == "unauthorized")
        #expect(try await anon.post("/auth/login", LoginRequest(account: "nobody", password: "wrong-password")).status == 401)

        // No token, bad token, logged-out token.
        #expect(try await anon.get("/user/me").status == 401)
        #expect(try await API(base: server.base, token: "nope").get("/user/me").errorCode == "unauthorized")
        #expect(try await api.send(.POST, "/auth/logout").status == 204)
        #expect(try await api.get("/user/me").status == 401)
        let second = API(base: server.base, token: try login.decode(AuthResponse.self).token)
        #expect(try await second.get("/user/me").status == 200, "other sessions survive a logout")

        // Passwords and tokens are not stored in the clear.
        let raw = try Data(contentsOf: server.dir.appendingPathComponent("server.sqlite"))
        #expect(raw.range(of: Data("password-alice_1".utf8)) == nil)
        #expect(raw.range(of: Data(auth.token.utf8)) == nil)
    }

    @Test func searchAndProfiles() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (api, me) = try await server.user("searcher")
        let (_, zhang) = try await server.user("zhang_san")
        _ = try await server.user("zhang_wei")
        let found = try await api.get("/user/search?q=zhang").decode([UserBasicInfo].self)
        #expect(found.map(\.username).sorted() == ["zhang_san", "zhang_wei"])
        #expect(try await api.get("/user/search?q=%25").decode([UserBasicInfo].self).isEmpty, "% is not a wildcard")
        let batch = try await api.post("/user/profile/openim-batch", ProfileBatchRequest(userIds: [zhang.uid, 999_999, me.uid]))
        #expect(try batch.decode([UserBasicInfo].self).map(\.uid) == [zhang.uid, me.uid], "unknown ids left out")
    }
}

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
        let ids = (0..<20_000).map { _ in ChatService.newServerMsgID() }
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
        let server = try await TestServer.start { $0.rateLimitPerSecond = 3 }
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

@Suite(.serialized) struct RevokeAndFlashTests {
    @Test func revoke() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "说错了的秘密", id: "oops")
        _ = try await b.post("/chat/conversation/pin", PinRequest(conversationId: conv, isPinned: true))
        #expect(try await b.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "oops")).errorCode == "forbidden")
        let r = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "oops"))
        let noticeSeq = try r.decode(SeqResponse.self).seq
        #expect(noticeSeq == 2)
        #expect(try await b.get("/chat/conversations").decode([ConversationSummary].self).first?.lastMessage?.revoked == true)
        #expect(try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "oops")).decode(SeqResponse.self).seq == 2,
                "revoking twice is a no-op")
        #expect(try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "none")).status == 404)
        let h = try await b.history(conv).messages
        #expect(h.count == 2)
        #expect(h[0].revoked && h[0].content.isEmpty)
        #expect(h[1].contentType == 2101)
        #expect(h[1].content.contains("oops"))
        // Both users get message_update and the notice; the old text is in no log.
        for api in [a, b] {
            let sync = try await api.get("/chat/sync?since=0").decode(SyncResponse.self)
            #expect(sync.events.contains { if case .messageUpdate(let m) = $0 { m.revoked } else { false } })
            #expect(sync.events.contains { if case .message(let m) = $0 { m.contentType == 2101 } else { false } })
            #expect(!(try await api.get("/chat/sync?since=0").text.contains("说错了的秘密")))
        }
    }

    @Test func revokeWindow() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.revokeWindowSeconds = 120; $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "old", id: "late")
        _ = try await a.sendText(conv, "in time", id: "in-time")
        clock.advance(ms: 120_000)
        let inTime = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "in-time"))
        #expect(inTime.status == 200, "\(inTime.text)")
        clock.advance(ms: 1)
        let r = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "late"))
        #expect(r.status == 422)
        #expect(r.errorCode == "revoke_window_passed")
    }

    @Test func flashImageIsDestroyedOnView() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let png = SampleMedia.png(width: 4, height: 4) { _, _ in (255, 0, 0) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await a.sendCustom(conv, ["type": "flash_image", "objectKey": key, "url": "", "expireAt": 0], id: "flash1")
        let signed = try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self)
        let url = try #require(signed.urls[key])
        #expect(try await API(base: "", token: nil).get(url).body == png, "the receiver can fetch before viewing")

        // The sender cannot mark it viewed; the receiver can.
        #expect(try await a.sendCustom(conv, ["type": "flash_viewed", "msgId": "flash1"]).errorCode == "forbidden")
        #expect(try await b.sendCustom(conv, ["type": "flash_viewed", "msgId": "flash1"]).status == 200)
        #expect(try await b.sendCustom(conv, ["type": "flash_viewed", "msgId": "no-such"]).status == 404)

        let file = server.dir.appendingPathComponent("media").appendingPathComponent(key)
        #expect(!FileManager.default.fileExists(atPath: file.path), "the file is deleted")
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        #expect(try await a.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        #expect(try await API(base: "", token: nil).get(url).status == 404, "an old signed URL no longer works")
        let h = try await a.history(conv).messages
        #expect(h.first { $0.clientMsgID == "flash1" }?.flashViewed == true)
    }
}

@Suite(.serialized) struct FileTests {
    /// `chat_file` takes any bytes and is only ever served as a download;
    /// a `file` payload's name must be a base name; only the two people of
    /// the conversation can read it.
    @Test func filesAreAttachmentsForTheConversationOnly() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, _) = try await server.user()
        let page = Data("<html><script>alert(1)</script></html>".utf8)
        let up = try await a.upload(page, type: "text/html", kind: "chat_file")
        #expect(up.status == 201, "\(up.text)")
        let key = try up.decode(UploadResponse.self).objectKey
        #expect(key.hasPrefix("chat/file/") && key.hasSuffix(".bin"))
        let conv = conversationId(ua, ub)
        for bad in ["../../.bashrc", "a/b", "x\u{0}y", String(repeating: "n", count: 256)] {
            let r = try await a.sendCustom(conv, ["type": "file", "objectKey": key, "name": bad, "size": page.count])
            #expect(r.status == 400, "name \(bad.debugDescription): \(r.text)")
        }
        let sent = try await a.sendCustom(conv, ["type": "file", "objectKey": key, "name": "page.html", "size": page.count,
                                                 "mime": "text/html"])
        #expect(sent.status == 200, "\(sent.text)")
        #expect(try await c.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        let url = try #require(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key])
        let fetched = try await API(base: "", token: nil).get(url)
        #expect(fetched.body == page)
        #expect(fetched.header("Content-Type") == "application/octet-stream")
        #expect(fetched.header("Content-Disposition") == "attachment")
        #expect(fetched.header("X-Content-Type-Options") == "nosniff")
    }
}

@Suite(.serialized) struct MediaTests {
    @Test func uploadSignFetchAndChecks() async throws {
        let server = try await TestServer.start { $0.maxMediaBytes = 100_000 }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, _) = try await server.user()
        let png = SampleMedia.png(width: 8, height: 8) { x, y in (UInt8(x * 30), UInt8(y * 30), 0) }
        let up = try await a.upload(png, type: "image/png")
        #expect(up.status == 201)
        let key = try up.decode(UploadResponse.self).objectKey
        #expect(key.hasPrefix("chat/image/") && key.hasSuffix(".png"))
        #expect(try up.decode(UploadResponse.self).size == png.count)
        let file = server.dir.appendingPathComponent("media").appendingPathComponent(key).path
        #expect(FileManager.default.contents(atPath: file) == png)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600,
                "a user's file is readable by the server's user only")

        #expect(try await a.upload(Data("GIF89a-not-png".utf8), type: "image/png").errorCode == "unsupported_media")
        #expect(try await a.upload(png, type: "text/html").errorCode == "unsupported_media")
        #expect(try await a.upload(png, type: "audio/wav", kind: "chat_audio").errorCode == "unsupported_media")
        #expect(try await a.upload(SampleMedia.wav(seconds: 1), type: "audio/wav", kind: "chat_audio").status == 201)
        #expect(try await a.upload(Data(repeating: 0xFF, count: 200_000), type: "image/jpeg").errorCode == "too_large")
        #expect(try await a.upload(png, type: "image/png", kind: "chat_video").status == 400)

        // Only the uploader and members of a conversation it was sent in can sign it.
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        _ = try await a.sendCustom(conversationId(ua, ub), ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 8, "h": 8])
        let signed = try await b.post("/media/sign", SignRequest(objectKeys: [key, "chat/image/2026/01/01/x.png"])).decode(SignResponse.self)
        #expect(Array(signed.urls.keys) == [key])
        #expect(signed.expireAt > Int(Date().timeIntervalSince1970))
        #expect(try await c.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
        // c cannot send someone else's key to gain access.
        let (_, uc) = (c, try await c.get("/user/me").decode(UserBasicInfo.self))
        #expect(try await c.sendCustom(ConversationIDHelper.make(myUid: uc.uid, targetUid: ua.uid),
                                       ["type": "image", "objectKey": key, "url": "", "expireAt": 0]).errorCode == "forbidden")

        let url = try #require(signed.urls[key])
        let fetched = try await API(base: "", token: nil).get(url)
        #expect(fetched.status == 200)
        #expect(fetched.body == png)
        #expect(fetched.header("Content-Type") == "image/png")

        // Tampered and expired signatures, and keys that try to escape.
        let tampered = url.replacingOccurrences(of: "sig=", with: "sig=0")
        #expect(try await API(base: "", token: nil).get(tampered).errorCode == "forbidden")
        let secret = try Data(contentsOf: server.dir.appendingPathComponent("secret.key"))
        let past = Int(Date().timeIntervalSince1970) - 10
        let mac = HMAC<SHA256>.authenticationCode(for: Data((key + "\n" + String(past)).utf8), using: SymmetricKey(data: secret))
        let sig = mac.map { String(format: "%02x", $0) }.joined()
        let expired = try await server.anonymous.get("/media/object/\(key)?exp=\(past)&sig=\(sig)")
        #expect(expired.status == 403)
        for bad in ["../secret.key", "chat/image/../../secret.key", "%2e%2e/secret.key", "chat/image/2026/11/22/..%2f..%2fserver.sqlite"] {
            #expect(try await server.anonymous.get("/media/object/\(bad)?exp=9999999999&sig=00").status == 400, "\(bad)")
        }
    }
}

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
        let cursors = try await server.running.service.db.read { db in
            try Int.fetchAll(db, sql: "SELECT cursor FROM event WHERE uid = ? ORDER BY cursor", arguments: [ub.uid])
        }
        try await server.running.service.db.write { db in
            try db.execute(sql: "UPDATE event SET body = ? WHERE cursor = ?", arguments: [#"{"kind":"message","message":{"seq":2"#, cursors[1]])
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
        try await wsA.send("garbage that is not json")
        try await wsA.send(#"{"type":"ping"}"#)
        #expect(await wsA.wait { $0 == .pong } != nil, "a bad frame does not close the socket")

        let summary = try await b.get("/chat/conversations").decode([ConversationSummary].self)
        #expect(summary.first?.isOnline == true)
        await wsA.close()
        #expect(await wsB.wait { $0 == .presence(userId: ua.imUid, online: false) } != nil, "b sees a go offline")
        await wsB.close()

        // A bad token is not upgraded and gets 401.
        #expect(try await API(base: server.base, token: "bad").get("/chat/ws").status == 401)
    }

    @Test func restartKeepsData() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-restart-\(UUID().uuidString)")
        let first = try await TestServer.start(dir: dir)
        let (a, ua) = try await first.user("keeper")
        let (_, ub) = try await first.user("other")
        let conv = conversationId(ua, ub)
        for i in 1...5 { _ = try await a.sendText(conv, "持久 \(i)") }
        await first.stop()
        let server = try await TestServer.start(dir: dir)
        defer { Task { await server.stop() } }
        let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "keeper", password: "password-keeper"))
        let api = API(base: server.base, token: try login.decode(AuthResponse.self).token)
        #expect(try await api.history(conv).messages.map(\.content) == (1...5).map { "持久 \($0)" })
        #expect(try await api.sendText(conv, "继续").decode(SendMessageResponse.self).seq == 6)
    }
}

@Suite(.serialized) struct HostileInputTests {
    @Test func pictureSizesOutOfRangeAreRefused() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let png = SampleMedia.png(width: 4, height: 4) { _, _ in (0, 0, 255) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        for (w, h) in [(1e300, 1.0), (-4.0, 4.0), (4.0, 70_000.0)] {
            let r = try await a.sendCustom(conv, ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": w, "h": h])
            #expect(r.status == 400 && r.errorCode == "invalid_request", "w \(w) h \(h): \(r.text)")
        }
        let ok = try await a.sendCustom(conv, ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 4, "h": 4])
        #expect(ok.status == 200, "\(ok.text)")
    }

    @Test func aPeerCannotTakeOverMyClientMsgId() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        #expect(try await a.sendText(conv, "我的消息", id: "shared-id").status == 200)
        let stolen = try await b.sendText(conv, "冒名顶替", id: "shared-id")
        #expect(stolen.status == 409 && stolen.errorCode == "conflict", "\(stolen.text)")
        // My own retry is still the idempotent answer, and my revoke still finds my message.
        #expect(try await a.sendText(conv, "我的消息", id: "shared-id").status == 200)
        let revoke = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "shared-id"))
        #expect(revoke.status == 200, "\(revoke.text)")
        let texts = try await b.history(conv).messages.map(\.content)
        #expect(!texts.contains("冒名顶替"))
    }

    /// Ten failures in any 60 s block the account until the oldest of them
    /// is 60 s old, wherever the minute boundaries fall: five failures just
    /// before a minute turns and five just after still block the eleventh try.
    @Test func passwordGuessingIsCappedPerAccount() async throws {
        let start = 1_800_000_000_000 + 59_000  // one second before a minute turns
        let clock = ManualClock(ms: start)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        _ = try await server.user("guessme")
        func attempt(_ password: String) async throws -> Reply {
            try await server.anonymous.post("/auth/login", LoginRequest(account: "guessme", password: password))
        }
        for i in 0..<ChatService.maxLoginFailures {
            if i == ChatService.maxLoginFailures / 2 { clock.advance(ms: 2_000) }  // across the minute boundary
            #expect(try await attempt("wrong-\(i)").status == 401)
        }
        let blocked = try await attempt("password-guessme")
        #expect(blocked.status == 429 && blocked.errorCode == "rate_limited", "\(blocked.text)")
        // Blocked until the first failure is 60 s old: 58 s from here.
        #expect(blocked.header("Retry-After") == "58")
        clock.advance(ms: 57_999)
        #expect(try await attempt("password-guessme").status == 429)
        // Other accounts are not affected meanwhile.
        let (_, other) = try await server.user("someoneelse")
        let fine = try await server.anonymous.post("/auth/login", LoginRequest(account: "someoneelse", password: "password-someoneelse"))
        #expect(fine.status == 200 && other.uid > 0, "\(fine.text)")
        // Once the first five failures leave the window, the five after the
        // minute turned still count: five more block again.
        clock.advance(ms: 1)
        for i in 0..<ChatService.maxLoginFailures / 2 {
            #expect(try await attempt("wrong-again-\(i)").status == 401)
        }
        let again = try await attempt("password-guessme")
        #expect(again.status == 429 && again.header("Retry-After") == "2", "\(again.text)")
        clock.advance(ms: 2_000)
        #expect(try await attempt("password-guessme").status == 200)
    }

    @Test func aFullDiskIsStorageFull() throws {
        #expect(APIFailure.isStorageFull(DatabaseError(resultCode: .SQLITE_FULL)))
        #expect(!APIFailure.isStorageFull(DatabaseError(resultCode: .SQLITE_BUSY)))
        #expect(APIFailure.isStorageFull(CocoaError(.fileWriteOutOfSpace)))
        #expect(APIFailure.isStorageFull(NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))))
        #expect(APIFailure.storageFull.code.httpStatus == 503)
    }

    @Test func loginThrottleSlidesItsWindow() {
        var t = LoginThrottle(limit: 3, windowMs: 1_000, maxTracked: 2)
        t.recordFailure("a", now: 0)
        t.recordFailure("a", now: 900)
        #expect(t.blockedFor("a", now: 950) == nil)
        t.recordFailure("a", now: 950)
        #expect(t.blockedFor("a", now: 950) == 50)  // until the failure at 0 is 1 s old
        #expect(t.blockedFor("a", now: 1_000) == nil)
        // The failures at 900 and 950 still count: one more blocks until 1,900.
        t.recordFailure("a", now: 1_000)
        #expect(t.blockedFor("a", now: 1_000) == 900)
        #expect(t.blockedFor("b", now: 1_000) == nil)
        // Accounts with no failure left in the window are forgotten once too many are tracked.
        t.recordFailure("b", now: 1_100)
        t.recordFailure("c", now: 5_000)
        #expect(t.trackedAccounts == 1)
        #expect(t.blockedFor("a", now: 5_000) == nil)
    }
}
