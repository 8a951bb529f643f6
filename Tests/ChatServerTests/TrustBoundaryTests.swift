import ChatCore
import Foundation
import GRDB
import Synchronization
import Testing
@testable import ChatServer

/// PROTOCOL.md v4 "Limits and consent": what one user must not see of, or
/// do to, another. Each test failed on the server before v4.
@Suite struct TrustBoundaryTests {
    static func picture(_ api: API, width: Int = 4, height: Int = 4) async throws -> String {
        try await api.upload(SampleMedia.png(width: width, height: height) { x, y in (UInt8(x & 0xFF), UInt8(y & 0xFF), 7) },
                             type: "image/png").decode(UploadResponse.self).objectKey
    }

    static func image(_ key: String) -> [String: Any] { ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 4, "h": 4] }

    // MARK: Spans

    @Test func anUpdateOfAMessageFromBeforeJoiningNeverReachesTheNewcomer() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2, unique: "span_g")
        let (alice, _) = users[0], (carol, _) = users[1]
        _ = try await alice.sendText(g.conversationId, "secret", id: "secret1")
        let key = try await Self.picture(alice)
        _ = try await alice.sendCustom(g.conversationId, Self.image(key), id: "pic1")
        let (bob, _) = try await server.user()
        #expect(try await bob.join("span_g").status == 200)
        #expect(try await carol.post("/chat/message/react", ReactRequest(conversationId: g.conversationId, clientMsgId: "secret1",
                                                                         emoji: "👍", on: true)).status == 200)
        #expect(try await alice.post("/chat/message/edit", EditRequest(conversationId: g.conversationId, clientMsgId: "secret1",
                                                                       content: "still secret")).status == 200)
        _ = try await alice.sendText(g.conversationId, "hello bob", id: "after1")
        let seen = try await bob.syncEvents().compactMap { event -> String? in
            switch event {
            case .message(let m), .messageUpdate(let m): m.clientMsgID
            default: nil
            }
        }
        #expect(seen.contains("after1"))
        #expect(!seen.contains("secret1"), "the edit and the reaction of an older message stay out: \(seen)")
        #expect(!(try await carol.syncEvents().isEmpty), "members from before see them")
        let signed = try await bob.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self)
        #expect(signed.urls.isEmpty, "the picture sent before Bob joined is not his to fetch")
        #expect(try await carol.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] != nil)
        // Nor can he react to it, quote it, forward it or keep it.
        #expect(try await bob.post("/chat/message/react", ReactRequest(conversationId: g.conversationId, clientMsgId: "secret1",
                                                                       emoji: "👍", on: true)).status == 404)
        #expect(try await bob.post("/favorite/add", FavoriteAddRequest(conversationId: g.conversationId,
                                                                       clientMsgId: "secret1")).status == 404)
        let quote = QuotePayload(text: "what was it?", quote: .init(clientMsgID: "secret1")).jsonText
        #expect(try await bob.post("/chat/message/send", SendMessageRequest(recvID: g.conversationId, content: quote,
                                                                          contentType: ContentType.quote, clientMsgId: "q1")).status == 400)
        let record = MergedPayload(title: "聊天记录", items: [.init(conversationId: g.conversationId, clientMsgID: "secret1")]).jsonText
        #expect(try await bob.post("/chat/message/send", SendMessageRequest(recvID: g.conversationId, content: record,
                                                                          contentType: ContentType.merged, clientMsgId: "f1")).status == 400)
    }

    @Test func whatCameBetweenLeavingAndRejoiningStaysHidden() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2, unique: "span_back")
        let (alice, _) = users[0], (bob, _) = users[1]
        #expect(try await bob.leave(g.groupId).status == 204)
        _ = try await alice.sendText(g.conversationId, "while away", id: "away1")
        let key = try await Self.picture(alice)
        _ = try await alice.sendCustom(g.conversationId, Self.image(key), id: "awaypic")
        #expect(try await bob.join("span_back").status == 200)
        let before = try await bob.get("/chat/sync?since=0&limit=1000").decode(SyncResponse.self).cursor
        #expect(try await alice.post("/chat/message/edit", EditRequest(conversationId: g.conversationId, clientMsgId: "away1",
                                                                       content: "edited while he is back")).status == 200)
        let events = try await bob.syncEvents(since: before)
        #expect(events.allSatisfy { if case .messageUpdate = $0 { false } else { true } }, "\(events)")
        #expect(try await bob.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls.isEmpty)
    }

    // MARK: Consent

    @Test func someoneWhoBlockedTheCallerIsNotPutInAGroup() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (mallory, _) = try await server.user()
        let (bob, ub) = try await server.user()
        let (carol, uc) = try await server.user()
        let (_, ud) = try await server.user()
        let (mal, um) = (mallory, try await mallory.get("/user/me").decode(UserBasicInfo.self))
        #expect(try await bob.post("/block/add", UserIdRequest(userId: um.uid)).status == 204)
        #expect(try await carol.post("/user/settings", UserSettings(acceptStrangers: false)).status == 200)
        let created = try await mal.createGroup("trap", unique: "trap_g", members: [ub, uc, ud])
        #expect(created.status == 201, "\(created.text)")
        let info = try created.decode(GroupInfo.self)
        #expect(info.memberCount == 2, "only Dave, who takes strangers, was added")
        #expect(Set(info.notAdded?.map(\.userId) ?? []) == [ub.imUid, uc.imUid])
        #expect(info.notAdded?.allSatisfy { $0.reason == "not_accepted" } == true, "the reason never says which rule applied")
        #expect(try await bob.summary(info.conversationId) == nil)
        #expect(try await mal.mention(info.conversationId, "@bob", at: [ub.imUid]).status == 400, "Bob is no member to mention")
        let invited = try await mal.invite(info.groupId, [ub]).decode(GroupInfo.self)
        #expect(invited.notAdded?.map(\.userId) == [ub.imUid] && invited.memberCount == 2)
        // He may still join a joinable group by its name himself.
        #expect(try await bob.join("trap_g").status == 200)
    }

    @Test func groupCreationAndInvitationsHaveDailyQuotas() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.limits.groupsPerDay = 2; $0.limits.invitesPerDay = 3; $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        var people: [AuthResponse] = []
        for _ in 0..<4 { people.append(try await server.user().1) }
        #expect(try await a.createGroup("one", unique: "quota_1", members: Array(people[0..<2])).status == 201)
        let two = try await a.createGroup("two", unique: "quota_2").decode(GroupInfo.self)
        let third = try await a.createGroup("three", unique: "quota_3")
        #expect(third.status == 429 && third.errorCode == "rate_limited" && third.header("Retry-After") != nil, "\(third.text)")
        let tooMany = try await a.invite(two.groupId, Array(people[2..<4]))
        #expect(tooMany.status == 429, "two invitations more would be four in a day: \(tooMany.text)")
        #expect(try await a.invite(two.groupId, [people[2]]).status == 200)
        clock.advance(ms: Quotas.dayMs)
        #expect(try await a.createGroup("three", unique: "quota_3").status == 201, "a day later")
    }

    // MARK: Flash images

    @Test func aFlashImageCanBeNamedOnlyByItsOwnMessage() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let key = try await Self.picture(a)
        #expect(try await a.sendCustom(conv, ["type": "flash_image", "objectKey": key, "url": "", "expireAt": 0], id: "fl").status == 200)
        let (group, _) = try await makeGroupWith(server, owner: (b, ub))
        let leak = try await b.sendCustom(group.conversationId, Self.image(key))
        #expect(leak.status == 400, "the receiver cannot make it permanent: \(leak.text)")
        #expect(try await a.sendCustom(conv, Self.image(key)).status == 400, "nor can its sender send it again as a picture")
        let reused = try await Self.picture(a)
        #expect(try await a.sendCustom(conv, Self.image(reused)).status == 200)
        let flash = try await a.sendCustom(conv, ["type": "flash_image", "objectKey": reused, "url": "", "expireAt": 0])
        #expect(flash.status == 400, "a picture already sent cannot become a flash image")
    }

    func makeGroupWith(_ server: TestServer, owner: (API, AuthResponse)) async throws -> (GroupInfo, [(API, AuthResponse)]) {
        let (other, uo) = try await server.user()
        let r = try await owner.0.createGroup("g", unique: "g\(Int.random(in: 0..<1_000_000_000))", members: [uo])
        return (try r.decode(GroupInfo.self), [owner, (other, uo)])
    }

    // MARK: Presence

    @Test func blockedPeopleDoNotSeeEachOtherOnline() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (bob, ub) = try await server.user()
        let (mallory, um) = try await server.user()
        _ = try await mallory.sendText(conversationId(ub, um), "hi")
        let bobSocket = try await WSProbe.open(port: server.port, token: ub.token)
        defer { Task { await bobSocket.close() } }
        func seesBobOnline() async throws -> Bool {
            try await mallory.post("/chat/conversation/start", StartConversationRequest(userId: ub.uid))
                .decode(ConversationSummary.self).isOnline == true
        }
        #expect(try await seesBobOnline())
        let malSocket = try await WSProbe.open(port: server.port, token: um.token)
        defer { Task { await malSocket.close() } }
        #expect(try await bob.block(um).status == 204)
        let hidden = await malSocket.wait { if case .presence(let who, let online) = $0 { who == ub.imUid && !online } else { false } }
        #expect(hidden != nil, "Bob went offline for Mallory when he blocked her")
        #expect(try await !seesBobOnline())
        #expect(try await bob.post("/chat/conversation/start", StartConversationRequest(userId: um.uid))
            .decode(ConversationSummary.self).isOnline == false, "both ways")
        #expect(PresenceService.contacts(of: um.uid, in: server.storage).isEmpty, "nobody tells her when he comes and goes")
    }

    // MARK: Friend requests

    @Test func aDeclinedRequestWaitsADayAndRequestsHaveADailyCap() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.limits.friendRequestsPerDay = 2; $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        let (b, ub) = try await server.user()
        let first = try await a.befriend(ub).decode(FriendRequest.self)
        #expect(try await b.respond(first.requestId, accept: false).status == 200)
        let heard = try await b.requestEvents().count
        for _ in 0..<5 {
            let again = try await a.befriend(ub)
            #expect(again.status == 429 && again.errorCode == "rate_limited", "\(again.text)")
        }
        #expect(try await b.requestEvents().count == heard, "the receiver is not told again")
        #expect(try await b.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.isEmpty)
        clock.advance(ms: 24 * 3_600_000 + 1)
        #expect(try await a.befriend(ub).status == 201, "a day later")
        let (_, uc) = try await server.user()
        let (_, ud) = try await server.user()
        #expect(try await a.befriend(uc).status == 201)
        let capped = try await a.befriend(ud)
        #expect(capped.status == 429, "two requests a day here: \(capped.text)")
    }

    // MARK: Avatars and quotas

    @Test func avatarsAreSmall() async throws {
        let server = try await TestServer.start { $0.limits.avatarMaxBytes = 20_000; $0.limits.avatarMaxPixels = 64 }
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        // Noise does not compress: 100×100 pixels stay well over 20,000 bytes.
        let noise = { (x: Int, y: Int) -> UInt8 in UInt8(truncatingIfNeeded: ((x &* 7919) ^ (y &* 104_729)) &* 2_654_435_761 >> 11) }
        let big = try await a.upload(SampleMedia.png(width: 100, height: 100) { x, y in (noise(x, y), noise(y, x), noise(x + 1, y)) },
                                     type: "image/png").decode(UploadResponse.self)
        #expect(big.size > 20_000)
        let tooLarge = try await a.post("/user/profile/update", UpdateProfileRequest(avatar: big.objectKey))
        #expect(tooLarge.status == 413 && tooLarge.errorCode == "too_large", "\(tooLarge.text)")
        let wide = try await Self.picture(a, width: 65, height: 1)
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest(avatar: wide)).status == 400)
        let fine = try await Self.picture(a, width: 64, height: 64)
        #expect(try await a.post("/user/profile/update", UpdateProfileRequest(avatar: fine)).status == 200)
    }

    @Test func uploadsSignalsHaveDailyQuotas() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start {
            $0.limits.uploadBytesPerDay = 1_000; $0.limits.signalsPerDay = 2; $0.clock = clock.clock
        }
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        let png = SampleMedia.png(width: 4, height: 4) { _, _ in (1, 2, 3) }
        var statuses: [Int] = []
        for _ in 0..<(1_000 / png.count + 1) { statuses.append(try await a.upload(png, type: "image/png").status) }
        #expect(statuses.dropLast().allSatisfy { $0 == 201 })
        let spent = try await a.upload(png, type: "image/png")
        #expect(spent.status == 413 && spent.errorCode == "quota", "\(spent.text)")
        for _ in 0..<2 { #expect(try await a.post("/signal/create", SignalCreateRequest(content: "有人吗")).status == 201) }
        #expect(try await a.post("/signal/create", SignalCreateRequest(content: "有人吗")).status == 429)
        clock.advance(ms: Quotas.dayMs)
        #expect(try await a.upload(png, type: "image/png").status == 201)
    }

    @Test func roomsHaveADailyQuota() async throws {
        let server = try await TestServer.start { $0.limits.roomsPerDay = 2 }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let socket = try await WSProbe.open(port: server.port, token: ua.token)
        defer { Task { await socket.close() } }
        #expect(try await a.createRoom("一", unique: "rq_one").status == 201)
        #expect(try await a.createRoom("二", unique: "rq_two").status == 201)
        let third = try await a.createRoom("三", unique: "rq_three")
        #expect(third.status == 429 && third.errorCode == "rate_limited", "\(third.text)")
    }

    /// The socket closes while the user is being made present: after the
    /// check, before the commit. The leave its closing starts finds no room
    /// yet; the presence must still not outlive the socket. The clock read
    /// where the presence is recorded is the seam that closes it there.
    @Test func aSocketClosingWhileEnteringLeavesNobodyPresent() async throws {
        let armed = Mutex<(@Sendable () -> Void)?>(nil)
        let server = try await TestServer.start {
            $0.clock = ServerClock {
                if let hook = armed.withLock({ h in defer { h = nil }; return h }) { hook() }
                return Int(Date().timeIntervalSince1970 * 1000)
            }
        }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let service = server.running.service
        let socket = try await WSProbe.open(port: server.port, token: ua.token)
        let room = try await a.createRoom("门口", unique: "race_room").decode(RoomInfo.self)
        #expect(try await a.leaveRoom(room.roomId).status == 204)
        // Online from another node from here on; the socket here is gone before the hook is armed.
        service.hub.presence(on: "elsewhere", uid: ua.uid, online: true)
        await socket.close()
        for _ in 0..<400 where service.hub.hasSocket(ua.uid) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!service.hub.hasSocket(ua.uid))
        armed.withLock { h in
            h = {
                // Offline now, and the leave that starts runs to its end before the commit.
                service.hub.presence(on: "elsewhere", uid: ua.uid, online: false)
                service.rooms.settle()
            }
        }
        let entered = try service.rooms.enter(caller: ua.uid, uniqueName: "race_room")
        #expect(entered.present.map(\.uid) == [ua.uid], "the presence was recorded while the user was online")
        service.rooms.settle()
        let present = try service.storage.read { tx in try tx.rooms.present(entered.room.roomId) }
        #expect(present.isEmpty, "nobody without a socket is left present")
    }

    // MARK: Sign-up and sign-in

    @Test func signUpsAreLimitedPerAddress() async throws {
        let server = try await TestServer.start { $0.limits.signUpsPerHour = 3 }
        defer { Task { await server.stop() } }
        func register(_ name: String, from address: String, password: String = "password-1") async throws -> Reply {
            try await server.anonymous.send(.POST, "/auth/register",
                                            body: try JSONEncoder().encode(RegisterRequest(account: name, password: password)),
                                            headers: ["X-Forwarded-For": address])
        }
        #expect(try await register("su_a", from: "203.0.113.5").status == 201)
        #expect(try await register("su_a", from: "203.0.113.5").status == 409, "every answer counts")
        #expect(try await register("su_b", from: "203.0.113.5", password: "short").status == 400)
        let fourth = try await register("su_c", from: "203.0.113.5")
        #expect(fourth.status == 429 && fourth.header("Retry-After") != nil, "\(fourth.text)")
        #expect(try await register("su_c", from: "198.51.100.7").status == 201, "another address")
        // The rightmost address that is not a trusted proxy counts: a client cannot pick its own.
        #expect(try await register("su_d", from: "198.51.100.9, 203.0.113.5").status == 429)
        // IPv6 counts per /64.
        for i in 0..<3 { #expect(try await register("su_v6_\(i)", from: "2001:db8:1:2::\(i + 1)").status == 201) }
        #expect(try await register("su_v6_x", from: "2001:db8:1:2:ffff::1").status == 429)
    }

    @Test func failedSignInsAreLimitedPerAddressAndNobodyIsLockedOut() async throws {
        let server = try await TestServer.start { $0.limits.failedSignInsPerMinute = 4; $0.limits.failedLoginsPerAccount = 3 }
        defer { Task { await server.stop() } }
        _ = try await server.user("victim")
        _ = try await server.user("other_one")
        func login(_ account: String, _ password: String, from address: String) async throws -> Reply {
            try await server.anonymous.send(.POST, "/auth/login",
                                            body: try JSONEncoder().encode(LoginRequest(account: account, password: password)),
                                            headers: ["X-Forwarded-For": address])
        }
        for i in 0..<3 { #expect(try await login("victim", "wrong-\(i)", from: "203.0.113.66").status == 401) }
        #expect(try await login("victim", "password-victim", from: "203.0.113.66").status == 429, "that account from there")
        #expect(try await login("victim", "password-victim", from: "198.51.100.1").status == 200, "its owner elsewhere is not locked out")
        #expect(try await login("other_one", "wrong", from: "203.0.113.66").status == 401)
        let blocked = try await login("other_one", "password-other_one", from: "203.0.113.66")
        #expect(blocked.status == 429 && blocked.errorCode == "rate_limited", "four failures from one address: \(blocked.text)")
    }

    @Test func aFullHashingPoolAnswersAtOnce() async throws {
        let hasher = PasswordHasher(threads: 1, queue: 0)
        defer { hasher.stop() }
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let held = Task { try await hasher.run { started.signal(); gate.wait(); return 1 } }
        started.wait()
        await #expect(throws: APIFailure.self) { _ = try await hasher.run { 2 } }
        do {
            _ = try await hasher.run { 3 }
        } catch let failure as APIFailure {
            #expect(failure.code == .rateLimited && failure.retryAfter == 1)
        }
        gate.signal()
        #expect(try await held.value == 1)
        #expect(try await hasher.run { 4 } == 4, "free again")
    }

    @Test func requestsPerUserAreLimitedByDefault() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.limits = ServerLimits(); $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, _) = try await server.user()
        var codes: [Int] = []
        for _ in 0..<101 { codes.append(try await a.get("/user/me").status) }
        #expect(codes.filter { $0 == 200 }.count == 100, "a burst of 100")
        #expect(codes.last == 429)
        clock.advance(ms: 100)
        #expect(try await a.get("/user/me").status == 200, "50 a second refill it")
        #expect(try await server.anonymous.get("/healthz").status == 200)
    }

    // MARK: Account security

    @Test func changingThePasswordSignsTheOtherSessionsOut() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (first, auth) = try await server.user("pw_owner")
        let secondLogin = try await server.anonymous.post("/auth/login", LoginRequest(account: "pw_owner", password: "password-pw_owner"))
        let second = API(base: server.base, token: try secondLogin.decode(AuthResponse.self).token)
        let socket = try await WSProbe.open(port: server.port, token: auth.token)
        defer { Task { await socket.close() } }
        // Without a token, or with another user's, nobody changes this account's password.
        let stranger = ChangePasswordRequest(old: "password-pw_owner", new: "taken-over-1")
        #expect(try await server.anonymous.post("/auth/password", stranger).status == 401)
        let (other, _) = try await server.user()
        #expect(try await other.post("/auth/password", stranger).status == 401, "the old password is checked against the caller's own")
        let wrong = try await second.post("/auth/password", ChangePasswordRequest(old: "nope-nope", new: "new-password-1"))
        #expect(wrong.status == 401)
        #expect(try await second.post("/auth/password", ChangePasswordRequest(old: "password-pw_owner", new: "short")).status == 400)
        #expect(try await second.post("/auth/password", ChangePasswordRequest(old: "password-pw_owner",
                                                                              new: "new-password-1")).status == 204)
        #expect(try await second.get("/user/me").status == 200, "the session that changed it stays")
        #expect(try await first.get("/user/me").status == 401, "the other one is signed out")
        #expect(await socket.waitClosed() != nil, "and its socket closed")
        #expect(try await server.anonymous.post("/auth/login", LoginRequest(account: "pw_owner", password: "password-pw_owner")).status == 401)
        #expect(try await server.anonymous.post("/auth/login", LoginRequest(account: "pw_owner", password: "new-password-1")).status == 200)
        // A stolen token guesses the password no faster here than at sign-in:
        // the wrong current password above and the old one's sign-in count too.
        for i in 0..<ServerLimits().failedLoginsPerAccount - 2 {
            #expect(try await second.post("/auth/password", ChangePasswordRequest(old: "guess-\(i)-x", new: "new-password-2")).status == 401)
        }
        let throttled = try await second.post("/auth/password", ChangePasswordRequest(old: "new-password-1", new: "new-password-2"))
        #expect(throttled.status == 429, "\(throttled.text)")
    }

    @Test func aNewLoginIsAnnouncedToTheOtherSessions() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (first, _) = try await server.user("nl_owner")
        let since = try await first.get("/chat/sync?since=0").decode(SyncResponse.self).cursor
        let login = try await server.anonymous.send(.POST, "/auth/login",
                                                    body: try JSONEncoder().encode(LoginRequest(account: "nl_owner", password: "password-nl_owner")),
                                                    headers: ["User-Agent": "tongban/4 (laptop)"])
        let auth = try login.decode(AuthResponse.self)
        let events = try await first.syncEvents(since: since)
        guard case .newLogin(let session)? = events.last else {
            Issue.record("no new_login event: \(events)")
            return
        }
        #expect(session.sessionId == auth.sessionId && session.userAgent == "tongban/4 (laptop)")
        let sessions = try await first.get("/auth/sessions").decode([SessionInfo].self)
        #expect(sessions.contains { $0.sessionId == session.sessionId }, "the way to sign it out names it")
    }

    // MARK: Costs

    /// A revoke or an edit finds the conversation summaries to scrub by an
    /// index: its cost does not grow with the sync log.
    @Test func theScrubIsAnIndexLookUp() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-scrub-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let storage = try SQLiteStorage.open(path: dir.appendingPathComponent("s.sqlite").path, logger: .init(label: "t"))
        let plan = try storage.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT cursor, body FROM event WHERE summaryKey = ?", arguments: ["x"])
                .map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.joined().contains("event_summary"), "\(plan)")
    }
}
