import ChatCore
import Foundation
import Testing
@testable import ChatServer

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
