import ChatCore
import Foundation
import Testing
@testable import ChatServer

/// Messages in groups: fan-out, mentions, mute, owner revoke, the kinds that
/// are one-to-one only, and seqs under concurrent sends and joins.
@Suite(.serialized) struct GroupMessagingTests {
    @Test func aMessageReachesEveryMemberWithOneNoticeEach() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 4)
        var probes: [WSProbe] = []
        for (_, u) in users { probes.append(try await WSProbe.open(port: server.port, token: u.token)) }
        let before = probes.map { $0.frames.withLock { $0.count } }
        let sent = try await users[1].0.sendText(g.conversationId, "大家好")
        #expect(sent.status == 200)
        for (i, probe) in probes.enumerated() {
            #expect(await probe.wait { if case .sync = $0 { true } else { false } } != nil, "member \(i) is told")
            _ = before
        }
        for (api, u) in users {
            let events = try await api.syncEvents()
            let mine = events.compactMap { e -> WireMessage? in if case .message(let m) = e, m.content == "大家好" { m } else { nil } }
            #expect(mine.count == 1, "\(u.imUid) logs it once")
            #expect(mine.first?.recvID == g.conversationId && mine.first?.sendID == users[1].1.imUid)
            let s = try #require(try await api.summary(g.conversationId))
            #expect(s.unreadCount == (u.uid == users[1].1.uid ? 0 : 1))
        }
        for p in probes { await p.close() }
    }

    @Test func mentionsAreCheckedAndRaiseMentionSeq() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3)
        let (owner, _) = users[0], (b, ub) = users[1], (c, uc) = users[2]
        let (_, outsider) = try await server.user()
        let id = g.conversationId
        #expect(try await b.mention(id, "@Carol 周六见", at: [uc.imUid]).status == 200)
        let seq = try #require(try await c.summary(id)).maxSeq
        #expect(try await c.summary(id)?.mentionSeq == seq)
        #expect(try await owner.summary(id)?.mentionSeq == 0)
        #expect(try await b.summary(id)?.mentionSeq == 0, "mentioning yourself does not count")
        let last = try #require(try await c.history(id).messages.last)
        #expect(MentionPayload(jsonText: last.content)?.atUserIDs == [uc.imUid])

        #expect(try await b.mention(id, "@nobody", at: [outsider.imUid]).status == 400, "every id must be a member")
        #expect(try await b.mention(id, "@all", at: [], all: true).status == 403, "only the owner may @all")
        #expect(try await b.post("/chat/message/send", SendMessageRequest(recvID: id, content: "{\"text\": 5}",
                                                                         contentType: 106, clientMsgId: "bad")).status == 400)
        #expect(try await owner.mention(id, "@所有人 出发了", at: [], all: true).status == 200)
        let allSeq = try #require(try await b.summary(id)).maxSeq
        #expect(try await b.summary(id)?.mentionSeq == allSeq)
        #expect(try await c.summary(id)?.mentionSeq == allSeq)
        _ = ub
    }

    @Test func muteIsPerUserAndStillCountsUnread() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2)
        let (a, _) = users[0], (b, _) = users[1]
        let muted = try await a.post("/chat/conversation/mute", MuteRequest(conversationId: g.conversationId, isMuted: true))
        #expect(try muted.decode(ConversationSummary.self).isMuted)
        _ = try await b.sendText(g.conversationId, "still counted")
        #expect(try await a.summary(g.conversationId)?.unreadCount == 1)
        #expect(try await b.summary(g.conversationId)?.isMuted == false)
        #expect(try await a.syncEvents().contains { if case .conversation(let s) = $0 { s.isMuted } else { false } })
        // Single chats mute the same way.
        let (c, uc) = try await server.user()
        let single = conversationId(users[0].1, uc)
        _ = try await c.sendText(single, "hi")
        #expect(try await a.post("/chat/conversation/mute", MuteRequest(conversationId: single, isMuted: true))
            .decode(ConversationSummary.self).isMuted)
    }

    @Test func theOwnerRevokesAnyMessageAtAnyTime() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3)
        let (owner, uo) = users[0], (b, _) = users[1], (c, _) = users[2]
        _ = try await b.sendText(g.conversationId, "oops", id: "b-1")
        #expect(try await c.post("/chat/message/revoke", RevokeRequest(conversationId: g.conversationId, clientMsgId: "b-1")).status == 403)
        clock.advance(ms: 3_600_000)
        #expect(try await b.post("/chat/message/revoke", RevokeRequest(conversationId: g.conversationId, clientMsgId: "b-1")).status == 422)
        let r = try await owner.post("/chat/message/revoke", RevokeRequest(conversationId: g.conversationId, clientMsgId: "b-1"))
        #expect(r.status == 200)
        let seen = try await c.history(g.conversationId).messages
        #expect(seen.first { $0.clientMsgID == "b-1" }?.revoked == true)
        let notice = try #require(seen.last)
        #expect(notice.contentType == ContentType.revokeNotice)
        #expect(JSONObject(jsonText: notice.content)?.string("revokerID") == uo.imUid)
        let first = try #require(seen.first)
        #expect(try await owner.post("/chat/message/revoke", RevokeRequest(conversationId: g.conversationId,
                                                                         clientMsgId: first.clientMsgID)).status == 400,
                "notices are not revocable")
    }

    @Test func flashImagesSignalQuotesAndReceiveIdsAreOneToOneOnly() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2)
        let (a, _) = users[0]
        let key = try await a.upload(SampleMedia.png(width: 4, height: 4) { _, _ in (1, 2, 3) }, type: "image/png")
            .decode(UploadResponse.self).objectKey
        #expect(try await a.sendCustom(g.conversationId, ["type": "flash_image", "objectKey": key, "url": "", "expireAt": 0]).status == 400)
        #expect(try await a.sendCustom(g.conversationId, ["type": "signal_quote", "signalId": 1, "replyContent": "r",
                                                          "signalContent": "s"]).status == 400)
        #expect(try await a.post("/chat/message/send", SendMessageRequest(recvID: g.conversationId, content: "x", contentType: 101,
                                                                         clientMsgId: "rid", receiveId: "5")).status == 400)
        let image = try await a.sendCustom(g.conversationId, ["type": "image", "objectKey": key, "url": "", "expireAt": 0])
        #expect(image.status == 200, "pictures are fine")
        let signed = try await users[1].0.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self)
        #expect(signed.urls[key] != nil, "and every member may read them")
    }

    @Test func seqsHaveNoHolesWhileMembersSendJoinAndLeave() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 4, unique: "busy_room")
        var newcomers: [(API, AuthResponse)] = []
        for _ in 0..<4 { newcomers.append(try await server.user()) }
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for (i, (api, _)) in users.enumerated() {
                group.addTask {
                    var ok = 0
                    for n in 0..<15 where try await api.sendText(g.conversationId, "\(i)-\(n)").status == 200 { ok += 1 }
                    return ok
                }
            }
            for (api, _) in newcomers {
                group.addTask { try await api.join("busy_room").status == 200 ? 0 : -1000 }
            }
            group.addTask { try await users[3].0.leave(g.groupId).status == 204 ? 0 : -1000 }
            return try await group.reduce(0, +)
        }
        var seqs: [Int] = []
        var before = Int.max
        while true {
            let page = try await users[0].0.history(g.conversationId, query: before == Int.max ? "&limit=100" : "&limit=100&before_seq=\(before)")
            seqs = page.messages.map(\.seq) + seqs
            guard page.hasMore, let first = page.messages.first else { break }
            before = first.seq
        }
        #expect(seqs == Array(1...seqs.count), "no holes, no duplicates")
        // The created notice, the sends that were accepted, 4 joins, 1 leave (and
        // the leaver's sends after leaving were refused).
        #expect(seqs.count == 1 + sent + 4 + 1)
        #expect(sent >= 45 && sent <= 60)
    }
}
