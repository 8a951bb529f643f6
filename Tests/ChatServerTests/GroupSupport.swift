import ChatCore
import Foundation
@testable import ChatServer

extension API {
    func createGroup(_ name: String, unique: String, members: [AuthResponse] = [], notice: String? = nil) async throws -> Reply {
        try await post("/group/create", CreateGroupRequest(name: name, uniqueName: unique, memberIds: members.map(\.uid), notice: notice))
    }
    func group(_ gid: Int) async throws -> Reply { try await get("/group/info?group_id=\(gid)") }
    func members(_ gid: Int, query: String = "") async throws -> Reply { try await get("/group/members?group_id=\(gid)\(query)") }
    func join(_ unique: String) async throws -> Reply { try await post("/group/join", JoinGroupRequest(uniqueName: unique)) }
    func invite(_ gid: Int, _ users: [AuthResponse]) async throws -> Reply {
        try await post("/group/invite", InviteRequest(groupId: gid, userIds: users.map(\.uid)))
    }
    func leave(_ gid: Int) async throws -> Reply { try await post("/group/leave", GroupIdRequest(groupId: gid)) }
    func kick(_ gid: Int, _ user: AuthResponse) async throws -> Reply { try await post("/group/kick", KickRequest(groupId: gid, userId: user.uid)) }
    func mention(_ conversation: String, _ text: String, at users: [String], all: Bool = false,
                 id: String = UUID().uuidString) async throws -> Reply {
        try await post("/chat/message/send", SendMessageRequest(
            recvID: conversation, content: MentionPayload(text: text, atUserIDs: users, atAll: all).jsonText,
            contentType: ContentType.mention, clientMsgId: id))
    }
    func conversations() async throws -> [ConversationSummary] {
        try await get("/chat/conversations").decode([ConversationSummary].self)
    }
    func summary(_ conversation: String) async throws -> ConversationSummary? {
        try await conversations().first { $0.conversationId == conversation }
    }
    func syncEvents(since: Int = 0) async throws -> [SyncEvent] {
        try await get("/chat/sync?since=\(since)&limit=1000").decode(SyncResponse.self).events
    }
}

/// A group made by the first of `users` with the rest in it.
func makeGroup(_ server: TestServer, size: Int, unique: String = "g\(Int.random(in: 0..<1_000_000_000))")
    async throws -> (GroupInfo, [(API, AuthResponse)]) {
    var users: [(API, AuthResponse)] = []
    for _ in 0..<size { users.append(try await server.user()) }
    let r = try await users[0].0.createGroup("测试群 🏔", unique: unique, members: users.dropFirst().map(\.1))
    guard r.status == 201 else { throw GroupTestError(text: "create: \(r.status) \(r.text)") }
    return (try r.decode(GroupInfo.self), users)
}

struct GroupTestError: Error { let text: String }

extension WireMessage {
    var notice: GroupNoticePayload? { GroupNoticePayload(contentType: contentType, jsonText: content) }
}
