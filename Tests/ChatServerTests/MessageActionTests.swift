import ChatCore
import Foundation
import Testing
@testable import ChatServer

/// PROTOCOL.md v3 "Acting on a message": reactions and edits, their rules
/// and who may do them; run on SQLite and again on PostgreSQL.
@Suite(.serialized) struct MessageActionTests {
    func react(_ api: API, _ conv: String, _ id: String, _ emoji: String, on: Bool = true) async throws -> Reply {
        try await api.post("/chat/message/react", ReactRequest(conversationId: conv, clientMsgId: id, emoji: emoji, on: on))
    }

    func edit(_ api: API, _ conv: String, _ id: String, _ content: String) async throws -> Reply {
        try await api.post("/chat/message/edit", EditRequest(conversationId: conv, clientMsgId: id, content: content))
    }

    func updates(_ api: API, of id: String) async throws -> [WireMessage] {
        try await api.syncEvents().compactMap { if case .messageUpdate(let m) = $0, m.clientMsgID == id { m } else { nil } }
    }

    @Test func reactionsAreCountedOncePerUserAndReachBothSides() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (outsider, _) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "晚上吃什么", id: "q")

        let first = try await react(b, conv, "q", "👍")
        #expect(first.status == 200, "\(first.text)")
        #expect(try first.decode(ReactResponse.self).reactions.users(of: "👍") == [ub.imUid])
        #expect(try await react(b, conv, "q", "👍").decode(ReactResponse.self).reactions.users(of: "👍") == [ub.imUid],
                "the same reaction twice is one")
        let both = try await react(a, conv, "q", "👍").decode(ReactResponse.self).reactions
        #expect(both.users(of: "👍") == [ub.imUid, ua.imUid])
        _ = try await react(a, conv, "q", "❤️")

        // The message carries them in history, and every change reached both sides once.
        let h = try #require(try await b.history(conv).messages.first { $0.clientMsgID == "q" })
        #expect(h.reactions?.users(of: "👍").count == 2 && h.reactions?.users(of: "❤️") == [ua.imUid])
        #expect(h.reactions?.entries.first?.emoji == "👍", "most used first")
        for api in [a, b] {
            let seen = try await updates(api, of: "q")
            #expect(seen.count == 3, "one update per change, none for the repeat")
            #expect(seen.last?.reactions == h.reactions)
        }

        // Taking one back; the last one gone leaves no reactions at all.
        _ = try await react(a, conv, "q", "❤️", on: false)
        _ = try await react(a, conv, "q", "👍", on: false)
        let left = try await react(b, conv, "q", "👍", on: false).decode(ReactResponse.self).reactions
        #expect(left.isEmpty)
        #expect(try #require(try await a.history(conv).messages.first).reactions == nil)
        #expect(try await react(a, conv, "q", "👍", on: false).status == 200, "taking back what is not there is a no-op")

        // Who may, and what counts as an emoji.
        #expect(try await react(outsider, conv, "q", "👍").status == 403)
        #expect(try await react(a, conv, "nope", "👍").status == 404)
        for bad in ["", "👍👍", "ab", " ", "\u{7}", String(repeating: "\u{1F3F4}", count: 1) + String(repeating: "\u{E0067}", count: 8)] {
            #expect(try await react(a, conv, "q", bad).status == 400, "\(bad.debugDescription)")
        }
        // No seq, no unread: reactions are not messages.
        #expect(try await b.summary(conv)?.maxSeq == 1)
    }

    @Test func aMessageTakesAtMostTwentyEmojiAndARevokedOneNone() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "反应很多", id: "many")
        let emoji = ["😀", "😁", "😂", "🤣", "😃", "😄", "😅", "😆", "😉", "😊", "😋", "😎", "😍", "😘", "🥰", "😗", "😙", "🥲", "😚", "🙂"]
        for e in emoji { #expect(try await react(a, conv, "many", e).status == 200) }
        let over = try await react(a, conv, "many", "🤔")
        #expect(over.status == 400 && over.text.contains("20"))
        #expect(try await react(a, conv, "many", "😀").status == 200, "one already there is still fine")
        _ = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "many"))
        #expect(try await react(a, conv, "many", "👍").status == 400)
        let revoked = try await a.history(conv).messages.first { $0.clientMsgID == "many" }
        #expect(revoked?.revoked == true && revoked?.reactions == nil, "a revoked message forgets who reacted to it")
    }

    @Test func editsAreTheSendersOwnWithinTheWindow() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await TestServer.start { $0.editWindowSeconds = 3600; $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "明天十点见", id: "t")
        _ = try await b.sendText(conv, "好", id: "ok")

        clock.advance(ms: 60_000)
        let r = try await edit(a, conv, "t", "明天十一点见")
        #expect(r.status == 200, "\(r.text)")
        let edited = try r.decode(WireMessage.self)
        #expect(edited.content == "明天十一点见" && edited.seq == 1 && edited.editedAt == 1_800_000_060_000)
        let h = try await b.history(conv).messages
        #expect(h.map(\.content) == ["明天十一点见", "好"], "same seq, new words")
        for api in [a, b] {
            #expect(try await updates(api, of: "t").last?.content == "明天十一点见")
            #expect(!(try await api.get("/chat/sync?since=0").text.contains("明天十点见")), "the old words are in no log")
        }
        #expect(try await b.summary(conv)?.maxSeq == 2, "an edit takes no seq")

        #expect(try await edit(b, conv, "t", "改别人的").status == 403)
        #expect(try await edit(a, conv, "t", "   ").status == 400)
        #expect(try await edit(a, conv, "t", String(repeating: "长", count: 4001)).status == 413)
        #expect(try await edit(a, conv, "nope", "x").status == 404)
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (0, 0, 255) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await a.sendCustom(conv, ["type": "image", "objectKey": key], id: "pic")
        #expect(try await edit(a, conv, "pic", "not a text").status == 403)

        clock.advance(ms: 3600_000)
        let late = try await edit(a, conv, "t", "太晚了")
        #expect(late.status == 422 && late.errorCode == "edit_window_passed")
        _ = try await a.sendText(conv, "会撤回", id: "gone")
        _ = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "gone"))
        #expect(try await edit(a, conv, "gone", "复活").status == 400)
    }

    @Test func deleteForMeHidesOnlyFromTheCaller() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, "一", id: "one")
        _ = try await b.sendText(conv, "二（要删掉）", id: "two")
        _ = try await b.sendText(conv, "三（也删掉）", id: "three")
        let del = { (ids: [String]) in
            try await b.post("/chat/message/delete", DeleteMessagesRequest(conversationId: conv, clientMsgIds: ids))
        }
        #expect(try await a.post("/chat/message/delete", DeleteMessagesRequest(conversationId: conv, clientMsgIds: ["nope"])).status == 404)
        #expect(try await del([]).status == 400)
        #expect(try await del(Array(repeating: "one", count: 101)).status == 400)
        let (outsider, _) = try await server.user()
        #expect(try await outsider.post("/chat/message/delete", DeleteMessagesRequest(conversationId: conv, clientMsgIds: ["one"])).status == 403)

        #expect(try await del(["two", "three"]).status == 204)
        #expect(try await del(["two"]).status == 204, "twice is a no-op")
        // Gone for B: history, the list's preview, the sync log (but for the note to B's other devices).
        #expect(try await b.history(conv).messages.map(\.clientMsgID) == ["one"])
        #expect(try await b.summary(conv)?.lastMessage?.clientMsgID == "one")
        let bEvents = try await b.syncEvents()
        #expect(!(try await b.get("/chat/sync?since=0").text.contains("要删掉")), "no words of it are left in B's log")
        let notes = bEvents.compactMap { if case .messageUpdate(let m) = $0, m.deletedForMe == true { m.clientMsgID } else { nil } }
        #expect(Set(notes) == ["two", "three"])
        // A keeps everything, and hears nothing of it.
        #expect(try await a.history(conv).messages.map(\.clientMsgID) == ["one", "two", "three"])
        #expect(!(try await a.syncEvents()).contains { if case .messageUpdate(let m) = $0 { m.deletedForMe == true } else { false } })
        #expect(try await a.summary(conv)?.unreadCount == 2)

        // What B deleted is gone for B: no reacting to it, quoting it or forwarding it.
        #expect(try await react(b, conv, "two", "👍").status == 404)
        #expect(try await reply(b, conv, "?", to: "two").status == 400)
        #expect(try await b.post("/favorite/add", FavoriteAddRequest(conversationId: conv, clientMsgId: "two")).status == 404)
        // A later change of a deleted message reaches A only.
        #expect(try await react(a, conv, "two", "👍").status == 200)
        #expect(try await updates(b, of: "two").allSatisfy { $0.deletedForMe == true }, "B is not told of it again")
        #expect(try await updates(a, of: "two").last?.reactions?.users(of: "👍") == [ua.imUid])
        // A message deleted unread no longer counts as unread, nor shows in the list.
        _ = try await a.sendText(conv, "四", id: "four")
        #expect(try await b.summary(conv)?.unreadCount == 1)
        #expect(try await del(["four", "one"]).status == 204)
        #expect(try await b.summary(conv)?.unreadCount == 0)
        #expect(try await b.summary(conv)?.lastMessage == nil)
    }

    func reply(_ api: API, _ conv: String, _ text: String, to target: String, id: String = UUID().uuidString,
               at users: [String] = []) async throws -> Reply {
        let content = QuotePayload(text: text, quote: .init(clientMsgID: target), atUserIDs: users).jsonText
        return try await api.post("/chat/message/send", SendMessageRequest(recvID: conv, content: content,
                                                                           contentType: ContentType.quote, clientMsgId: id))
    }

    @Test func repliesQuoteWhatTheServerHasAndForgetARevokedOne() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        _ = try await a.sendText(conv, String(repeating: "长", count: 150), id: "long")
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (0, 255, 0) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await a.sendCustom(conv, ["type": "image", "objectKey": key], id: "pic")

        // The client's quote says anything; the server's copy is what is stored.
        let forged = #"{"text":"好","quote":{"clientMsgID":"long","text":"我没说过这话","sendID":"tb_999"}}"#
        let r = try await b.post("/chat/message/send", SendMessageRequest(recvID: conv, content: forged,
                                                                          contentType: ContentType.quote, clientMsgId: "r1"))
        #expect(r.status == 200, "\(r.text)")
        #expect(try await reply(b, conv, "好看", to: "pic", id: "r2").status == 200)
        let h = try await a.history(conv).messages
        func quoteOf(_ id: String, in messages: [WireMessage]) throws -> QuotePayload {
            let m = try #require(messages.first { $0.clientMsgID == id })
            return try #require(QuotePayload(jsonText: m.content))
        }
        let r1 = try quoteOf("r1", in: h)
        #expect(r1.text == "好" && r1.quote.seq == 1 && r1.quote.sendID == ua.imUid && r1.quote.contentType == 101)
        #expect(r1.quote.text == String(repeating: "长", count: 100), "at most 100 characters of it")
        let r2 = try quoteOf("r2", in: h)
        #expect(r2.quote.type == "image" && r2.quote.text == nil)

        // What cannot be quoted.
        #expect(try await reply(b, conv, "?", to: "nope").status == 400)
        #expect(try await reply(b, conv, "   ", to: "long").status == 400)
        let (c, uc) = try await server.user()
        _ = try await c.sendText(conversationId(uc, ua), "别处的话", id: "elsewhere")
        #expect(try await reply(a, conv, "串台", to: "elsewhere").status == 400, "a message of another conversation")

        // The quoted message revoked: every reply forgets its words, and both sides hear of it.
        _ = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: conv, clientMsgId: "long"))
        let after = try quoteOf("r1", in: try await b.history(conv).messages)
        #expect(after.quote.revoked && after.quote.text == nil && after.text == "好")
        for api in [a, b] {
            #expect(try await updates(api, of: "r1").last.flatMap { QuotePayload(jsonText: $0.content) }?.quote.revoked == true)
            #expect(!(try await api.get("/chat/sync?since=0").text.contains(String(repeating: "长", count: 20))), "nor any log")
        }
        #expect(try await reply(b, conv, "还能回吗", to: "long").status == 400, "a revoked message cannot be quoted")
        // A reply is edited like a text; it keeps its quote whatever the edit says of it.
        let sneaky = QuotePayload(text: "好（改）", quote: .init(clientMsgID: "long", text: "换个说法")).jsonText
        let edited = try await edit(b, conv, "r1", sneaky)
        #expect(edited.status == 200, "\(edited.text)")
        let kept = try #require(QuotePayload(jsonText: try edited.decode(WireMessage.self).content))
        #expect(kept.text == "好（改）" && kept.quote.revoked && kept.quote.text == nil)
        #expect(try await edit(b, conv, "r1", QuotePayload(text: "换引用", quote: .init(clientMsgID: "pic")).jsonText).status == 400)
        // A reply is an ordinary message: it is the list's newest, with a seq of its own.
        let last = try #require(try await a.summary(conv)?.lastMessage)
        #expect(last.clientMsgID == "r2" && last.contentType == ContentType.quote && last.seq == 4)
    }

    @Test func favouritesOutliveLeavingAndGoWhenRevoked() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2)
        let (owner, _) = users[0], (b, ub) = users[1]
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (9, 9, 9) }
        let key = try await owner.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await owner.sendCustom(g.conversationId, ["type": "image", "objectKey": key], id: "pic")
        _ = try await owner.sendText(g.conversationId, "值得收藏的一句话", id: "words")
        let add = { (id: String) in try await b.post("/favorite/add", FavoriteAddRequest(conversationId: g.conversationId, clientMsgId: id)) }
        let first = try await add("pic")
        #expect(first.status == 201, "\(first.text)")
        let kept = try first.decode(Favorite.self)
        #expect(kept.conversationName == g.name && kept.message.clientMsgID == "pic")
        #expect(try await add("pic").decode(Favorite.self).favoriteId == kept.favoriteId, "keeping it again is the same copy")
        #expect(try await add("words").status == 201)
        #expect(try await add("nope").status == 404)
        let (outsider, _) = try await server.user()
        #expect(try await outsider.post("/favorite/add", FavoriteAddRequest(conversationId: g.conversationId, clientMsgId: "words")).status == 403)

        // Newest first, paged.
        let page = try await b.get("/favorite/list?limit=1").decode(FavoriteListResponse.self)
        #expect(page.favorites.map(\.message.clientMsgID) == ["words"] && page.hasMore)
        let rest = try await b.get("/favorite/list?limit=10&before=\(page.favorites[0].favoriteId)").decode(FavoriteListResponse.self)
        #expect(rest.favorites.map(\.message.clientMsgID) == ["pic"] && !rest.hasMore)

        // B leaves the group: the favourites stay, and the picture stays readable for B.
        #expect(try await b.leave(g.groupId).status == 204)
        #expect(try await b.get("/favorite/list").decode(FavoriteListResponse.self).favorites.count == 2)
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] != nil)

        // The sender revokes the words: every copy of them goes.
        #expect(try await owner.post("/chat/message/revoke", RevokeRequest(conversationId: g.conversationId, clientMsgId: "words")).status == 200)
        #expect(try await b.get("/favorite/list").decode(FavoriteListResponse.self).favorites.map(\.message.clientMsgID) == ["pic"])
        #expect(try await outsider.post("/favorite/remove", FavoriteRemoveRequest(favoriteId: kept.favoriteId)).status == 404,
                "only the owner removes it")
        #expect(try await b.post("/favorite/remove", FavoriteRemoveRequest(favoriteId: kept.favoriteId)).status == 204)
        #expect(try await b.get("/favorite/list").decode(FavoriteListResponse.self).favorites.isEmpty)
        _ = ub
    }

    @Test func flashImagesAreNotKept() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let conv = conversationId(ua, ub)
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (1, 2, 3) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await a.sendCustom(conv, ["type": "flash_image", "objectKey": key], id: "flash")
        #expect(try await b.post("/favorite/add", FavoriteAddRequest(conversationId: conv, clientMsgId: "flash")).status == 400)
        // The sender deletes it for themselves; the receiver's viewing it is not news to the sender's devices.
        #expect(try await a.post("/chat/message/delete", DeleteMessagesRequest(conversationId: conv, clientMsgIds: ["flash"])).status == 204)
        #expect(try await b.sendCustom(conv, ["type": "flash_viewed", "msgId": "flash"]).status == 200)
        #expect(try await updates(a, of: "flash").allSatisfy { $0.deletedForMe == true })
        #expect(try await updates(b, of: "flash").last?.flashViewed == true)
    }

    @Test func mergedForwardsHoldTheServersCopiesAndTheirPictures() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, uc) = try await server.user()
        let ab = conversationId(ua, ub), bc = conversationId(ub, uc)
        _ = try await a.sendText(ab, "第一句", id: "one")
        let png = SampleMedia.png(width: 2, height: 2) { _, _ in (5, 5, 5) }
        let key = try await a.upload(png, type: "image/png").decode(UploadResponse.self).objectKey
        _ = try await a.sendCustom(ab, ["type": "image", "objectKey": key], id: "pic")
        _ = try await a.sendCustom(ab, ["type": "flash_image", "objectKey": key], id: "flash")
        func merged(_ items: [(String, String)], title: String = "A 和 B 的聊天记录", id: String = UUID().uuidString) async throws -> Reply {
            let p = MergedPayload(title: title, items: items.map { .init(conversationId: $0.0, clientMsgID: $0.1, content: "伪造的话") })
            return try await b.post("/chat/message/send", SendMessageRequest(recvID: bc, content: p.jsonText,
                                                                             contentType: ContentType.merged, clientMsgId: id))
        }
        let r = try await merged([(ab, "one"), (ab, "pic")], id: "rec")
        #expect(r.status == 200, "\(r.text)")
        let got = try #require(try await c.history(bc).messages.first { $0.clientMsgID == "rec" })
        let record = try #require(MergedPayload(jsonText: got.content))
        #expect(record.items.map(\.content).first == "第一句", "the server's copy, not what the client said")
        #expect(record.items.allSatisfy { $0.sendID == ua.imUid && $0.senderName != nil && $0.sendTime != nil })
        // The picture inside may be read by the chat it went to.
        #expect(try await c.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] != nil)

        #expect(try await merged([(ab, "one"), (ab, "one")]).status == 400, "the same message twice")
        // A record of a record: forwarded by someone who is not in the first chat, it arrives whole.
        let again = MergedPayload(title: "转一下", items: [.init(conversationId: bc, clientMsgID: "rec")])
        let nested = try await c.post("/chat/message/send", SendMessageRequest(recvID: bc, content: again.jsonText,
                                                                               contentType: ContentType.merged, clientMsgId: "rec2"))
        #expect(nested.status == 200, "\(nested.text)")
        let rec2 = try #require(try await b.history(bc).messages.first { $0.clientMsgID == "rec2" })
        let inner = try #require(MergedPayload(jsonText: rec2.content)?.items.first?.content)
        #expect(MergedPayload(jsonText: inner)?.items.first?.content == "第一句")
        #expect(try await merged([]).status == 400)
        #expect(try await merged(Array(repeating: (ab, "one"), count: 101)).status == 400)
        #expect(try await merged([(ab, "flash")]).status == 400, "no flash images")
        #expect(try await merged([(ab, "nope")]).status == 400)
        let (d, ud) = try await server.user()
        _ = try await d.sendText(conversationId(ud, ua), "别人的", id: "theirs")
        #expect(try await merged([(conversationId(ud, ua), "theirs")]).status == 403, "a conversation the sender is not in")
        _ = try await a.post("/chat/message/revoke", RevokeRequest(conversationId: ab, clientMsgId: "one"))
        #expect(try await merged([(ab, "one")]).status == 400, "a revoked message")
    }

    @Test func inAGroupOnlyMembersActAndMentionsAreChecked() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3)
        let (owner, _) = users[0], (b, ub) = users[1], (c, uc) = users[2]
        _ = try await owner.mention(g.conversationId, "@B 开会", at: [ub.imUid], id: "m")
        #expect(try await c.summary(g.conversationId)?.mentionSeq == 0)
        #expect(try await react(b, g.conversationId, "m", "🙏").status == 200)
        #expect(try await updates(c, of: "m").last?.reactions?.users(of: "🙏") == [ub.imUid], "every member hears of it")

        // An edit that names someone outside the group is refused; naming a member is fine.
        let outsider = try await server.user().1
        #expect(try await edit(owner, g.conversationId, "m",
                               MentionPayload(text: "@x", atUserIDs: [outsider.imUid]).jsonText).status == 400)
        let named = try await edit(owner, g.conversationId, "m", MentionPayload(text: "@C 开会", atUserIDs: [uc.imUid]).jsonText)
        #expect(named.status == 200, "\(named.text)")
        let m = try #require(try await c.syncEvents().compactMap { if case .message(let w) = $0, w.clientMsgID == "m" { w } else { nil } }.first)
        #expect(try await c.summary(g.conversationId)?.mentionSeq == m.seq, "named by the edit, C is mentioned at the message's seq")

        // A reply that names someone mentions them, as a 106 message would.
        let reply = try await reply(b, g.conversationId, "@C 你呢", to: "m", id: "rm", at: [uc.imUid])
        #expect(reply.status == 200, "\(reply.text)")
        let rm = try #require(try await c.syncEvents().compactMap { if case .message(let w) = $0, w.clientMsgID == "rm" { w } else { nil } }.first)
        #expect(try await c.summary(g.conversationId)?.mentionSeq == rm.seq)
        #expect(try await self.reply(b, g.conversationId, "@外人", to: "m", at: [outsider.imUid]).status == 400)

        // A kicked member acts on nothing any more.
        _ = try await owner.kick(g.groupId, uc)
        #expect(try await react(c, g.conversationId, "m", "👍").status == 403)
    }
}
