import ChatCore
import Foundation

/// People (PROTOCOL.md v3 "People"): profiles, settings, friends, blocks,
/// devices, and the password (v4).
extension APIClient {
    public func updateProfile(_ request: UpdateProfileRequest) async throws -> UserBasicInfo {
        try await json(UserBasicInfo.self, .POST, "/user/profile/update", body: request)
    }

    public func settings() async throws -> UserSettings { try await json(UserSettings.self, .GET, "/user/settings") }

    public func setSettings(_ change: SettingsChange) async throws -> UserSettings {
        try await json(UserSettings.self, .POST, "/user/settings", body: change)
    }

    public func requestFriend(userId: Int, message: String?) async throws -> FriendRequest {
        try await json(FriendRequest.self, .POST, "/friend/request", body: FriendRequestBody(userId: userId, message: message))
    }

    public func friendRequests() async throws -> FriendRequestsResponse {
        try await json(FriendRequestsResponse.self, .GET, "/friend/requests")
    }

    public func respondFriend(requestId: Int, accept: Bool) async throws -> FriendRequest {
        try await json(FriendRequest.self, .POST, "/friend/respond", body: FriendRespondRequest(requestId: requestId, accept: accept))
    }

    public func friends() async throws -> [Contact] { try await json([Contact].self, .GET, "/friend/list") }

    public func removeFriend(userId: Int) async throws {
        try await noContent(.POST, "/friend/remove", body: UserIdRequest(userId: userId))
    }

    public func remark(userId: Int, remark: String) async throws -> Contact {
        try await json(Contact.self, .POST, "/friend/remark", body: RemarkRequest(userId: userId, remark: remark))
    }

    public func block(userId: Int) async throws { try await noContent(.POST, "/block/add", body: UserIdRequest(userId: userId)) }
    public func unblock(userId: Int) async throws { try await noContent(.POST, "/block/remove", body: UserIdRequest(userId: userId)) }
    public func blocked() async throws -> [UserBasicInfo] { try await json([UserBasicInfo].self, .GET, "/block/list") }
    public func sessions() async throws -> [SessionInfo] { try await json([SessionInfo].self, .GET, "/auth/sessions") }

    public func revokeSession(_ sessionId: String) async throws {
        try await noContent(.POST, "/auth/sessions/revoke", body: RevokeSessionRequest(sessionId: sessionId))
    }

    /// v4: a wrong current password is a 401 too, so this call's 401 does
    /// not end the login by itself (`Session.changePassword` asks again).
    public func changePassword(old: String, new: String) async throws {
        let body = try JSONEncoder().encode(ChangePasswordRequest(old: old, new: new))
        _ = try await call(.POST, "/auth/password", body: body, tokenRefusedOn401: false)
    }
}
