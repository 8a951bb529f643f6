import ChatCore
import Foundation
import Testing
@testable import ChatServer

extension API {
    func createRoom(_ name: String, unique: String, topic: String? = nil) async throws -> Reply {
        try await post("/room/create", CreateRoomRequest(name: name, uniqueName: unique, topic: topic))
    }
    func enterRoom(_ unique: String) async throws -> Reply { try await post("/room/enter", EnterRoomRequest(uniqueName: unique)) }
    func leaveRoom(_ rid: Int) async throws -> Reply { try await post("/room/leave", RoomIdRequest(roomId: rid)) }
}

/// A room's message or notice a socket was pushed.
func roomMessage(_ frame: PushFrame) -> WireMessage? { if case .room(let m) = frame { m } else { nil } }

/// PROTOCOL.md v3 "Rooms" on whichever backend the suite runs on.
@Suite struct RoomTests {
    /// A user online (a socket open), as rooms want them.
    func online(_ server: TestServer, _ name: String = "r\(Int.random(in: 0..<1_000_000_000))") async throws
        -> (API, AuthResponse, WSProbe) {
        let (api, auth) = try await server.user(name)
        return (api, auth, try await WSProbe.open(port: server.port, token: auth.token))
    }

    @Test func usersEnterTalkAndLeaveAndNothingOfItIsLogged() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua, aSocket) = try await online(server)
        let (b, ub, bSocket) = try await online(server)
        let (c, _) = try await server.user()
        defer { Task { await aSocket.close(); await bSocket.close() } }
        let unique = "lobby_\(Int.random(in: 0..<1_000_000))"
        #expect(try await c.createRoom("没连上", unique: unique + "x").status == 409, "offline users make no rooms")
        let created = try await a.createRoom("大厅 🏮", unique: unique, topic: "随便聊")
        #expect(created.status == 201)
        let room = try created.decode(RoomInfo.self)
        #expect(room.presentCount == 1 && room.conversationId == "sr_\(room.roomId)" && room.ownerId == ConversationIDHelper.imUid(ua.uid))

        let entered = try await b.enterRoom(unique).decode(EnterRoomResponse.self)
        #expect(Set(entered.present.map(\.uid)) == [ua.uid, ub.uid])
        #expect(entered.messages.map(\.contentType) == [ContentType.roomEntered, ContentType.roomEntered])
        let heard = await aSocket.wait {
            roomMessage($0)?.contentType == ContentType.roomEntered && roomMessage($0)?.sendID == ConversationIDHelper.imUid(ub.uid)
        }
        #expect(heard != nil, "a hears b come in")
        #expect(await aSocket.wait { if case .roomInfo(let r) = $0 { r.presentCount == 2 } else { false } } != nil)

        #expect(try await b.sendText(room.conversationId, "大家好", id: "hello-room").status == 200)
        let said = await aSocket.wait { roomMessage($0)?.clientMsgID == "hello-room" }
        #expect(roomMessage(said!)?.content == "大家好" && roomMessage(said!)?.seq == 3, "pushed whole, with its seq")
        #expect(try await c.sendText(room.conversationId, "我也要说").status == 403, "only those present speak")
        #expect(try await c.get("/chat/messages?conversation_id=\(room.conversationId)").status == 403)
        let history = try await a.history(room.conversationId)
        #expect(history.messages.map(\.seq) == [1, 2, 3])

        // Rooms are in nobody's log, list or unread count.
        for api in [a, b] {
            let events = try await api.syncEvents()
            #expect(!events.contains { if case .message(let m) = $0 { m.conversationId == room.conversationId } else { false } })
            #expect(try await api.summary(room.conversationId) == nil)
        }

        // Reactions and revokes reach those present as room_update.
        #expect(try await a.post("/chat/message/react", ReactRequest(conversationId: room.conversationId, clientMsgId: "hello-room",
                                                                     emoji: "👍", on: true)).status == 200)
        let reacted = await bSocket.wait { if case .roomUpdate(let m) = $0 { m.reactions != nil } else { false } }
        #expect(reacted != nil)
        #expect(try await b.post("/chat/message/revoke", RevokeRequest(conversationId: room.conversationId,
                                                                       clientMsgId: "hello-room")).status == 200)
        #expect(await aSocket.wait { if case .roomUpdate(let m) = $0 { m.revoked } else { false } } != nil)
        #expect(await aSocket.wait { roomMessage($0)?.contentType == ContentType.revokeNotice } != nil)

        let before = aSocket.count
        #expect(try await b.leaveRoom(room.roomId).status == 204)
        #expect(await aSocket.wait(after: before) { roomMessage($0)?.contentType == ContentType.roomLeft } != nil)
        let listed = try await a.get("/room/list?q=大厅").decode([RoomInfo].self)
        #expect(listed.map(\.roomId) == [room.roomId] && listed.first?.presentCount == 1)
        #expect(try await b.sendText(room.conversationId, "走了还说").status == 403)
    }

    @Test func theOwnerRemovesBansUnbansAndDrops() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (owner, _, ownerSocket) = try await online(server)
        let (guest, ug, guestSocket) = try await online(server)
        defer { Task { await ownerSocket.close(); await guestSocket.close() } }
        let unique = "owned_\(Int.random(in: 0..<1_000_000))"
        let room = try await owner.createRoom("主人的房间", unique: unique).decode(RoomInfo.self)
        #expect(try await guest.enterRoom(unique).status == 200)
        #expect(try await guest.post("/room/kick", RoomKickRequest(roomId: room.roomId, userId: ug.uid)).status == 400)
        #expect(try await guest.post("/room/update", UpdateRoomRequest(roomId: room.roomId, topic: "我来改")).status == 403)
        let changed = try await owner.post("/room/update", UpdateRoomRequest(roomId: room.roomId, topic: "新话题"))
        #expect(try changed.decode(RoomInfo.self).topic == "新话题")
        #expect(await guestSocket.wait { roomMessage($0)?.contentType == ContentType.roomChanged } != nil)

        #expect(try await owner.post("/room/kick", RoomKickRequest(roomId: room.roomId, userId: ug.uid, ban: true)).status == 204)
        #expect(await guestSocket.wait { roomMessage($0)?.contentType == ContentType.roomKicked } != nil, "the removed hear it")
        #expect(try await guest.enterRoom(unique).status == 403, "banned")
        #expect(try await owner.get("/room/bans?room_id=\(room.roomId)").decode([UserBasicInfo].self).map(\.uid) == [ug.uid])
        #expect(try await owner.post("/room/unban", RoomUserRequest(roomId: room.roomId, userId: ug.uid)).status == 204)
        #expect(try await guest.enterRoom(unique).status == 200)

        #expect(try await owner.post("/room/drop", RoomIdRequest(roomId: room.roomId)).status == 204)
        #expect(await guestSocket.wait { roomMessage($0)?.contentType == ContentType.roomDropped } != nil)
        #expect(try await guest.get("/room/lookup?unique_name=\(unique)").status == 404)
        #expect(try await owner.createRoom("又一个", unique: unique).status == 201, "the name is free again")
    }

    @Test func closingTheLastSocketLeavesEveryRoom() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, _, aSocket) = try await online(server)
        let (b, ub, bSocket) = try await online(server)
        defer { Task { await aSocket.close() } }
        let unique = "offline_\(Int.random(in: 0..<1_000_000))"
        let room = try await a.createRoom("掉线就走", unique: unique).decode(RoomInfo.self)
        #expect(try await b.enterRoom(unique).status == 200)
        await bSocket.close()
        let left = await aSocket.wait { roomMessage($0)?.contentType == ContentType.roomLeft }
        #expect(roomMessage(left!)?.sendID == ConversationIDHelper.imUid(ub.uid), "offline is left")
        #expect(try await a.get("/room/present?room_id=\(room.roomId)").decode([UserBasicInfo].self).count == 1)
        #expect(try await b.enterRoom(unique).status == 409, "and entering wants a socket again")
    }

    @Test func roomsRefuseWhatIsForSingleChatsAndMentionOnlyThosePresent() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, _, aSocket) = try await online(server)
        let (b, ub, bSocket) = try await online(server)
        let (_, outsider) = try await server.user()
        defer { Task { await aSocket.close(); await bSocket.close() } }
        let unique = "rules_\(Int.random(in: 0..<1_000_000))"
        let room = try await a.createRoom("规矩", unique: unique).decode(RoomInfo.self)
        #expect(try await b.enterRoom(unique).status == 200)
        #expect(try await a.sendCustom(room.conversationId, ["type": "flash_image", "objectKey": "x", "url": "", "expireAt": 0]).status == 400)
        #expect(try await a.mention(room.conversationId, "@b 在吗", at: [ConversationIDHelper.imUid(ub.uid)]).status == 200)
        #expect(try await a.mention(room.conversationId, "@谁", at: [ConversationIDHelper.imUid(outsider.uid)]).status == 400)
        #expect(try await a.post("/chat/conversation/pin", PinRequest(conversationId: room.conversationId, isPinned: true)).status == 400)

        // Notices are nobody's to revoke or react to.
        let entered = try await b.enterRoom(unique).decode(EnterRoomResponse.self)
        let notice = try #require(entered.messages.first { $0.contentType == ContentType.roomEntered && $0.sendID == ConversationIDHelper.imUid(ub.uid) })
        #expect(try await b.post("/chat/message/revoke", RevokeRequest(conversationId: room.conversationId,
                                                                       clientMsgId: notice.clientMsgID)).status == 400)
        #expect(try await b.post("/chat/message/react", ReactRequest(conversationId: room.conversationId, clientMsgId: notice.clientMsgID,
                                                                     emoji: "👍", on: true)).status == 400)

        // A picture said in the room: everyone there may read it, nobody else.
        let key = try await a.upload(SampleMedia.png(width: 4, height: 4) { _, _ in (1, 2, 3) }, type: "image/png")
            .decode(UploadResponse.self).objectKey
        #expect(try await a.sendCustom(room.conversationId, ["type": "image", "objectKey": key, "url": "", "expireAt": 0]).status == 200)
        #expect(try await b.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] != nil)
        let (stranger, _) = try await server.user()
        #expect(try await stranger.post("/media/sign", SignRequest(objectKeys: [key])).decode(SignResponse.self).urls[key] == nil)
    }

    /// `--demo` has a room to find: in the directory with its topic and
    /// nobody in it, and on entering the newest of what was said there,
    /// comings and goings included. Seeded once, also into older demo data.
    @Test func theDemoHasARoomToFindAndEnter() async throws {
        func signIn(_ server: TestServer) async throws -> (API, AuthResponse) {
            let login = try await server.anonymous.post("/auth/login", LoginRequest(account: "me", password: DemoSeeder.password))
            let me = try login.decode(AuthResponse.self)
            return (API(base: server.base, token: me.token), me)
        }
        let server = try await TestServer.start { $0.demo = true }
        defer { Task { await server.stop() } }
        let (api, me) = try await signIn(server)
        let socket = try await WSProbe.open(port: server.port, token: me.token)
        defer { Task { await socket.close() } }
        let listed = try await api.get("/room/list?q=").decode([RoomInfo].self)
        let lobby = try #require(listed.first { $0.uniqueName == DemoSeeder.roomUniqueName })
        #expect(lobby.name == "同伴大厅" && lobby.presentCount == 0 && lobby.topic.hasPrefix("演示房间"))

        // What the chat shows: who came, said what, and left, in order, before me.
        let entered = try await api.enterRoom(DemoSeeder.roomUniqueName).decode(EnterRoomResponse.self)
        #expect(entered.present.map(\.uid) == [me.uid])
        let notices = entered.messages.compactMap { GroupNoticePayload(contentType: $0.contentType, jsonText: $0.content) }
        let names = notices.reduce(into: [String: String]()) { names, n in names.merge(n.userNames) { a, _ in a } }
        let zh = Localizer(language: .zhHans)
        let lines = entered.messages.map { m in
            GroupNoticePayload(contentType: m.contentType, jsonText: m.content)?.sentence(me: nil, zh)
                ?? (names[m.sendID] ?? m.sendID) + "：" + m.content
        }
        #expect(lines == [
            "Alice 爱丽丝 进入房间", "Alice 爱丽丝：欢迎来到同伴大厅！房间没有未读，离线就算离开",
            "Bob 鲍勃 进入房间", "Bob 鲍勃：原来终端里也有聊天室 😄",
            "Carol 卡罗尔 进入房间", "Carol 卡罗尔：大家好，我路过看看", "Carol 卡罗尔 离开房间",
            "Alice 爱丽丝：按 , 可以看房间信息和在场的人", "Bob 鲍勃 离开房间", "Alice 爱丽丝 离开房间", "我 进入房间",
        ])
        #expect(entered.messages.map(\.seq) == Array(1...11))
        #expect(entered.messages.map(\.sendTime) == entered.messages.map(\.sendTime).sorted())
        #expect(entered.messages.last?.sendID == ConversationIDHelper.imUid(me.uid))

        // Started again on the same data: the same lobby, not a second one
        // (which the unique name would refuse, failing the start).
        let dir = server.dir, database = server.config.databaseURL
        await server.stop()
        let again = try await TestServer.start(dir: dir, database: database) { $0.demo = true }
        defer { Task { await again.stop() } }
        let rooms = try await signIn(again).0.get("/room/list?q=").decode([RoomInfo].self)
        #expect(rooms.filter { $0.name == "同伴大厅" }.map(\.roomId) == [lobby.roomId])
    }
}
