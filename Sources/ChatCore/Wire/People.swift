/// PROTOCOL.md v3 "People": friends, their requests, blocking, settings and devices.

/// A friend as the caller sees them: their profile, the caller's own name
/// for them (`remark`, `""` for none) and since when they are friends.
public struct Contact: Codable, Sendable, Hashable {
    public var uid: Int
    public var username: String
    public var avatar: String
    public var account: String?
    public var signature: String?
    public var remark: String
    /// Unix milliseconds.
    public var since: Int

    public init(user: UserBasicInfo, remark: String = "", since: Int = 0) {
        uid = user.uid; username = user.username; avatar = user.avatar; account = user.account
        signature = user.signature; self.remark = remark; self.since = since
    }

    public var user: UserBasicInfo {
        UserBasicInfo(uid: uid, username: username, avatar: avatar, account: account, signature: signature)
    }

    /// The name lists show: the remark, else the display name.
    public var shownName: String { remark.isEmpty ? username : remark }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uid = try c.decode(Int.self, forKey: .uid)
        username = try c.decode(String.self, forKey: .username)
        avatar = try c.decodeIfPresent(String.self, forKey: .avatar) ?? ""
        account = try c.decodeIfPresent(String.self, forKey: .account)
        signature = try c.decodeIfPresent(String.self, forKey: .signature)
        remark = try c.decodeIfPresent(String.self, forKey: .remark) ?? ""
        since = WireRange.clamp(try c.decodeIfPresent(Int.self, forKey: .since) ?? 0)
    }
}

public struct FriendRequest: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, Hashable {
        case pending, accepted, declined
    }
    public var requestId: Int
    public var from: UserBasicInfo
    public var to: UserBasicInfo
    public var message: String
    public var status: Status
    /// Unix milliseconds.
    public var createdAt: Int

    public init(requestId: Int, from: UserBasicInfo, to: UserBasicInfo, message: String, status: Status, createdAt: Int) {
        self.requestId = requestId; self.from = from; self.to = to; self.message = message
        self.status = status; self.createdAt = createdAt
    }
}

public struct FriendRequestsResponse: Codable, Sendable, Hashable {
    public var incoming: [FriendRequest]
    public var outgoing: [FriendRequest]
    public init(incoming: [FriendRequest], outgoing: [FriendRequest]) { self.incoming = incoming; self.outgoing = outgoing }
}

public struct FriendRequestBody: Codable, Sendable {
    public var userId: Int
    public var message: String?
    enum CodingKeys: String, CodingKey { case userId = "user_id", message }
    public init(userId: Int, message: String? = nil) { self.userId = userId; self.message = message }
}

public struct FriendRespondRequest: Codable, Sendable {
    public var requestId: Int
    public var accept: Bool
    enum CodingKeys: String, CodingKey { case requestId = "request_id", accept }
    public init(requestId: Int, accept: Bool) { self.requestId = requestId; self.accept = accept }
}

/// `/friend/remove`, `/block/add`, `/block/remove`.
public struct UserIdRequest: Codable, Sendable {
    public var userId: Int
    enum CodingKeys: String, CodingKey { case userId = "user_id" }
    public init(userId: Int) { self.userId = userId }
}

public struct RemarkRequest: Codable, Sendable {
    public var userId: Int
    public var remark: String
    enum CodingKeys: String, CodingKey { case userId = "user_id", remark }
    public init(userId: Int, remark: String) { self.userId = userId; self.remark = remark }
}

/// `GET /user/settings`. A field an older server leaves out reads as its default (true).
public struct UserSettings: Codable, Sendable, Hashable {
    /// false: a single-chat message from someone who is not a friend is refused (`blocked`).
    public var acceptStrangers: Bool
    /// v4: false: `/chat/typing` pushes nothing.
    public var shareTyping: Bool
    /// v4: false: in one-to-one chats my reads reach nobody and I see nobody's (reciprocal).
    public var shareRead: Bool
    enum CodingKeys: String, CodingKey {
        case acceptStrangers = "accept_strangers", shareTyping = "share_typing", shareRead = "share_read"
    }
    public init(acceptStrangers: Bool = true, shareTyping: Bool = true, shareRead: Bool = true) {
        self.acceptStrangers = acceptStrangers; self.shareTyping = shareTyping; self.shareRead = shareRead
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        acceptStrangers = try c.decodeIfPresent(Bool.self, forKey: .acceptStrangers) ?? true
        shareTyping = try c.decodeIfPresent(Bool.self, forKey: .shareTyping) ?? true
        shareRead = try c.decodeIfPresent(Bool.self, forKey: .shareRead) ?? true
    }

    /// These settings with `change`'s fields applied.
    public func applying(_ change: SettingsChange) -> UserSettings {
        UserSettings(acceptStrangers: change.acceptStrangers ?? acceptStrangers, shareTyping: change.shareTyping ?? shareTyping,
                     shareRead: change.shareRead ?? shareRead)
    }
}

/// `POST /user/settings`: the fields to change; absent ones stay.
public struct SettingsChange: Codable, Sendable, Hashable {
    public var acceptStrangers: Bool?
    public var shareTyping: Bool?
    public var shareRead: Bool?
    enum CodingKeys: String, CodingKey {
        case acceptStrangers = "accept_strangers", shareTyping = "share_typing", shareRead = "share_read"
    }
    public init(acceptStrangers: Bool? = nil, shareTyping: Bool? = nil, shareRead: Bool? = nil) {
        self.acceptStrangers = acceptStrangers; self.shareTyping = shareTyping; self.shareRead = shareRead
    }
    public var isEmpty: Bool { acceptStrangers == nil && shareTyping == nil && shareRead == nil }
}

/// One signed-in device (a token).
public struct SessionInfo: Codable, Sendable, Hashable {
    public var sessionId: String
    /// Unix milliseconds.
    public var createdAt: Int
    public var lastSeenAt: Int
    public var userAgent: String
    /// Whether this is the token asking.
    public var current: Bool
    public init(sessionId: String, createdAt: Int, lastSeenAt: Int, userAgent: String, current: Bool) {
        self.sessionId = sessionId; self.createdAt = createdAt; self.lastSeenAt = lastSeenAt
        self.userAgent = userAgent; self.current = current
    }
}

public struct RevokeSessionRequest: Codable, Sendable {
    public var sessionId: String
    enum CodingKeys: String, CodingKey { case sessionId = "session_id" }
    public init(sessionId: String) { self.sessionId = sessionId }
}

/// v4 `POST /auth/password`: the current password and the new one; the
/// caller's other sessions are signed out.
public struct ChangePasswordRequest: Codable, Sendable {
    public var old: String
    public var new: String
    public init(old: String, new: String) { self.old = old; self.new = new }
}

/// The WebSocket close code of a token that was revoked or logged out.
public enum PushCloseCode {
    public static let signedOut: UInt16 = 4001
}
