import ChatCore
import Foundation
import NIOHTTP1
import Testing
@testable import ChatServer

@Suite(.serialized) struct RouteTests {
    /// Every endpoint of PROTOCOL.md is mounted where the protocol says
    /// (each controller's routes are added under its area's path).
    @Test func everyEndpointIsMounted() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let endpoints: [(HTTPMethod, String, String?)] = [
            (.GET, "/healthz", nil),
            (.POST, "/auth/register", "{}"), (.POST, "/auth/login", "{}"),
            (.GET, "/user/me", nil), (.GET, "/user/search?q=x", nil),
            (.POST, "/user/profile/update", "{}"), (.POST, "/user/profile/openim-batch", "{}"),
            (.GET, "/chat/conversations", nil), (.POST, "/chat/conversation/start", "{}"),
            (.POST, "/chat/conversation/pin", "{}"), (.POST, "/chat/conversation/read", "{}"),
            (.POST, "/chat/conversation/delete", "{}"), (.POST, "/chat/conversation/clear", "{}"),
            (.POST, "/chat/message/send", "{}"), (.POST, "/chat/message/revoke", "{}"),
            (.POST, "/chat/message/react", "{}"), (.POST, "/chat/message/edit", "{}"), (.POST, "/chat/message/delete", "{}"),
            (.GET, "/chat/messages?conversation_id=\(conv)", nil), (.GET, "/chat/sync", nil), (.GET, "/chat/ws", nil),
            (.POST, "/media/upload", "{}"), (.POST, "/media/sign", "{}"),
            (.GET, "/media/object/chat/image/2026/01/01/x.png?exp=1&sig=00", nil),
            (.POST, "/signal/create", "{}"), (.POST, "/signal/reply", "{}"), (.GET, "/signal/inbox", nil),
            (.POST, "/signal/open-im", "{}"),
            (.POST, "/chat/conversation/mute", "{}"),
            (.POST, "/group/create", "{}"), (.GET, "/group/info?group_id=1", nil), (.GET, "/group/lookup?unique_name=x", nil),
            (.POST, "/group/join", "{}"), (.POST, "/group/invite", "{}"), (.POST, "/group/leave", "{}"),
            (.POST, "/group/kick", "{}"), (.POST, "/group/update", "{}"), (.GET, "/group/members?group_id=1", nil),
            (.POST, "/favorite/add", "{}"), (.GET, "/favorite/list", nil), (.POST, "/favorite/remove", "{}"),
        ]
        for (method, path, body) in endpoints {
            let r = try await a.send(method, path, body: body.map { Data($0.utf8) })
            let message = (try? r.decode(APIErrorBody.self))?.error.message
            #expect(message != "no such endpoint", "\(method) \(path): \(r.status) \(r.text)")
        }
        // A known path with the wrong method, and an unknown one, are not found.
        for (method, path) in [(HTTPMethod.GET, "/auth/register"), (.POST, "/chat/conversations"), (.GET, "/chat"),
                               (.POST, "/media/object/chat/image/2026/01/01/x.png")] {
            let r = try await a.send(method, path)
            #expect(r.status == 404 && r.errorCode == "not_found", "\(method) \(path): \(r.status) \(r.text)")
        }
    }

    /// A signal, a reply in the asker's inbox, opening a chat from it; a
    /// rename reaches the peer's conversation list.
    @Test func signalsAndRenaming() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let created = try await a.post("/signal/create", SignalCreateRequest(content: "谁一起去爬山？"))
        #expect(created.status == 201, "\(created.text)")
        let signalId = try created.decode(SignalCreateResponse.self).signalId
        #expect(try await a.post("/signal/reply", SignalReplyRequest(signalId: signalId, content: "我自己")).errorCode == "forbidden")
        #expect(try await b.post("/signal/reply", SignalReplyRequest(signalId: 999_999, content: "x")).status == 404)
        let replied = try await b.post("/signal/reply", SignalReplyRequest(signalId: signalId, content: "我去"))
        #expect(replied.status == 201, "\(replied.text)")
        let receiveId = try replied.decode(SignalReplyResponse.self).receiveId

        let inbox = try await a.get("/signal/inbox").decode([SignalInboxItem].self)
        #expect(inbox.map(\.receiveId) == [receiveId])
        #expect(inbox.first?.from.uid == ub.uid && inbox.first?.replyContent == "我去" && inbox.first?.isImOpened == false)
        #expect(try await b.get("/signal/inbox").decode([SignalInboxItem].self).isEmpty)
        #expect(try await b.post("/signal/open-im", OpenIMRequest(receiveId: receiveId)).errorCode == "forbidden")
        #expect(try await a.post("/signal/open-im", OpenIMRequest(receiveId: receiveId)).status == 204)
        #expect(try await a.get("/signal/inbox").decode([SignalInboxItem].self).first?.isImOpened == true)
        let list = try await a.get("/chat/conversations").decode([ConversationSummary].self)
        #expect(list.map(\.conversationId) == [conversationId(ua, ub)] && list.first?.isImOpened == true)

        // A message may name the reply it answers; a made-up one is refused.
        let quoted = SendMessageRequest(recvID: conversationId(ua, ub), content: "好", contentType: ContentType.text,
                                        clientMsgId: "q1", receiveId: receiveId)
        #expect(try await a.post("/chat/message/send", quoted).status == 200)
        let forged = SendMessageRequest(recvID: conversationId(ua, ub), content: "好", contentType: ContentType.text,
                                        clientMsgId: "q2", receiveId: "999999")
        #expect(try await a.post("/chat/message/send", forged).errorCode == "forbidden")
        // A resend of q1 (its answer was lost) gets the stored message even
        // where a check would now refuse it: the client must not be told
        // "refused" for a message the peer has.
        let first = try await a.post("/chat/message/send", quoted).decode(SendMessageResponse.self)
        let resent = SendMessageRequest(recvID: conversationId(ua, ub), content: "好", contentType: ContentType.text,
                                        clientMsgId: "q1", receiveId: "999999")
        let again = try await a.post("/chat/message/send", resent)
        #expect(again.status == 200, "\(again.text)")
        #expect(try again.decode(SendMessageResponse.self).seq == first.seq)

        let renamed = try await b.post("/user/profile/update", UpdateProfileRequest(username: "  新名字  "))
        #expect(try renamed.decode(UserBasicInfo.self).username == "新名字")
        #expect(try await a.get("/chat/conversations").decode([ConversationSummary].self).first?.showName == "新名字")
        let sync = try await a.get("/chat/sync?since=0").decode(SyncResponse.self)
        #expect(sync.events.contains { if case .conversation(let s) = $0 { s.showName == "新名字" } else { false } },
                "the peer hears of the new name through its log")
    }
}
