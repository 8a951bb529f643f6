import ChatCore
import Foundation
import Testing
@testable import ChatServer

extension API {
    func typing(_ conversation: String) async throws -> Reply {
        try await post("/chat/typing", TypingRequest(conversationId: conversation))
    }
    func read(_ conversation: String, _ seq: Int) async throws -> Reply {
        try await post("/chat/conversation/read", ReadRequest(conversationId: conversation, seq: seq))
    }
    func settings(_ change: SettingsChange) async throws -> Reply { try await post("/user/settings", change) }
    func postSignal(_ text: String) async throws -> Int {
        try await post("/signal/create", SignalCreateRequest(content: text)).decode(SignalCreateResponse.self).signalId
    }
    func feed(_ query: String = "") async throws -> [SignalFeedItem] {
        try await get("/signal/feed\(query)").decode([SignalFeedItem].self)
    }
}

/// PROTOCOL.md v4 "Typing and read receipts", "Signal feed" and the seed
/// gaps of v4 (dissolving a group, `/room/mine`, cards); on SQLite and again
/// on PostgreSQL.
@Suite(.serialized) struct AliveTests {
    static func isTyping(_ conv: String, _ user: String) -> (PushFrame) -> Bool {
        { if case .typing(let c, let u, let ttl) = $0 { c == conv && u == user && ttl == 5000 } else { false } }
    }

    /// Frames before the sync frame a message sent after `action` brings:
    /// what `action` pushed, if anything, arrived before it.
    static func framesBefore(message sender: API, in conv: String, socket: WSProbe, after: Int) async throws -> [PushFrame] {
        #expect(try await sender.sendText(conv, "marker").status == 200)
        _ = await socket.wait(after: after) { if case .sync = $0 { true } else { false } }
        return socket.frames.withLock { frames in
            let tail = Array(frames.dropFirst(after))
            return Array(tail.prefix { if case .sync = $0 { false } else { true } })
        }
    }

    @Test func typingReachesThePeerOnlyWhileTheyMayKnow() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("typ_a")
        let (b, ub) = try await server.user("typ_b")
        let conv = conversationId(ua, ub)
        #expect(try await a.sendText(conv, "你好").status == 200)
        let bSocket = try await WSProbe.open(port: server.port, token: ub.token)
        defer { Task { await bSocket.close() } }
        #expect(try await a.typing(conv).status == 204)
        #expect(await bSocket.wait(Self.isTyping(conv, ua.imUid)) != nil, "the peer's socket hears who types")
        // Never into a sync log.
        #expect(try await b.syncEvents().allSatisfy { if case .message = $0 { true } else if case .conversation = $0 { true } else { false } })

        // share_typing off: 204, and nothing is pushed.
        let off = try await a.settings(SettingsChange(shareTyping: false))
        #expect(try off.status == 200 && off.decode(UserSettings.self) == UserSettings(shareTyping: false))
        var seen = bSocket.count
        #expect(try await a.typing(conv).status == 204)
        #expect(try await Self.framesBefore(message: a, in: conv, socket: bSocket, after: seen)
            .allSatisfy { if case .typing = $0 { false } else { true } })
        _ = try await a.settings(SettingsChange(shareTyping: true))

        // A block: nothing either way.
        #expect(try await b.block(ua).status == 204)
        seen = bSocket.count
        #expect(try await a.typing(conv).status == 204)
        _ = try await b.post("/block/remove", UserIdRequest(userId: ua.uid))
        #expect(try await Self.framesBefore(message: a, in: conv, socket: bSocket, after: seen)
            .allSatisfy { if case .typing = $0 { false } else { true } })

        // Only participants; rooms and malformed ids are refused.
        let (c, _) = try await server.user("typ_c")
        #expect(try await c.typing(conv).status == 403)
        #expect(try await a.typing("sr_1").status == 400)
        #expect(try await a.typing("nonsense").status == 400)
    }

    @Test func aGroupHearsWhoTypesExceptTheTyperAndThoseApart() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (group, users) = try await makeGroup(server, size: 3)
        let (owner, uOwner) = users[0], (_, u1) = users[1], (_, u2) = users[2]
        let s1 = try await WSProbe.open(port: server.port, token: u1.token)
        let sOwner = try await WSProbe.open(port: server.port, token: uOwner.token)
        defer { Task { await s1.close(); await sOwner.close() } }
        #expect(try await users[2].0.typing(group.conversationId).status == 204)
        #expect(await s1.wait(Self.isTyping(group.conversationId, u2.imUid)) != nil)
        #expect(await sOwner.wait(Self.isTyping(group.conversationId, u2.imUid)) != nil)
        let seen = s1.count
        #expect(try await owner.typing(group.conversationId).status == 204)
        #expect(await s1.wait(after: seen, Self.isTyping(group.conversationId, uOwner.imUid)) != nil)
        #expect(sOwner.frames.withLock { $0.contains(where: Self.isTyping(group.conversationId, uOwner.imUid)) } == false,
                "nobody hears their own typing")
    }

    @Test func oneToOneReadsReachTheSenderAsPeerReadSeqAndReadEvents() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("rd_a")
        let (b, ub) = try await server.user("rd_b")
        let conv = conversationId(ua, ub)
        for text in ["一", "二", "三"] { #expect(try await a.sendText(conv, text).status == 200) }
        #expect(try await a.summary(conv)?.peerReadSeq == 0, "shared by default, nothing read yet")
        #expect(try await b.read(conv, 2).status == 200)
        #expect(try await a.summary(conv)?.peerReadSeq == 2)
        let reads = try await a.syncEvents().compactMap { if case .read(let c, let u, let s) = $0 { (c, u, s) } else { nil } }
        #expect(reads.count == 1 && reads.first?.0 == conv && reads.first?.1 == ub.imUid && reads.first?.2 == 2)
        // Reading again, or back, says nothing new.
        #expect(try await b.read(conv, 1).status == 200)
        #expect(try await a.syncEvents().filter { if case .read = $0 { true } else { false } }.count == 1)

        // share_read off on either side: absent both ways, no events.
        _ = try await b.settings(SettingsChange(shareRead: false))
        #expect(try await a.summary(conv)?.peerReadSeq == nil)
        let told = try await a.syncEvents().compactMap { if case .conversation(let c) = $0, c.conversationId == conv { c } else { nil } }
        #expect(told.last?.peerReadSeq == nil && told.count >= 1, "a's client hears at once that the receipts are gone")
        #expect(try await b.summary(conv)?.peerReadSeq == nil, "reciprocal: who does not share sees nobody's")
        #expect(try await b.read(conv, 3).status == 200)
        #expect(try await a.syncEvents().filter { if case .read = $0 { true } else { false } }.count == 1)
        #expect(try await b.get("/user/settings").decode(UserSettings.self).shareRead == false)
        #expect(try await b.settings(SettingsChange()).status == 400, "an empty change is refused")
        _ = try await b.settings(SettingsChange(shareRead: true))
        #expect(try await a.summary(conv)?.peerReadSeq == 3)
    }

    @Test func groupReadCountsReadersAndReadChanged() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (group, users) = try await makeGroup(server, size: 4)
        let conv = group.conversationId
        let (owner, uOwner) = users[0]
        let sent = try await owner.sendText(conv, "大家好").decode(SendMessageResponse.self)
        let socket = try await WSProbe.open(port: server.port, token: uOwner.token)
        defer { Task { await socket.close() } }

        func counts(_ seqs: String) async throws -> Reply {
            try await owner.get("/chat/message/read-counts?conversation_id=\(conv)&seqs=\(seqs)")
        }
        var c = try await counts("\(sent.seq)").decode(ReadCountsResponse.self)
        #expect(c.counts["\(sent.seq)"] == .init(read: 0, unread: 3))
        #expect(try await users[1].0.read(conv, sent.seq).status == 200)
        #expect(await socket.wait { $0 == .readChanged(conversationId: conv) } != nil, "the sender hears that reads moved")
        // Who answers has read what came before.
        let other = try await users[2].0.sendText(conv, "你好").decode(SendMessageResponse.self)
        c = try await counts("\(sent.seq)").decode(ReadCountsResponse.self)
        #expect(c.counts["\(sent.seq)"] == .init(read: 2, unread: 1))
        let readers = try await owner.get("/chat/message/readers?conversation_id=\(conv)&seq=\(sent.seq)").decode(ReadersResponse.self)
        #expect(Set(readers.read.map(\.uid)) == [users[1].1.uid, users[2].1.uid])
        #expect(readers.unread.map(\.uid) == [users[3].1.uid])

        // A member who joins later was not there at that seq.
        let (late, uLate) = try await server.user("rd_late")
        #expect(try await owner.invite(group.groupId, [uLate]).status == 200)
        _ = late
        #expect(try await counts("\(sent.seq)").decode(ReadCountsResponse.self).counts["\(sent.seq)"]?.unread == 1)

        // Another's message is 403; none 404; 1-100 seqs; groups only.
        #expect(try await counts("\(other.seq)").status == 403)
        #expect(try await counts("9999").status == 404)
        #expect(try await counts((1...101).map(String.init).joined(separator: ",")).status == 400)
        #expect(try await counts("x").status == 400)
        let (a, ua) = try await server.user("rd_single")
        _ = try await a.sendText(conversationId(ua, uOwner), "hi")
        #expect(try await a.get("/chat/message/read-counts?conversation_id=\(conversationId(ua, uOwner))&seqs=1").status == 400)
        #expect(try await a.get("/chat/message/readers?conversation_id=\(conv)&seq=\(sent.seq)").status == 403)
    }

    @Test func readChangedComesAtMostEveryTwoSecondsOfTheServersClock() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (group, users) = try await makeGroup(server, size: 3)
        let conv = group.conversationId
        let (owner, uOwner) = users[0]
        var seqs: [Int] = []
        for text in ["一", "二", "三"] { seqs.append(try await owner.sendText(conv, text).decode(SendMessageResponse.self).seq) }
        let socket = try await WSProbe.open(port: server.port, token: uOwner.token)
        defer { Task { await socket.close() } }
        #expect(try await users[1].0.read(conv, seqs[0]).status == 200)
        #expect(await socket.wait { $0 == .readChanged(conversationId: conv) } != nil)
        let seen = socket.count
        // Within the interval: held back (it comes when the interval passed, in real time).
        #expect(try await users[2].0.read(conv, seqs[0]).status == 200)
        #expect(try await Self.framesBefore(message: users[1].0, in: conv, socket: socket, after: seen)
            .allSatisfy { $0 != .readChanged(conversationId: conv) })
        // Once the server's clock passed the interval, the next read is told at once.
        clock.advance(ms: 2_001)
        let later = socket.count
        #expect(try await users[1].0.read(conv, seqs[1]).status == 200)
        #expect(await socket.wait(after: later) { $0 == .readChanged(conversationId: conv) } != nil)
    }

    /// `make run`'s demo: `me` is friends with Alice and Bob, whose signals
    /// are in the feed; Carol, a stranger, asks to be friends a while after start.
    @Test func theDemoHasFriendsSignalsAndAStrangersRequest() async throws {
        let server = try await TestServer.start {
            $0.demo = true
            $0.demoFriendRequestDelay = .milliseconds(200)
        }
        defer { Task { await server.stop() } }
        let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "me", password: "tongban-demo"))
        let auth = try login.decode(AuthResponse.self)
        let me = API(base: server.base, token: auth.token)
        let socket = try await WSProbe.open(port: server.port, token: auth.token)
        defer { Task { await socket.close() } }
        #expect(Set(try await me.friends().compactMap(\.account)) == ["alice", "bob"])
        #expect(Set(try await me.feed().compactMap(\.from.account)) == ["alice", "bob"])
        let devices = try await me.get("/auth/sessions").decode([SessionInfo].self)
        #expect(devices.filter { !$0.current }.allSatisfy { !$0.userAgent.isEmpty }, "the demo's own sessions have a name")
        // Carol's request: there already (the socket opened late), or it comes by push.
        func incoming() async throws -> [FriendRequest] {
            try await me.get("/friend/requests").decode(FriendRequestsResponse.self).incoming
        }
        var requests = try await incoming()
        var seen = 0
        while requests.isEmpty {
            guard await socket.wait(after: seen, timeout: .seconds(10), { if case .sync = $0 { true } else { false } }) != nil
            else { break }
            seen = socket.count
            requests = try await incoming()
        }
        #expect(requests.map(\.from.account) == ["carol"])
    }

    @Test func theSignalFeedPostsRepliesHidesReportsAndDeletes() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("sig_a")
        let (b, _) = try await server.user("sig_b")
        let (c, uc) = try await server.user("sig_c")
        let first = try await a.postSignal("周末爬山？")
        let second = try await a.postSignal("推荐本书 📚")
        let carols = try await c.postSignal("谁打羽毛球")
        // Newest first, others' only, paged by `before`.
        #expect(try await b.feed().map(\.signalId) == [carols, second, first])
        #expect(try await a.feed().map(\.signalId) == [carols], "not my own")
        #expect(try await b.feed("?limit=1").map(\.signalId) == [carols])
        #expect(try await b.feed("?before=\(second)").map(\.signalId) == [first])
        #expect(try await b.get("/signal/feed?limit=51").status == 400)
        let item = try #require(try await b.feed().first { $0.signalId == second })
        #expect(item.from.uid == ua.uid && item.content == "推荐本书 📚" && !item.replied)

        // One reply per user and signal.
        let reply = try await b.post("/signal/reply", SignalReplyRequest(signalId: second, content: "《三体》"))
        #expect(reply.status == 201)
        #expect(try await b.post("/signal/reply", SignalReplyRequest(signalId: second, content: "再来")).status == 409)
        #expect(try await b.feed().first { $0.signalId == second }?.replied == true)
        // 1-500 characters, for posts and replies.
        #expect(try await a.post("/signal/create", SignalCreateRequest(content: String(repeating: "字", count: 501))).status == 413)
        #expect(try await a.post("/signal/create", SignalCreateRequest(content: "  ")).status == 400)
        #expect(try await b.post("/signal/reply", SignalReplyRequest(signalId: first, content: String(repeating: "字", count: 501))).status == 413)

        // Mine, with reply counts.
        let mine = try await a.get("/signal/mine").decode([MySignal].self)
        #expect(mine.map(\.signalId) == [second, first] && mine.map(\.replyCount) == [1, 0])

        // Hide: never shown to the caller again; report: kept for the operator.
        #expect(try await b.post("/signal/hide", SignalIdRequest(signalId: first)).status == 204)
        #expect(try await b.feed().map(\.signalId) == [carols, second])
        #expect(try await b.post("/signal/report", SignalReportRequest(signalId: carols, reason: "广告")).status == 204)
        #expect(try await b.post("/signal/hide", SignalIdRequest(signalId: 999_999)).status == 404)
        let reports = try server.running.service.signals.reports(limit: 10)
        #expect(reports.map(\.signalId) == [carols] && reports.first?.reason == "广告" && reports.first?.author == "sig_c")
        try server.running.service.signals.remove(signalId: carols)
        #expect(try await b.feed().map(\.signalId) == [second])

        // Delete: own only; the reply stays in the inbox; replying to it is 404.
        #expect(try await b.post("/signal/delete", SignalIdRequest(signalId: second)).status == 403)
        #expect(try await a.post("/signal/delete", SignalIdRequest(signalId: second)).status == 204)
        #expect(try await a.get("/signal/mine").decode([MySignal].self).map(\.signalId) == [first])
        #expect(try await a.get("/signal/inbox").decode([SignalInboxItem].self).map(\.signalId) == [second])
        #expect(try await c.post("/signal/reply", SignalReplyRequest(signalId: second, content: "晚了")).status == 404)

        // A block hides authors both ways.
        #expect(try await c.block(ua).status == 204)
        #expect(try await c.feed().isEmpty)
        #expect(try await a.feed().allSatisfy { $0.from.uid != uc.uid })
    }

    @Test func theOwnerDissolvesAGroup() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let unique = "dissolve_\(Int.random(in: 0..<1_000_000))"
        let (group, users) = try await makeGroup(server, size: 3, unique: unique)
        let conv = group.conversationId
        #expect(try await users[1].0.post("/group/dissolve", GroupIdRequest(groupId: group.groupId)).status == 403)
        #expect(try await users[0].0.post("/group/dissolve", GroupIdRequest(groupId: group.groupId)).status == 204)
        for (api, _) in users {
            let s = try #require(try await api.summary(conv))
            #expect(s.isMember == false)
            #expect(s.lastMessage?.contentType == ContentType.groupDissolved, "a 1511 notice ends the timeline")
            #expect(try await api.sendText(conv, "还在吗").status == 403)
        }
        // The name is free again.
        #expect(try await users[1].0.createGroup("新群", unique: unique).status == 201)
        #expect(try await users[0].0.post("/group/dissolve", GroupIdRequest(groupId: group.groupId)).status != 204)
    }

    @Test func cardsAreFilledFromTheServersCopy() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("card_a")
        let (_, ub) = try await server.user("card_b")
        let (_, uc) = try await server.user("card_c")
        let conv = conversationId(ua, ub)
        let sent = try await a.sendCustom(conv, ["type": "card", "userId": uc.imUid, "name": "冒名顶替"])
        #expect(sent.status == 200, "\(sent.text)")
        let m = try #require(try await a.history(conv).messages.last)
        let card = try #require(IMMessageMapper.decode(contentType: m.contentType, content: m.content).1.card)
        #expect(card.name == "card_c" && card.account == "card_c" && card.userId == uc.imUid, "the server's name, not the sender's")
        #expect(m.content.contains("\"msgDesc\":\"[名片] card_c\""))
        #expect(try await a.sendCustom(conv, ["type": "card", "userId": "tb_999999"]).status == 400)
        #expect(try await a.sendCustom(conv, ["type": "card", "userId": "bob"]).status == 400)
    }

    @Test func roomMineListsRoomsIOwnOrEnteredLately() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user("rm_a")
        let (b, ub) = try await server.user("rm_b")
        let sa = try await WSProbe.open(port: server.port, token: ua.token)
        let sb = try await WSProbe.open(port: server.port, token: ub.token)
        defer { Task { await sa.close(); await sb.close() } }
        let created = try await a.post("/room/create", CreateRoomRequest(name: "茶馆", uniqueName: "teahouse_m", topic: nil))
        #expect(created.status == 201, "\(created.text)")
        let room = try created.decode(RoomInfo.self)
        #expect(try await b.get("/room/mine").decode([RoomInfo].self).isEmpty)
        #expect(try await b.post("/room/enter", EnterRoomRequest(uniqueName: "teahouse_m")).status == 200)
        #expect(try await b.post("/room/leave", RoomIdRequest(roomId: room.roomId)).status == 204)
        #expect(try await b.get("/room/mine").decode([RoomInfo].self).map(\.roomId) == [room.roomId], "entered lately, gone since")
        #expect(try await a.get("/room/mine").decode([RoomInfo].self).map(\.roomId) == [room.roomId], "owned")
        #expect(try await a.post("/room/drop", RoomIdRequest(roomId: room.roomId)).status == 204)
        #expect(try await b.get("/room/mine").decode([RoomInfo].self).isEmpty, "a dropped room is gone")
    }
}

/// The live frames' notices between nodes.
@Suite struct LiveNoticeTests {
    @Test func typingAndReadChangedCrossNodesAsShortLines() {
        let typing = PushFrame.typing(conversationId: "sg_7", userId: "tb_3", ttlMs: 5000)
        let payloads = ClusterPayload.livePayloads(node: "n1", frame: typing, uids: [4, 5])
        #expect(payloads == ["typing n1 sg_7 tb_3 5000 4 5"])
        #expect(ClusterPayload.parse(payloads[0], ownNode: "n2") == .live(typing, uids: [4, 5]))
        #expect(ClusterPayload.parse(payloads[0], ownNode: "n1") == nil)
        let changed = ClusterPayload.livePayloads(node: "n1", frame: .readChanged(conversationId: "sg_7"), uids: [9])
        #expect(ClusterPayload.parse(changed[0], ownNode: "n2") == .live(.readChanged(conversationId: "sg_7"), uids: [9]))
        #expect(ClusterPayload.parse("typing n1 sg_7 tb_3 x 4", ownNode: "n2") == nil)
        #expect(ClusterPayload.parse("readchg n1 sg_7 4 y", ownNode: "n2") == nil)
        #expect(ClusterPayload.livePayloads(node: "n1", frame: .ping, uids: [1]).isEmpty)
    }
}
