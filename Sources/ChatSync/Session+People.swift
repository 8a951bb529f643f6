import ChatCore
import ChatStore
import Foundation

/// People (PROTOCOL.md v3): friends, requests, blocking, my profile and
/// settings, my devices. Each asks the server and stores what it answers,
/// as the other actions do; the sync engine's `contact` and
/// `friend_request` events keep the store in step from then on.
extension Session {
    /// The friend list and pending requests as the server has them now.
    public func refreshPeople() async throws {
        async let contacts = api.friends()
        async let requests = api.friendRequests()
        try store.savePeople(contacts: try await contacts, requests: try await requests)
    }

    /// The user with this account (exactly), as the server has them now;
    /// one known here is found by uid, and offline that is all there is.
    public func user(account: String) async throws -> UserBasicInfo? {
        let name = account.trimmingCharacters(in: .whitespaces).lowercased()
        if let cached = try store.profile(account: name) {
            do {
                return try await profile(cached.uid) ?? cached
            } catch let e as APIError where !e.isPermanent {
                return cached
            }
        }
        return try await api.searchUsers(name).first { $0.account == name }
    }

    public func requestFriend(_ user: UserBasicInfo, message: String?) async throws -> FriendRequest {
        let request = try await api.requestFriend(userId: user.uid, message: message)
        try store.saveFriendRequest(request)
        if request.status == .accepted { try await refreshPeople() }
        return request
    }

    public func respondFriend(_ requestId: Int, accept: Bool) async throws -> FriendRequest {
        let request = try await api.respondFriend(requestId: requestId, accept: accept)
        try store.saveFriendRequest(request)
        if accept { try await refreshPeople() }
        return request
    }

    public func removeFriend(_ contact: Contact) async throws {
        try await api.removeFriend(userId: contact.uid)
        try store.saveContact(contact, removed: true)
    }

    public func setRemark(_ remark: String, for uid: Int) async throws -> Contact {
        let contact = try await api.remark(userId: uid, remark: remark)
        try store.saveContact(contact)
        return contact
    }

    /// Blocks a user; a friendship with them ends.
    public func block(_ uid: Int) async throws {
        try await api.block(userId: uid)
        try await refreshPeople()
    }

    public func unblock(_ uid: Int) async throws { try await api.unblock(userId: uid) }

    /// Whom I blocked, most recent first (from the server).
    public func blocked() async throws -> [UserBasicInfo] { try await api.blocked() }

    /// Someone's profile as the server has it now, cached.
    public func profile(_ uid: Int) async throws -> UserBasicInfo? {
        guard let info = try await api.profiles([uid]).first else { return nil }
        try store.saveProfiles([info])
        return info
    }

    /// My profile as the server has it, cached.
    public func myProfile() async throws -> UserBasicInfo {
        let me = try await api.me()
        try store.saveProfiles([me])
        return me
    }

    /// Changes the fields given; the saved login follows a new name.
    public func updateProfile(_ request: UpdateProfileRequest) async throws -> UserBasicInfo {
        let info = try await api.updateProfile(request)
        try store.saveProfiles([info])
        if info.username != credentials.username {
            var saved = credentials
            saved.username = info.username
            try Session.save(saved, paths: paths)
        }
        return info
    }

    /// Uploads `jpeg` (already made small and stripped: `AvatarImage`); its objectKey.
    public func uploadAvatar(jpeg: Data) async throws -> String {
        try await api.upload(jpeg, contentType: "image/jpeg", kind: "chat_image").objectKey
    }

    /// Uploads `jpeg` and makes it my picture.
    public func setAvatar(jpeg: Data) async throws -> UserBasicInfo {
        try await updateProfile(UpdateProfileRequest(avatar: try await uploadAvatar(jpeg: jpeg)))
    }

    /// Pending requests both ways, from the server, stored.
    public func pendingRequests() async throws -> FriendRequestsResponse {
        let requests = try await api.friendRequests()
        try store.savePeople(contacts: try store.contacts(), requests: requests)
        return requests
    }

    public func settings() async throws -> UserSettings { try await api.settings() }

    public func setAcceptStrangers(_ accept: Bool) async throws -> UserSettings {
        try await api.setSettings(SettingsChange(acceptStrangers: accept))
    }

    /// Changes the fields `change` has (typing, reads: PROTOCOL.md v4).
    public func setSettings(_ change: SettingsChange) async throws -> UserSettings {
        try await api.setSettings(change)
    }

    /// My signed-in devices, most recently seen first.
    public func devices() async throws -> [SessionInfo] { try await api.sessions() }

    public func signOut(device sessionId: String) async throws { try await api.revokeSession(sessionId) }

    /// v4: a new password; my other devices are signed out, this one stays.
    /// A new one of the wrong length is refused here, before any request.
    /// A wrong current password and a token the server dropped both answer
    /// 401: a call with the token alone tells them apart (refused too, the
    /// login has ended, and ends here as at any 401).
    public func changePassword(current: String, new: String) async throws {
        if let problem = AccountRules.problem(password: new) { throw problem }
        do {
            try await api.changePassword(old: current, new: new)
        } catch let e as APIError where e.code == .unauthorized {
            _ = try await api.me()
            throw AccountRules.Problem.wrongCurrentPassword
        }
    }
}
