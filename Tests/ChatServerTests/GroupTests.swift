import ChatCore
import Foundation
import Testing
@testable import ChatServer

/// Groups: creating, finding, joining, inviting, leaving, kicking, editing,
/// and who may do each (PROTOCOL.md "Groups").
@Suite(.serialized) struct GroupTests {
    @Test func createShowsTheGroupToEveryMemberWithACreatedNotice() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3, unique: "hike_club")
        let (owner, uo) = users[0]
        #expect(g.conversationId == "sg_\(g.groupId)")
        #expect(g.memberCount == 3 && g.ownerId == uo.imUid && g.joinable && g.name == "测试群 🏔")

        for (api, _) in users {
            let s = try #require(try await api.summary(g.conversationId))
            #expect(s.groupId == g.groupId && s.memberCount == 3 && s.isMember == true && s.userId == "")
            #expect(s.showName == "测试群 🏔")
            #expect(s.unreadCount == 0, "notices are not unread")
            let history = try await api.history(g.conversationId).messages
            #expect(history.map(\.contentType) == [ContentType.groupCreated])
            let notice = try #require(history.first?.notice)
            #expect(notice.opUser == uo.imUid && Set(notice.users) == Set(users.dropFirst().map(\.1.imUid)))
            #expect(notice.userNames[uo.imUid] == uo.username)
            #expect(try await api.syncEvents().contains { if case .group(let i) = $0 { i.groupId == g.groupId } else { false } })
        }
        #expect(try await owner.createGroup("again", unique: "hike_club").status == 409, "unique names are unique")
        #expect(try await owner.createGroup("", unique: "other_name").status == 400)
        #expect(try await owner.createGroup("x", unique: "No Caps").status == 400)
        #expect(try await owner.post("/group/create", CreateGroupRequest(name: "x", uniqueName: "ghosts", memberIds: [999_999])).status == 404)
        #expect(try await owner.createGroup("x", unique: "notice_long", notice: String(repeating: "长", count: 501)).status == 413)
    }

    @Test func joinByNameSeesHistoryOnlyFromJoiningAndLookupHonoursJoinable() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2, unique: "open_door")
        let (owner, _) = users[0]
        #expect(try await owner.sendText(g.conversationId, "before you came").status == 200)
        let (late, ul) = try await server.user()

        #expect(try await late.get("/group/lookup?unique_name=open_door").decode(GroupInfo.self).groupId == g.groupId)
        #expect(try await late.get("/group/lookup?unique_name=nobody_here").status == 404)
        #expect(try await late.get("/chat/messages?conversation_id=\(g.conversationId)").status == 403, "not a member yet")

        let joined = try await late.join("open_door")
        #expect(joined.status == 200)
        let summary = try joined.decode(ConversationSummary.self)
        #expect(summary.isMember == true && summary.memberCount == 3)
        let seen = try await late.history(g.conversationId).messages
        #expect(seen.map(\.contentType) == [ContentType.memberJoined], "history starts at the join notice")
        #expect(seen.first?.notice?.users == [ul.imUid])
        #expect(try await late.join("open_door").status == 200, "joining twice is a no-op")
        #expect(try await owner.history(g.conversationId).messages.count == 3)

        let closed = try await owner.post("/group/update", UpdateGroupRequest(groupId: g.groupId, joinable: false))
        #expect(try closed.decode(GroupInfo.self).joinable == false)
        let (stranger, _) = try await server.user()
        #expect(try await stranger.get("/group/lookup?unique_name=open_door").status == 404)
        #expect(try await stranger.join("open_door").status == 403)
        #expect(try await stranger.join("no_such_group").status == 404)
    }

    @Test func everyEndpointRefusesNonMembers() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, _) = try await makeGroup(server, size: 2)
        let (outsider, uo) = try await server.user()
        let id = g.conversationId
        #expect(try await outsider.group(g.groupId).status == 403)
        #expect(try await outsider.members(g.groupId).status == 403)
        #expect(try await outsider.sendText(id, "hi").status == 403)
        #expect(try await outsider.get("/chat/messages?conversation_id=\(id)").status == 403)
        #expect(try await outsider.post("/chat/conversation/read", ReadRequest(conversationId: id, seq: 1)).status == 403)
        #expect(try await outsider.post("/chat/conversation/pin", PinRequest(conversationId: id, isPinned: true)).status == 403)
        #expect(try await outsider.post("/chat/conversation/mute", MuteRequest(conversationId: id, isMuted: true)).status == 403)
        #expect(try await outsider.post("/chat/message/revoke", RevokeRequest(conversationId: id, clientMsgId: "x")).status == 403)
        #expect(try await outsider.post("/chat/message/react", ReactRequest(conversationId: id, clientMsgId: "x", emoji: "👍", on: true)).status == 403)
        #expect(try await outsider.post("/chat/message/edit", EditRequest(conversationId: id, clientMsgId: "x", content: "x")).status == 403)
        #expect(try await outsider.post("/chat/message/delete", DeleteMessagesRequest(conversationId: id, clientMsgIds: ["x"])).status == 403)
        #expect(try await outsider.invite(g.groupId, [uo]).status == 403)
        #expect(try await outsider.leave(g.groupId).status == 403)
        #expect(try await outsider.group(987_654).status == 404)
        #expect(try await outsider.get("/chat/messages?conversation_id=sg_0").status == 400, "sg_0 is not a group id")
    }

    @Test func inviteAddsMembersAndTellsEveryone() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2)
        let (member, um) = users[1]
        let (c, uc) = try await server.user()
        let (d, ud) = try await server.user()
        let invited = try await member.invite(g.groupId, [uc, ud, uc])
        #expect(try invited.decode(GroupInfo.self).memberCount == 4, "any member may invite; duplicates count once")
        for api in [c, d] {
            let history = try await api.history(g.conversationId).messages
            #expect(history.map(\.contentType) == [ContentType.memberInvited])
            #expect(history.first?.notice?.opUser == um.imUid)
            #expect(try await api.summary(g.conversationId)?.isMember == true)
        }
        #expect(try await member.invite(g.groupId, [uc]).decode(GroupInfo.self).memberCount == 4, "already in: nothing new")
        #expect(try await member.history(g.conversationId).messages.count == 2, "and no second notice")
        #expect(try await member.post("/group/invite", InviteRequest(groupId: g.groupId, userIds: [424_242])).status == 404)
        #expect(try await member.post("/group/invite", InviteRequest(groupId: g.groupId, userIds: [])).status == 400)
        let page = try await c.members(g.groupId, query: "&limit=2").decode(GroupMembersResponse.self)
        #expect(page.members.count == 2 && page.hasMore)
        let rest = try await c.members(g.groupId, query: "&after=\(page.members[1].uid)").decode(GroupMembersResponse.self)
        #expect(Set((page.members + rest.members).map(\.uid)) == Set([users[0].1.uid, um.uid, uc.uid, ud.uid]))
        #expect((page.members + rest.members).filter(\.isOwner).map(\.uid) == [users[0].1.uid])
    }

    @Test func aGroupIsFullAtItsLimit() async throws {
        let server = try await TestServer.start { $0.maxGroupMembers = 3 }
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3)
        let (extra, ue) = try await server.user()
        #expect(try await users[0].0.invite(g.groupId, [ue]).status == 400)
        #expect(try await extra.join(try await users[0].0.group(g.groupId).decode(GroupInfo.self).uniqueName).status == 400)
    }

    @Test func leavingKeepsWhatWasSeenStopsWhatComesAndHandsOverOwnership() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3, unique: "short_lived")
        let (owner, uo) = users[0], (b, ub) = users[1], (c, uc) = users[2]
        _ = try await b.sendText(g.conversationId, "hello")
        #expect(try await owner.leave(g.groupId).status == 204)
        _ = try await b.sendText(g.conversationId, "after the owner left")

        let gone = try await owner.history(g.conversationId).messages
        #expect(gone.map(\.contentType) == [ContentType.groupCreated, ContentType.text, ContentType.memberLeft],
                "the leaver keeps history up to their own notice")
        let summary = try #require(try await owner.summary(g.conversationId))
        #expect(summary.isMember == false)
        #expect(summary.unreadCount == 1, "b's hello, not what came after leaving")
        #expect(try await owner.sendText(g.conversationId, "still here?").status == 403)
        #expect(try await owner.group(g.groupId).status == 403)

        let info = try await b.group(g.groupId).decode(GroupInfo.self)
        #expect(info.ownerId == ub.imUid, "the earliest joined member inherits")
        #expect(info.memberCount == 2)
        let seenByB = try await b.history(g.conversationId).messages.map(\.contentType)
        #expect(seenByB.suffix(3) == [ContentType.memberLeft, ContentType.ownerChanged, ContentType.text])
        #expect(try await owner.syncEvents().contains { if case .group(let i) = $0 { i.ownerId == ub.imUid } else { false } })
        _ = uo

        #expect(try await c.leave(g.groupId).status == 204)
        #expect(try await b.leave(g.groupId).status == 204)
        #expect(try await b.group(g.groupId).status == 404, "the last one out dissolves the group")
        #expect(try await b.createGroup("reborn", unique: "short_lived").status == 201, "and frees its name")
        _ = uc
    }

    @Test func onlyTheOwnerKicksAndEditsAndTheKickedAreOut() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3)
        let (owner, uo) = users[0], (b, ub) = users[1], (c, uc) = users[2]
        #expect(try await b.kick(g.groupId, uc).status == 403)
        #expect(try await b.post("/group/update", UpdateGroupRequest(groupId: g.groupId, name: "mine")).status == 403)
        #expect(try await owner.kick(g.groupId, uo).status == 400)
        #expect(try await owner.kick(g.groupId, uc).status == 204)
        #expect(try await owner.kick(g.groupId, uc).status == 404, "no longer a member")
        #expect(try await c.sendText(g.conversationId, "let me back").status == 403)
        let kicked = try await c.history(g.conversationId).messages.last
        #expect(kicked?.contentType == ContentType.memberKicked && kicked?.notice?.users == [uc.imUid])
        #expect(try await c.summary(g.conversationId)?.isMember == false)

        let renamed = try await owner.post("/group/update", UpdateGroupRequest(groupId: g.groupId, name: "新名字", notice: "带伞"))
        #expect(try renamed.decode(GroupInfo.self).name == "新名字")
        let last = try #require(try await b.history(g.conversationId).messages.last)
        #expect(last.contentType == ContentType.groupInfoChanged && last.notice?.name == "新名字" && last.notice?.notice == "带伞")
        #expect(try await b.summary(g.conversationId)?.showName == "新名字")
        #expect(try await owner.post("/group/update", UpdateGroupRequest(groupId: g.groupId)).status == 400)
        #expect(try await owner.post("/group/update", UpdateGroupRequest(groupId: g.groupId, name: String(repeating: "x", count: 65))).status == 400)
        _ = ub
    }
}
