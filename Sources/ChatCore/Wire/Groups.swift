// Group bodies of PROTOCOL.md v2 ("Groups", "Mentions"), field names as on the wire.

public struct GroupInfo: Codable, Sendable, Hashable {
    public var groupId: Int
    public var conversationId: String
    public var name: String
    public var uniqueName: String
    public var notice: String
    /// The owner's imUid.
    public var ownerId: String
    public var memberCount: Int
    public var joinable: Bool
    /// Unix milliseconds.
    public var createdAt: Int
    /// v3: the group's picture, an objectKey (or `""`).
    public var avatar: String
    /// v4: in the answer to `/group/create` and `/group/invite` only, the
    /// people asked for who were left out (a block or their friends-only
    /// setting; the reason never says which). nil elsewhere.
    public var notAdded: [NotAdded]?

    public init(groupId: Int, name: String, uniqueName: String, notice: String = "", ownerId: String,
                memberCount: Int, joinable: Bool = true, createdAt: Int = 0, avatar: String = "") {
        self.groupId = groupId; self.conversationId = ConversationIDHelper.group(groupId); self.name = name
        self.uniqueName = uniqueName; self.notice = notice; self.ownerId = ownerId
        self.memberCount = memberCount; self.joinable = joinable; self.createdAt = createdAt; self.avatar = avatar
    }

    /// As synthesised, with counts held to range and the conversation id
    /// checked against the gid (a client files the group under it).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        groupId = try c.decode(Int.self, forKey: .groupId)
        conversationId = try c.decode(String.self, forKey: .conversationId)
        guard groupId > 0, conversationId == ConversationIDHelper.group(groupId) else {
            throw DecodingError.dataCorruptedError(forKey: .conversationId, in: c,
                                                   debugDescription: "conversationId does not match groupId")
        }
        name = try c.decode(String.self, forKey: .name)
        uniqueName = try c.decode(String.self, forKey: .uniqueName)
        notice = try c.decodeIfPresent(String.self, forKey: .notice) ?? ""
        ownerId = try c.decode(String.self, forKey: .ownerId)
        memberCount = WireRange.count(try c.decode(Int.self, forKey: .memberCount))
        joinable = try c.decode(Bool.self, forKey: .joinable)
        createdAt = WireRange.clamp(try c.decodeIfPresent(Int.self, forKey: .createdAt) ?? 0)
        avatar = try c.decodeIfPresent(String.self, forKey: .avatar) ?? ""
        notAdded = try c.decodeIfPresent([NotAdded].self, forKey: .notAdded)
    }
}

/// v4: someone a group's creator or inviter named who was not put in.
public struct NotAdded: Codable, Sendable, Hashable {
    /// The person's imUid.
    public var userId: String
    /// `not_accepted`: they do not take being added by the caller.
    public var reason: String
    public static let notAccepted = "not_accepted"
    public init(userId: String, reason: String = NotAdded.notAccepted) { self.userId = userId; self.reason = reason }
}

public struct GroupMember: Codable, Sendable, Hashable {
    public var uid: Int
    public var username: String
    /// `owner` or `member`.
    public var role: String
    /// Unix milliseconds.
    public var joinedAt: Int
    /// The login name (an addition, as in `UserBasicInfo`): `@` completion
    /// matches it.
    public var account: String?
    public var isOwner: Bool { role == "owner" }
    /// Whether `name` names this member: account, display name or uid.
    public func isNamed(_ name: String) -> Bool { account == name || username == name || String(uid) == name }
    public init(uid: Int, username: String, role: String, joinedAt: Int, account: String? = nil) {
        self.uid = uid; self.username = username; self.role = role; self.joinedAt = joinedAt; self.account = account
    }
}

public struct GroupMembersResponse: Codable, Sendable, Hashable {
    public var members: [GroupMember]
    public var hasMore: Bool
    public init(members: [GroupMember], hasMore: Bool) { self.members = members; self.hasMore = hasMore }
}

public struct CreateGroupRequest: Codable, Sendable {
    public var name: String
    public var uniqueName: String
    public var memberIds: [Int]?
    public var notice: String?
    enum CodingKeys: String, CodingKey { case name, uniqueName = "unique_name", memberIds = "member_ids", notice }
    public init(name: String, uniqueName: String, memberIds: [Int]? = nil, notice: String? = nil) {
        self.name = name; self.uniqueName = uniqueName; self.memberIds = memberIds; self.notice = notice
    }
}

public struct JoinGroupRequest: Codable, Sendable {
    public var uniqueName: String
    enum CodingKeys: String, CodingKey { case uniqueName = "unique_name" }
    public init(uniqueName: String) { self.uniqueName = uniqueName }
}

public struct InviteRequest: Codable, Sendable {
    public var groupId: Int
    public var userIds: [Int]
    enum CodingKeys: String, CodingKey { case groupId = "group_id", userIds = "user_ids" }
    public init(groupId: Int, userIds: [Int]) { self.groupId = groupId; self.userIds = userIds }
}

public struct GroupIdRequest: Codable, Sendable {
    public var groupId: Int
    enum CodingKeys: String, CodingKey { case groupId = "group_id" }
    public init(groupId: Int) { self.groupId = groupId }
}

public struct KickRequest: Codable, Sendable {
    public var groupId: Int
    public var userId: Int
    enum CodingKeys: String, CodingKey { case groupId = "group_id", userId = "user_id" }
    public init(groupId: Int, userId: Int) { self.groupId = groupId; self.userId = userId }
}

public struct UpdateGroupRequest: Codable, Sendable {
    public var groupId: Int
    public var name: String?
    public var notice: String?
    public var joinable: Bool?
    /// v3: an objectKey of a `chat_image` the owner uploaded, or `""`.
    public var avatar: String?
    enum CodingKeys: String, CodingKey { case groupId = "group_id", name, notice, joinable, avatar }
    public init(groupId: Int, name: String? = nil, notice: String? = nil, joinable: Bool? = nil, avatar: String? = nil) {
        self.groupId = groupId; self.name = name; self.notice = notice; self.joinable = joinable; self.avatar = avatar
    }
}

public struct MuteRequest: Codable, Sendable {
    public var conversationId: String
    public var isMuted: Bool
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", isMuted = "is_muted" }
    public init(conversationId: String, isMuted: Bool) { self.conversationId = conversationId; self.isMuted = isMuted }
}

/// The rules of group fields, shared by the server's checks and the client's forms.
public enum GroupRules {
    public static let nameLength = 1...64
    public static let noticeMaxLength = 500

    /// 3-32 of `[a-z0-9_]`, as an account.
    public static func isValidUniqueName(_ s: String) -> Bool {
        (3...32).contains(s.utf8.count) && s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    public static func isValidName(_ s: String) -> Bool {
        nameLength.contains(s.count) && !s.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }

    /// A key typed into a unique name (a group's, a room's): `[a-z0-9_]`
    /// kept, capitals lowered, at most 32.
    public static func type(_ c: Character, into unique: inout String) {
        let lower = Character(c.lowercased())
        if lower.isASCII && (lower.isLetter || lower.isNumber || lower == "_") && unique.count < 32 { unique.append(lower) }
    }
}
