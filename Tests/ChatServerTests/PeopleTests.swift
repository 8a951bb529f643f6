import ChatCore
import Foundation
import Testing
@testable import ChatServer

extension API {
    func befriend(_ user: AuthResponse, message: String? = nil) async throws -> Reply {
        try await post("/friend/request", FriendRequestBody(userId: user.uid, message: message))
    }
    func respond(_ requestId: Int, accept: Bool) async throws -> Reply {
        try await post("/friend/respond", FriendRespondRequest(requestId: requestId, accept: accept))
    }
    func friends() async throws -> [Contact] { try await get("/friend/list").decode([Contact].self) }
    func block(_ user: AuthResponse) async throws -> Reply { try await post("/block/add", UserIdRequest(userId: user.uid)) }
    func requestEvents() async throws -> [FriendRequest] {
        try await syncEvents().compactMap { if case .friendRequest(let r) = $0 { r } else { nil } }
    }
    func contactEvents() async throws -> [(Contact, Bool)] {
        try await syncEvents().compactMap { if case .contact(let c, let removed) = $0 { (c, removed) } else { nil } }
    }
}

/// PROTOCOL.md v3 "People": profiles, friends and their requests, blocking,
/// the strangers setting and devices; run on SQLite and again on PostgreSQL.
@Suite(.serialized) struct PeopleTests {
    @Test func aRequestAcceptedMakesFriendsOnBothSidesAndBothHearEachStep() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("alice_p")
        let (b, ub) = try await server.user("bob_p")

        let asked = try await a.befriend(ub, message: "我是爱丽丝")
        #expect(asked.status == 201, "\(asked.text)")
        let request = try asked.decode(FriendRequest.self)
        #expect(request.status == .pending && request.message == "我是爱丽丝" && request.to.account == "bob_p")
        let pending = try await b.get("/friend/requests").decode(FriendRequestsResponse.self)
        #expect(pending.incoming.map(\.requestId) == [request.requestId] && pending.outgoing.isEmpty)
        #expect(try await a.get("/friend/requests").decode(FriendRequestsResponse.self).outgoing.count == 1)
        #expect(try await a.friends().isEmpty, "a request alone is no friendship")

        // Only the receiver answers.
        #expect(try await a.respond(request.requestId, accept: true).status == 403)
        let accepted = try await b.respond(request.requestId, accept: true)
        #expect(try accepted.status == 200 && accepted.decode(FriendRequest.self).status == .accepted)
        #expect(try await b.respond(request.requestId, accept: true).status == 400, "answered once")
        #expect(try await a.friends().map(\.account) == ["bob_p"])
        #expect(try await b.friends().map(\.account) == ["alice_p"])
        #expect(try await b.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.isEmpty)

        // Each side's log has the request's two states and the new friend.
        for api in [a, b] {
            #expect(try await api.requestEvents().map(\.status) == [.pending, .accepted])
            #expect(try await api.contactEvents().count == 1)
        }
        // Asking again is answered with the friendship, not a new request.
        let again = try await a.befriend(ub)
        #expect(try again.status == 200 && again.decode(FriendRequest.self).status == .accepted)
        #expect(try await a.befriend(ua).status == 400, "not oneself")
        #expect(try await a.post("/friend/request", FriendRequestBody(userId: 999_999)).status == 404)
        let long = String(repeating: "长", count: 101)
        #expect(try await a.post("/friend/request", FriendRequestBody(userId: ub.uid, message: long)).status == 400)
    }

    @Test func askingBackAcceptsAndADeclineCanBeAskedAgainADayLater() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, uc) = try await server.user()

        _ = try await a.befriend(ub)
        let back = try await b.befriend(ua)
        #expect(try back.status == 200 && back.decode(FriendRequest.self).status == .accepted, "both asked: friends")
        #expect(try await a.friends().map(\.uid) == [ub.uid])

        let first = try await a.befriend(uc).decode(FriendRequest.self)
        #expect(try await c.respond(first.requestId, accept: false).decode(FriendRequest.self).status == .declined)
        #expect(try await c.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.isEmpty)
        #expect(try await a.befriend(uc).status == 429, "not again the same day")
        clock.advance(ms: 24 * 3_600_000 + 1)
        let second = try await a.befriend(uc, message: "再试一次")
        #expect(try second.status == 201 && second.decode(FriendRequest.self).requestId == first.requestId)
        #expect(try await c.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.map(\.message) == ["再试一次"])
    }

    /// A declined request that came before the friendship is not what
    /// "already friends" answers with.
    @Test func alreadyFriendsIsAnsweredWithTheAcceptedRequest() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let first = try await a.befriend(ub).decode(FriendRequest.self)
        _ = try await b.respond(first.requestId, accept: false)
        let theirs = try await b.befriend(ua).decode(FriendRequest.self)
        _ = try await a.respond(theirs.requestId, accept: true)
        let again = try await a.befriend(ub)
        #expect(try again.status == 200 && again.decode(FriendRequest.self).status == .accepted, "\(again.text)")
    }

    /// Someone who refuses my messages refuses my reactions and edits too.
    @Test func aBlockRefusesReactionsAndEditsInTheSingleChat() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await b.sendText(conv, "第一句", id: "b1")
        _ = try await a.sendText(conv, "回答", id: "a1")
        #expect(try await a.block(ub).status == 204)
        let react = try await b.post("/chat/message/react", ReactRequest(conversationId: conv, clientMsgId: "a1", emoji: "👍", on: true))
        #expect(react.errorCode == "blocked")
        let edit = try await b.post("/chat/message/edit", EditRequest(conversationId: conv, clientMsgId: "b1", content: "改了"))
        #expect(edit.errorCode == "blocked")
        #expect(try await a.history(conv).messages.first { $0.clientMsgID == "b1" }?.content == "第一句")
    }

    @Test func removingAndRemarksAreEachSidesOwn() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("amy_r")
        let (b, ub) = try await server.user("ben_r")
        _ = try await a.befriend(ub)
        _ = try await b.befriend(ua)

        let remarked = try await a.post("/friend/remark", RemarkRequest(userId: ub.uid, remark: "  老本  "))
        #expect(try remarked.status == 200 && remarked.decode(Contact.self).remark == "老本")
        #expect(try await a.friends().first?.shownName == "老本")
        #expect(try await b.friends().first?.remark == "", "a remark is the caller's alone")
        #expect(try await a.contactEvents().last?.0.remark == "老本")
        #expect(try await b.contactEvents().count == 1, "the other side hears nothing of it")
        let tooLong = RemarkRequest(userId: ub.uid, remark: String(repeating: "x", count: 65))
        #expect(try await a.post("/friend/remark", tooLong).status == 400)

        #expect(try await b.post("/friend/remove", UserIdRequest(userId: ua.uid)).status == 204)
        #expect(try await a.friends().isEmpty, "gone on both sides")
        #expect(try await b.friends().isEmpty)
        #expect(try await a.contactEvents().last?.1 == true)
        #expect(try await b.contactEvents().last?.1 == true)
        #expect(try await a.post("/friend/remark", RemarkRequest(userId: ub.uid, remark: "x")).status == 404)
        #expect(try await b.post("/friend/remove", UserIdRequest(userId: ua.uid)).status == 204, "again: nothing to do")
    }

    @Test func aBlockEndsTheFriendshipAndRefusesSinglesButNotGroups() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("ann_b")
        let (b, ub) = try await server.user("bo_b")
        let (c, uc) = try await server.user()
        _ = try await a.befriend(ub)
        _ = try await b.befriend(ua)
        let pending = try await a.befriend(uc).decode(FriendRequest.self)
        let conv = conversationId(ua, ub)
        #expect(try await b.sendText(conv, "在吗").status == 200)

        #expect(try await a.block(ub).status == 204)
        #expect(try await a.block(ua).status == 400)
        #expect(try await a.friends().isEmpty)
        #expect(try await b.friends().isEmpty)
        #expect(try await a.get("/block/list").decode([UserBasicInfo].self).map(\.account) == ["bo_b"])

        let refused = try await b.sendText(conv, "为什么不理我", id: "refused-1")
        #expect(refused.status == 403 && refused.errorCode == "blocked", "\(refused.text)")
        #expect(try await a.history(conv).messages.count == 1, "nothing of it stored")
        #expect(try await b.befriend(ua).errorCode == "blocked")
        #expect(try await a.sendText(conv, "我还能说").status == 200, "the blocker still can")
        #expect(try await a.befriend(ub).status == 400, "unblock first")

        // In a shared group the blocked user's messages still arrive.
        let g = try await a.createGroup("三人", unique: "g\(Int.random(in: 0..<1_000_000_000))", members: [ub])
            .decode(GroupInfo.self)
        #expect(try await b.sendText(g.conversationId, "群里说").status == 200)
        #expect(try await a.history(g.conversationId).messages.contains { $0.contentType == ContentType.text })

        // A block of someone else's pending request leaves theirs alone.
        #expect(try await c.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.map(\.requestId)
                == [pending.requestId])

        #expect(try await a.post("/block/remove", UserIdRequest(userId: ub.uid)).status == 204)
        #expect(try await b.sendText(conv, "好了吗", id: "refused-1").status == 200, "the same id, now let through")
        #expect(try await a.get("/block/list").decode([UserBasicInfo].self).isEmpty)
    }

    @Test func aBlockDeclinesPendingRequestsBothWays() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        let (b, ub) = try await server.user()
        let r = try await b.befriend(try await a.get("/user/me").decode(UserBasicInfo.self).asAuth).decode(FriendRequest.self)
        #expect(try await a.block(ub).status == 204)
        #expect(try await a.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.isEmpty)
        let last = try await b.requestEvents().last
        #expect(last?.requestId == r.requestId && last?.status == .declined)
    }

    @Test func friendsOnlyRefusesStrangersUntilTheyAreFriends() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        #expect(try await a.get("/user/settings").decode(UserSettings.self).acceptStrangers, "strangers by default")
        #expect(try await b.sendText(conv, "陌生人也能说").status == 200)

        #expect(try await a.post("/user/settings", UserSettings(acceptStrangers: false)).status == 200)
        #expect(try await a.get("/user/settings").decode(UserSettings.self).acceptStrangers == false)
        #expect(try await b.sendText(conv, "现在不行").errorCode == "blocked")
        #expect(try await b.befriend(ua).status == 201, "a stranger may still ask")
        let r = try await a.get("/friend/requests").decode(FriendRequestsResponse.self).incoming[0]
        _ = try await a.respond(r.requestId, accept: true)
        #expect(try await b.sendText(conv, "朋友可以").status == 200)
    }

    @Test func aProfileCarriesSignatureAndAPictureAnyoneMaySign() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("pic_owner")
        let (b, ub) = try await server.user()
        let (stranger, _) = try await server.user()
        _ = try await a.befriend(ub)
        _ = try await b.befriend(ua)
        let png = SampleMedia.png(width: 4, height: 4) { x, _ in (UInt8(x * 60), 0, 0) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        let otherKey = try await b.upload(png, type: "image/png").decode(UploadResponse.self).objectKey

        let updated = try await a.post("/user/profile/update", UpdateProfileRequest(signature: " 今天也要加油 ", avatar: key))
        #expect(updated.status == 200, "\(updated.text)")
        let me = try await a.get("/user/me").decode(UserBasicInfo.self)
        #expect(me.signature == "今天也要加油" && me.avatar == key && me.username == "pic_owner")
        #expect(try await b.contactEvents().last?.0.signature == "今天也要加油", "friends hear of it")

        // A picture that is not yours, not an image, or a signature too long.
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest(avatar: otherKey)).status == 403)
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest(avatar: "../../etc/passwd")).status == 400)
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest(signature: String(repeating: "签", count: 101))).status == 400)
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest()).status == 400)

        // Anyone logged in may sign it; its bytes come back.
        let signed = try await stranger.post("/media/sign", SignRequest(objectKeys: [key, otherKey])).decode(SignResponse.self)
        #expect(signed.urls.keys.sorted() == [key], "someone's picture, not someone's upload")
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest(avatar: "")).status == 200)
        #expect(try await stranger.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
    }

    @Test func theOwnerSetsAGroupsPicture() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2)
        let (owner, member) = (users[0].0, users[1].0)
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (9, 9, 9) }
        let key = try await owner.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        #expect(try await member.post("/group/update", UpdateGroupRequest(groupId: g.groupId, avatar: key)).status == 403)
        let set = try await owner.post("/group/update", UpdateGroupRequest(groupId: g.groupId, avatar: key))
        #expect(try set.status == 200 && set.decode(GroupInfo.self).avatar == key, "\(set.text)")
        #expect(try await member.group(g.groupId).decode(GroupInfo.self).avatar == key)
        #expect(try await member.syncEvents().contains { if case .group(let i) = $0 { i.avatar == key } else { false } })
    }

    @Test func aRevokedDeviceStopsAtOnceAndItsSocketClosesWith4001() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (phone, _) = try await server.user("two_devices")
        let laptopLogin = try await server.anonymous.post("/auth/login", LoginRequest(account: "two_devices",
                                                                                     password: "password-two_devices"))
        let laptopAuth = try laptopLogin.decode(AuthResponse.self)
        let laptop = API(base: server.base, token: laptopAuth.token)
        let socket = try await WSProbe.open(port: server.port, token: laptopAuth.token)
        defer { Task { await socket.close() } }

        let sessions = try await phone.get("/auth/sessions").decode([SessionInfo].self)
        #expect(sessions.count == 2 && sessions.filter(\.current).count == 1)
        let other = try #require(sessions.first { !$0.current })
        #expect(try await laptop.get("/user/me").status == 200)

        #expect(try await phone.post("/auth/sessions/revoke", RevokeSessionRequest(sessionId: other.sessionId)).status == 204)
        #expect(try await laptop.get("/user/me").status == 401, "the token died at once")
        #expect(await socket.waitClosed() == .unknown(PushCloseCode.signedOut))
        #expect(try await phone.get("/auth/sessions").decode([SessionInfo].self).map(\.sessionId) != [other.sessionId])
        #expect(try await phone.get("/auth/sessions").decode([SessionInfo].self).count == 1)
        #expect(try await phone.post("/auth/sessions/revoke", RevokeSessionRequest(sessionId: other.sessionId)).status == 404)
        // Someone else's session is not found either.
        let (intruder, _) = try await server.user()
        let mine = try await phone.get("/auth/sessions").decode([SessionInfo].self)[0].sessionId
        #expect(try await intruder.post("/auth/sessions/revoke", RevokeSessionRequest(sessionId: mine)).status == 404)
        #expect(try await phone.get("/user/me").status == 200)
    }
}

extension UserBasicInfo {
    /// Just enough of an `AuthResponse` for helpers that take one.
    var asAuth: AuthResponse { AuthResponse(uid: uid, imUid: ConversationIDHelper.imUid(uid), token: "", username: username) }
}
