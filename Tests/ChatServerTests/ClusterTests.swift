import ChatCore
import ChatTesting
import Foundation
import Testing
@testable import ChatServer
@testable import ChatServerPostgres

/// Two nodes on one PostgreSQL database (only when the suite runs on
/// PostgreSQL: `make test` runs it a second time that way).
@Suite(.serialized, .enabled(if: TestServer.postgresAdminURL != nil, "needs TONGBAN_TEST_DATABASE_URL"))
struct ClusterTests {
    /// Node one and a second node on its database and media directory.
    static func twoNodes(_ tweak: @escaping (inout ServerConfig) -> Void = { _ in })
        async throws -> (TestServer, TestServer) {
        let media = TestFolders.make("tongban-media").path
        let one = try await TestServer.start { $0.mediaDirectory = media; tweak(&$0) }
        let two = try await TestServer.start(database: one.config.databaseURL) { $0.mediaDirectory = media; tweak(&$0) }
        return (one, two)
    }

    static func login(_ node: TestServer, _ account: String) async throws -> API {
        let r = try await node.anonymous.post("/auth/login", LoginRequest(account: account, password: "password-\(account)"))
        #expect(r.status == 200, "\(r.text)")
        return API(base: node.base, token: try r.decode(AuthResponse.self).token)
    }

    @Test func aSendOnOneNodeReachesASocketOnTheOther() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, ua) = try await one.user("alice_c")
        let (_, ub) = try await one.user("bob_c")
        let bOnTwo = try await Self.login(two, "bob_c")
        let socket = try await WSProbe.open(port: two.port, token: bOnTwo.token!)
        defer { Task { await socket.close() } }
        let conv = conversationId(ua, ub)
        #expect(try await a.sendText(conv, "跨节点 👋").status == 200)
        let notice = await socket.wait { if case .sync(let c) = $0 { c > 0 } else { false } }
        guard case .sync(let cursor)? = notice else {
            Issue.record("node two's socket heard nothing of a send on node one")
            return
        }
        let page = try await bOnTwo.get("/chat/sync?since=0").decode(SyncResponse.self)
        #expect(page.cursor == cursor)
        #expect(page.events.compactMap { if case .message(let m) = $0 { m.content } else { nil } } == ["跨节点 👋"])
    }

    /// Two users on different nodes in one room: each hears the other's
    /// words and comings and goings; closing the last socket leaves.
    @Test func aRoomSpansTheNodes() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, ua) = try await one.user("alice_r")
        _ = try await one.user("bob_r")
        let bOnTwo = try await Self.login(two, "bob_r")
        let aSocket = try await WSProbe.open(port: one.port, token: ua.token)
        let bSocket = try await WSProbe.open(port: two.port, token: bOnTwo.token!)
        defer { Task { await aSocket.close() } }
        let room = try await a.createRoom("跨节点房间", unique: "across_nodes").decode(RoomInfo.self)
        #expect(try await bOnTwo.enterRoom("across_nodes").status == 200, "node two knows alice's socket on one is there")
        #expect(await aSocket.wait { roomMessage($0)?.contentType == ContentType.roomEntered && roomMessage($0)?.sendID != ConversationIDHelper.imUid(ua.uid) } != nil)
        #expect(try await a.sendText(room.conversationId, "你好，二号节点", id: "across").status == 200)
        let heard = await bSocket.wait { roomMessage($0)?.clientMsgID == "across" }
        #expect(roomMessage(heard!)?.content == "你好，二号节点")
        await bSocket.close()
        #expect(await aSocket.wait { roomMessage($0)?.contentType == ContentType.roomLeft } != nil, "offline on node two is left")
    }

    /// Every node stopped at once leaves the users present listed: a node
    /// starting on the database takes out those online nowhere once the
    /// grace for the others to say who is on them is over.
    @Test func thosePresentWhenTheWholeClusterStoppedLeaveWhenANodeStarts() async throws {
        let one = try await TestServer.start()
        let (a, ua) = try await one.user("alice_g")
        let socket = try await WSProbe.open(port: one.port, token: ua.token)
        let room = try await a.createRoom("幽灵", unique: "ghosts").decode(RoomInfo.self)
        await one.stop()
        await socket.close()
        // A node whose grace is far off still lists her: the stop did not take her out.
        let waiting = try await TestServer.start(database: one.config.databaseURL) { $0.roomPresenceGrace = .seconds(3600) }
        #expect(try waiting.storage.read { tx in try tx.rooms.presentCount(room.roomId) } == 1, "stopping left her listed")
        await waiting.stop()
        let two = try await TestServer.start(database: one.config.databaseURL) { $0.roomPresenceGrace = .milliseconds(100) }
        defer { Task { await two.stop() } }
        var count = 1
        for _ in 0..<200 where count > 0 {
            try await Task.sleep(for: .milliseconds(25))
            count = try two.storage.read { tx in try tx.rooms.presentCount(room.roomId) }
        }
        #expect(count == 0, "online on no node: out of the room")
        let history = try two.storage.read { tx in try tx.messages.messages(in: room.conversationId, above: 0, below: Int.max,
                                                                                    limit: 10, for: ua.uid) }
        #expect(history.contains { $0.wire.contentType == ContentType.roomLeft }, "and the room says so")
    }

    /// A device signed out on node one stops on node two at once, its socket
    /// there closes with 4001, and a friend request made on one is heard on two.
    @Test func aRevokeAndAFriendRequestReachTheOtherNode() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, _) = try await one.user("alice_v")
        let (_, ub) = try await one.user("bob_v")
        let aOnTwo = try await Self.login(two, "alice_v")
        let bOnTwo = try await Self.login(two, "bob_v")
        #expect(try await aOnTwo.get("/user/me").status == 200, "node two now caches the token")
        let aSocket = try await WSProbe.open(port: two.port, token: aOnTwo.token!)
        let bSocket = try await WSProbe.open(port: two.port, token: bOnTwo.token!)
        defer { Task { await aSocket.close(); await bSocket.close() } }

        #expect(try await a.befriend(ub, message: "跨节点").status == 201)
        #expect(await bSocket.wait { if case .sync(let c) = $0 { c > 0 } else { false } } != nil)
        #expect(try await bOnTwo.get("/friend/requests").decode(FriendRequestsResponse.self).incoming.map(\.message) == ["跨节点"])

        let other = try #require(try await a.get("/auth/sessions").decode([SessionInfo].self).first { !$0.current })
        #expect(try await a.post("/auth/sessions/revoke", RevokeSessionRequest(sessionId: other.sessionId)).status == 204)
        #expect(await aSocket.waitClosed() == .unknown(PushCloseCode.signedOut))
        #expect(try await aOnTwo.get("/user/me").status == 401)
    }

    @Test func concurrentSendsThroughBothNodesLeaveNoHoles() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, ua) = try await one.user("alice_h")
        let (_, ub) = try await one.user("bob_h")
        let aOnTwo = try await Self.login(two, "alice_h")
        let bOnTwo = try await Self.login(two, "bob_h")
        let conv = conversationId(ua, ub)
        let perSender = 40
        // Alice on node one and on node two and Bob on node two, all at once;
        // each send is also retried once with its id (an idempotent retry).
        let seqs = try await withThrowingTaskGroup(of: [Int].self) { group in
            for (api, tag) in [(a, "a1"), (aOnTwo, "a2"), (bOnTwo, "b2")] {
                group.addTask {
                    var seqs: [Int] = []
                    for i in 0..<perSender {
                        let id = "\(tag)-\(i)"
                        let first = try await api.sendText(conv, "\(tag) \(i)", id: id).decode(SendMessageResponse.self)
                        let retry = try await api.sendText(conv, "\(tag) \(i)", id: id).decode(SendMessageResponse.self)
                        #expect(retry.seq == first.seq, "a retry is answered with the stored message")
                        seqs.append(first.seq)
                    }
                    return seqs
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(seqs.sorted() == Array(1...(3 * perSender)), "seqs 1...\(3 * perSender), none twice, none missing")
        // Bob's log, read through node one, has every message once, in seq order.
        var since = 0, seen: [Int] = []
        while true {
            let page = try await API(base: one.base, token: bOnTwo.token).get("/chat/sync?since=\(since)&limit=50")
                .decode(SyncResponse.self)
            seen += page.events.compactMap { if case .message(let m) = $0 { m.seq } else { nil } }
            #expect(page.cursor >= since)
            since = page.cursor
            if !page.hasMore { break }
        }
        #expect(seen == Array(1...(3 * perSender)))
    }

    @Test func loginThrottlingHoldsAcrossNodes() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        _ = try await one.user("guess_c")
        for i in 0..<ServerLimits().failedLoginsPerAccount {
            let node = i % 2 == 0 ? one : two
            let r = try await node.anonymous.post("/auth/login", LoginRequest(account: "guess_c", password: "wrong-\(i)"))
            #expect(r.status == 401)
        }
        for node in [one, two] {
            let r = try await node.anonymous.post("/auth/login", LoginRequest(account: "guess_c", password: "password-guess_c"))
            #expect(r.errorCode == "rate_limited", "blocked on every node: \(r.text)")
        }
    }

    /// PROTOCOL.md v4: a per-address limit and a daily quota hold for the
    /// cluster, however the proxy spreads the requests.
    @Test func addressLimitsAndQuotasHoldAcrossNodes() async throws {
        let (one, two) = try await Self.twoNodes { $0.limits.signUpsPerHour = 2; $0.limits.groupsPerDay = 1 }
        defer { Task { await one.stop(); await two.stop() } }
        func register(_ node: TestServer, _ name: String) async throws -> Reply {
            try await node.anonymous.send(.POST, "/auth/register",
                                          body: try JSONEncoder().encode(RegisterRequest(account: name, password: "password-\(name)")),
                                          headers: ["X-Forwarded-For": "203.0.113.77"])
        }
        #expect(try await register(one, "across_a").status == 201)
        #expect(try await register(two, "across_b").status == 201)
        #expect(try await register(one, "across_c").status == 429, "the third from that address, on either node")
        let a = try await Self.login(one, "across_a")
        let aOnTwo = API(base: two.base, token: a.token)
        #expect(try await a.post("/group/create", CreateGroupRequest(name: "一", uniqueName: "across_g1")).status == 201)
        #expect(try await aOnTwo.post("/group/create", CreateGroupRequest(name: "二", uniqueName: "across_g2")).status == 429)
    }

    /// A block on one node: the blocked user's socket on the other node sees
    /// the blocker go offline at once.
    @Test func aBlockHidesPresenceOnTheOtherNode() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (bob, ub) = try await one.user("hide_bob")
        let (mallory, um) = try await one.user("hide_mal")
        _ = try await mallory.sendText(conversationId(ub, um), "hi")
        let bobSocket = try await WSProbe.open(port: one.port, token: ub.token)
        let malSocket = try await WSProbe.open(port: two.port, token: um.token)
        defer { Task { await bobSocket.close(); await malSocket.close() } }
        // Mallory's node knows Bob is online (his node says so over the bus) before he blocks her.
        let malOnTwo = API(base: two.base, token: um.token)
        var online = false
        for _ in 0..<200 where !online {
            online = try await malOnTwo.post("/chat/conversation/start", StartConversationRequest(userId: ub.uid))
                .decode(ConversationSummary.self).isOnline == true
            if !online { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(online, "node two heard that Bob is online")
        #expect(try await bob.block(um).status == 204)
        let hidden = await malSocket.wait { if case .presence(let who, let online) = $0 { who == ub.imUid && !online } else { false } }
        #expect(hidden != nil, "an offline frame reached her socket on the other node")
    }

    @Test func rateLimitsCountRequestsOnEveryNode() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let (one, two) = try await Self.twoNodes { $0.limits.requestsPerSecond = 4; $0.limits.requestBurst = 4; $0.clock = clock.clock }
        defer { Task { await one.stop(); await two.stop() } }
        let (a, _) = try await one.user("busy_c")
        let aOnTwo = API(base: two.base, token: a.token)
        var codes: [Int] = []
        for i in 0..<6 { codes.append(try await (i % 2 == 0 ? a : aOnTwo).get("/user/me").status) }
        #expect(codes == [200, 200, 200, 200, 429, 429])
        clock.advance(ms: 1_000)
        #expect(try await aOnTwo.get("/user/me").status == 200, "a new second")
    }

    @Test func anyNodeServesAnObjectAndSignsWithTheSharedSecret() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        #expect(one.running.service.objects.secretBytes == two.running.service.objects.secretBytes)
        let (a, ua) = try await one.user("alice_m")
        let (_, ub) = try await one.user("bob_m")
        let png = SampleMedia.png(width: 4, height: 4) { x, y in (UInt8(x * 60), UInt8(y * 60), 9) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await a.sendCustom(conversationId(ua, ub), ["type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 4, "h": 4])
        let bOnTwo = try await Self.login(two, "bob_m")
        let signed = try await bOnTwo.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self)
        let url = try #require(signed.urls[key])
        // Signed by node two, fetched from node one.
        let path = url.replacingOccurrences(of: two.base, with: one.base)
        #expect(try await API(base: "", token: nil).get(path).body == png)
    }

    /// Node two answers from its token cache once it listens; the notice
    /// the logout's own transaction sends takes the token out there.
    @Test func aLogoutOnOneNodeEndsTheTokenOnTheOther() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, _) = try await one.user("leaver_c")
        let auth = two.running.service.auth
        let hash = Credentials.tokenHash(try #require(a.token))
        #expect(await Self.until { auth.tokenCache.withLock { $0.open } }, "node two listens")
        let aOnTwo = API(base: two.base, token: a.token)
        #expect(try await aOnTwo.get("/user/me").status == 200)
        #expect(auth.tokenCache.withLock { $0.uids[hash] } != nil, "node two answers from its cache")
        #expect(try await a.send(.POST, "/auth/logout").status == 204)
        #expect(await Self.until { auth.tokenCache.withLock { $0.uids[hash] == nil } }, "node two heard of the logout")
        #expect(try await aOnTwo.get("/user/me").status == 401)
    }

    /// A node that may have missed logouts (its listener lost its
    /// connection) forgets every cached token, and caches again once back.
    @Test func aNodeWhoseListenerWasCutForgetsItsCachedTokens() async throws {
        let (one, two) = try await Self.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, _) = try await one.user("cut_c")
        let auth = two.running.service.auth
        let hash = Credentials.tokenHash(try #require(a.token))
        #expect(await Self.until { auth.tokenCache.withLock { $0.open } })
        let aOnTwo = API(base: two.base, token: a.token)
        #expect(try await aOnTwo.get("/user/me").status == 200)
        #expect(auth.tokenCache.withLock { $0.uids[hash] } != nil)
        try two.storage.write { tx in
            let conn = (tx as! PostgresTransaction).conn
            _ = try conn.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")
        }
        #expect(await Self.until { auth.tokenCache.withLock { $0.uids[hash] == nil } }, "emptied when the listener was lost")
        #expect(await Self.until { auth.tokenCache.withLock { $0.open } }, "open again once it listens again")
        #expect(try await aOnTwo.get("/user/me").status == 200)
    }

    /// A user is online while a socket of theirs is open on any node: a
    /// contact on the other node hears both changes and sees them in the list.
    @Test func presenceHoldsAcrossNodes() async throws {
        let c = try await Contacts.apart("p")
        defer { Task { await c.stop() } }
        #expect(try await c.bOnTwo.summary(c.conv)?.isOnline == false)
        let aSocket = try await WSProbe.open(port: c.one.port, token: try #require(c.a.token))
        #expect(await c.bSocket.wait { $0 == .presence(userId: c.alice, online: true) } != nil, "online, heard on node two")
        #expect(try await c.bOnTwo.summary(c.conv)?.isOnline == true)
        await aSocket.close()
        #expect(await c.bSocket.wait { $0 == .presence(userId: c.alice, online: false) } != nil, "offline, heard on node two")
        #expect(try await c.bOnTwo.summary(c.conv)?.isOnline == false)
    }

    /// A node that starts (or listens again) asks who is online where; the
    /// others answer, so a user already online elsewhere shows online there.
    @Test func aNodeThatStartsLaterLearnsWhoIsOnline() async throws {
        let media = TestFolders.make("tongban-media").path
        let one = try await TestServer.start { $0.mediaDirectory = media }
        let (a, ua) = try await one.user("la_c")
        let (_, ub) = try await one.user("lb_c")
        let conv = conversationId(ua, ub)
        #expect(try await a.sendText(conv, "hi").status == 200)
        let aSocket = try await WSProbe.open(port: one.port, token: try #require(a.token))
        let two = try await TestServer.start(database: one.config.databaseURL) { $0.mediaDirectory = media }
        defer { Task { await aSocket.close(); await one.stop(); await two.stop() } }
        #expect(await Self.until { two.running.service.hub.isOnline(ua.uid) }, "node one answered node two's hello")
        let bOnTwo = try await Self.login(two, "lb_c")
        #expect(try await bOnTwo.summary(conv)?.isOnline == true)
    }

    /// A node that says a user is online there and then vanishes (no
    /// listener any more, as after `kill -9`) stops counting: the next
    /// sweep makes the user offline for their contacts.
    @Test func aVanishedNodesUsersGoOffline() async throws {
        let c = try await Contacts.apart("v")
        defer { Task { await c.stop() } }
        try c.two.storage.write { tx in
            let conn = (tx as! PostgresTransaction).conn
            try conn.execute("SELECT pg_notify(\(PostgresBus.channel), \(ClusterPayload.presencePayload(node: "0ddba11", uid: c.ua.uid, online: true)))")
        }
        #expect(await c.bSocket.wait { $0 == .presence(userId: c.alice, online: true) } != nil)
        #expect(try await c.bOnTwo.summary(c.conv)?.isOnline == true)
        c.two.running.service.cluster?.sweep()
        #expect(await c.bSocket.wait { $0 == .presence(userId: c.alice, online: false) } != nil, "node 0ddba11 is gone")
        #expect(try await c.bOnTwo.summary(c.conv)?.isOnline == false)
    }

    /// Alice and Bob, who share a chat: Alice on node one, Bob logged in on
    /// node two with a socket there, once node two listens.
    struct Contacts {
        let one: TestServer, two: TestServer
        let a: API, ua: AuthResponse
        let bOnTwo: API
        let conv: String
        let bSocket: WSProbe
        var alice: String { ConversationIDHelper.imUid(ua.uid) }

        static func apart(_ prefix: String) async throws -> Contacts {
            let (one, two) = try await ClusterTests.twoNodes()
            let (a, ua) = try await one.user(prefix + "a_c")
            let (_, ub) = try await one.user(prefix + "b_c")
            let conv = conversationId(ua, ub)
            #expect(try await a.sendText(conv, "hi").status == 200)
            let bOnTwo = try await ClusterTests.login(two, prefix + "b_c")
            #expect(await ClusterTests.until { two.running.service.auth.tokenCache.withLock { $0.open } }, "node two listens")
            let bSocket = try await WSProbe.open(port: two.port, token: try #require(bOnTwo.token))
            return Contacts(one: one, two: two, a: a, ua: ua, bOnTwo: bOnTwo, conv: conv, bSocket: bSocket)
        }

        func stop() async {
            await bSocket.close()
            await one.stop()
            await two.stop()
        }
    }

    /// Waits for what another node's notice brings about (at most 10 s).
    static func until(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

/// The notices nodes send each other.
@Suite struct BusNoticeTests {
    @Test func cursorsFromAnotherNodeAndLogoutsFromAnyNodeAreRead() {
        let payloads = ClusterPayload.payloads(node: "n1", [7: 40, 3: 12])
        #expect(payloads == ["n1 3:12 7:40"])
        #expect(ClusterPayload.parse(payloads[0], ownNode: "n2") == .cursors([3: 12, 7: 40]))
        #expect(ClusterPayload.parse(payloads[0], ownNode: "n1") == nil, "a node's own notices are not news to it")
        let logout = ClusterPayload.logoutPayload(tokenHash: "ab12")
        #expect(ClusterPayload.parse(logout, ownNode: "n1") == .logout(tokenHash: "ab12"))
        #expect(ClusterPayload.parse(ClusterPayload.presencePayload(node: "n1", uid: 5, online: false), ownNode: "n2")
                == .presence(node: "n1", uid: 5, online: false))
        #expect(ClusterPayload.parse(ClusterPayload.presencePayload(node: "n1", uid: 5, online: true), ownNode: "n1") == nil)
        #expect(ClusterPayload.parse(ClusterPayload.helloPayload(node: "n1"), ownNode: "n2") == .hello(node: "n1"))
        #expect(ClusterPayload.onlinePayloads(node: "n1", uids: []).map { ClusterPayload.parse($0, ownNode: "n2") }
                == [.online(node: "n1", uids: [])])
        #expect(ClusterPayload.parse(ClusterPayload.hiddenPayload(node: "n1", 5, 9), ownNode: "n2") == .hidden(5, 9))
        #expect(ClusterPayload.parse("hidden n1 5", ownNode: "n2") == nil)
        #expect(ClusterPayload.parse("presence n1 *5", ownNode: "n2") == nil)
        #expect(ClusterPayload.parse("online n1 5 x", ownNode: "n2") == nil)
        #expect(ClusterPayload.parse("n1 3:x", ownNode: "n2") == nil)
        #expect(ClusterPayload.parse("n1 3:1:2", ownNode: "n2") == nil)
    }

    @Test func aLongListIsSplitUnderPostgreSQLsLimit() {
        let cursors = Dictionary(uniqueKeysWithValues: (1...2_000).map { ($0, 1_000_000 + $0) })
        let payloads = ClusterPayload.payloads(node: "n1", cursors)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= ClusterPayload.maxPayload })
        var merged: [Int: Int] = [:]
        for p in payloads {
            if case .cursors(let c)? = ClusterPayload.parse(p, ownNode: "n2") { merged.merge(c) { max($0, $1) } }
        }
        #expect(merged == cursors)
    }
}

/// Typing and read_changed frames live only on sockets: they cross nodes over the bus.
@Suite(.serialized, .enabled(if: TestServer.postgresAdminURL != nil, "needs TONGBAN_TEST_DATABASE_URL"))
struct LiveClusterTests {
    @Test func typingAndReadChangedReachSocketsOnTheOtherNode() async throws {
        let (one, two) = try await ClusterTests.twoNodes()
        defer { Task { await one.stop(); await two.stop() } }
        let (a, ua) = try await one.user("typ_ca")
        let (_, ub) = try await one.user("typ_cb")
        let conv = conversationId(ua, ub)
        #expect(try await a.sendText(conv, "hi").status == 200)
        let socket = try await WSProbe.open(port: two.port, token: ub.token)
        defer { Task { await socket.close() } }
        #expect(try await a.typing(conv).status == 204)
        #expect(await socket.wait(AliveTests.isTyping(conv, ua.imUid)) != nil, "typing crossed to the other node")

        let (group, users) = try await makeGroup(one, size: 2)
        let sent = try await users[0].0.sendText(group.conversationId, "读了吗").decode(SendMessageResponse.self)
        let ownerOnTwo = try await WSProbe.open(port: two.port, token: users[0].1.token)
        defer { Task { await ownerOnTwo.close() } }
        #expect(try await users[1].0.read(group.conversationId, sent.seq).status == 200)
        #expect(await ownerOnTwo.wait { $0 == .readChanged(conversationId: group.conversationId) } != nil)
    }
}
