import ChatCore
import ChatSync

/// People (PROTOCOL.md v3), forwarded to the server like every other call.
extension FakeChatAPI {
    public func updateProfile(_ request: UpdateProfileRequest) async throws -> UserBasicInfo {
        try await call(.updateProfile) { try await $0.updateProfile(request) }
    }

    public func settings() async throws -> UserSettings { try await call(.settings) { try await $0.settings() } }

    public func setSettings(_ settings: UserSettings) async throws -> UserSettings {
        try await call(.setSettings) { try await $0.setSettings(settings) }
    }

    public func requestFriend(userId: Int, message: String?) async throws -> FriendRequest {
        try await call(.requestFriend) { try await $0.requestFriend(userId: userId, message: message) }
    }

    public func friendRequests() async throws -> FriendRequestsResponse {
        try await call(.friendRequests) { try await $0.friendRequests() }
    }

    public func respondFriend(requestId: Int, accept: Bool) async throws -> FriendRequest {
        try await call(.respondFriend) { try await $0.respondFriend(requestId: requestId, accept: accept) }
    }

    public func friends() async throws -> [Contact] { try await call(.friends) { try await $0.friends() } }
    public func removeFriend(userId: Int) async throws { try await call(.removeFriend) { try await $0.removeFriend(userId: userId) } }

    public func remark(userId: Int, remark: String) async throws -> Contact {
        try await call(.remark) { try await $0.remark(userId: userId, remark: remark) }
    }

    public func block(userId: Int) async throws { try await call(.block) { try await $0.block(userId: userId) } }
    public func unblock(userId: Int) async throws { try await call(.unblock) { try await $0.unblock(userId: userId) } }
    public func blocked() async throws -> [UserBasicInfo] { try await call(.blocked) { try await $0.blocked() } }
    public func sessions() async throws -> [SessionInfo] { try await call(.sessions) { try await $0.sessions() } }

    public func revokeSession(_ sessionId: String) async throws {
        try await call(.revokeSession) { try await $0.revokeSession(sessionId) }
    }

    public func changePassword(old: String, new: String) async throws {
        try await call(.changePassword) { try await $0.changePassword(old: old, new: new) }
    }
}
