/// The caller's view of one conversation (PROTOCOL.md "Conversations").
public struct ConversationSummary: Codable, Sendable, Hashable {
    public var conversationId: String
    /// The peer's imUid.
    public var userId: String
    public var showName: String
    public var faceURL: String
    public var isPinned: Bool
    public var unreadCount: Int
    public var lastMessage: WireMessage?
    public var lastMessageTime: Int
    public var maxSeq: Int
    public var readSeq: Int
    public var isOnline: Bool
    public var isImOpened: Bool
    /// Present and true only in a sync event for a deleted conversation.
    public var deleted: Bool?
    // v2 (absent from v1 servers: then false / 0 / nil).
    public var isMuted: Bool
    /// The newest seq whose message mentions the caller (or @all); 0 if none.
    public var mentionSeq: Int
    /// Groups only.
    public var groupId: Int?
    public var memberCount: Int?
    /// Groups only: false once the caller left or was kicked.
    public var isMember: Bool?
    /// v4, one-to-one only: the peer's read seq; absent when either side does not share reads.
    public var peerReadSeq: Int?
    /// v4: true for a secret (end-to-end encrypted) chat, `ss_`.
    public var secret: Bool?

    public var isGroup: Bool { groupId != nil || ConversationIDHelper.isGroup(conversationId) }

    public init(
        conversationId: String, userId: String, showName: String, faceURL: String = "",
        isPinned: Bool = false, unreadCount: Int = 0, lastMessage: WireMessage? = nil,
        lastMessageTime: Int = 0, maxSeq: Int = 0, readSeq: Int = 0, isOnline: Bool = false,
        isImOpened: Bool = false, deleted: Bool? = nil, isMuted: Bool = false, mentionSeq: Int = 0,
        groupId: Int? = nil, memberCount: Int? = nil, isMember: Bool? = nil, peerReadSeq: Int? = nil
    ) {
        self.peerReadSeq = peerReadSeq
        self.secret = ConversationIDHelper.isSecret(conversationId) ? true : nil
        self.conversationId = conversationId
        self.userId = userId
        self.showName = showName
        self.faceURL = faceURL
        self.isPinned = isPinned
        self.unreadCount = unreadCount
        self.lastMessage = lastMessage
        self.lastMessageTime = lastMessageTime
        self.maxSeq = maxSeq
        self.readSeq = readSeq
        self.isOnline = isOnline
        self.isImOpened = isImOpened
        self.deleted = deleted
        self.isMuted = isMuted
        self.mentionSeq = mentionSeq
        self.groupId = groupId
        self.memberCount = memberCount
        self.isMember = isMember
    }

    /// As synthesised, plus ranges (see `WireMessage`): seqs outside
    /// 0...2^53 are refused, counts and times clamped.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        conversationId = try c.decode(String.self, forKey: .conversationId)
        userId = try c.decode(String.self, forKey: .userId)
        showName = try c.decode(String.self, forKey: .showName)
        faceURL = try c.decode(String.self, forKey: .faceURL)
        isPinned = try c.decode(Bool.self, forKey: .isPinned)
        unreadCount = WireRange.count(try c.decode(Int.self, forKey: .unreadCount))
        lastMessage = try c.decodeIfPresent(WireMessage.self, forKey: .lastMessage)
        lastMessageTime = WireRange.clamp(try c.decode(Int.self, forKey: .lastMessageTime))
        maxSeq = try WireRange.seq(c.decode(Int.self, forKey: .maxSeq), .maxSeq, in: c)
        readSeq = try WireRange.seq(c.decode(Int.self, forKey: .readSeq), .readSeq, in: c)
        isOnline = try c.decode(Bool.self, forKey: .isOnline)
        isImOpened = try c.decode(Bool.self, forKey: .isImOpened)
        deleted = try c.decodeIfPresent(Bool.self, forKey: .deleted)
        isMuted = try c.decodeIfPresent(Bool.self, forKey: .isMuted) ?? false
        mentionSeq = try WireRange.seq(c.decodeIfPresent(Int.self, forKey: .mentionSeq) ?? 0, .mentionSeq, in: c)
        groupId = try c.decodeIfPresent(Int.self, forKey: .groupId)
        memberCount = try c.decodeIfPresent(Int.self, forKey: .memberCount).map(WireRange.count)
        isMember = try c.decodeIfPresent(Bool.self, forKey: .isMember)
        peerReadSeq = try c.decodeIfPresent(Int.self, forKey: .peerReadSeq).map { try WireRange.seq($0, .peerReadSeq, in: c) }
        secret = try c.decodeIfPresent(Bool.self, forKey: .secret)
    }
}

/// `UserBasicInfo`: `username` is the display name, as in the seed.
public struct UserBasicInfo: Codable, Sendable, Hashable {
    public var uid: Int
    public var username: String
    public var avatar: String
    /// The login name (an addition to PROTOCOL.md's three fields, absent
    /// from servers that do not send it): lets a client address a peer by
    /// account while offline.
    public var account: String?
    /// v3: a line about themselves (at most 100 characters); absent from older servers.
    public var signature: String?
    public init(uid: Int, username: String, avatar: String = "", account: String? = nil, signature: String? = nil) {
        self.uid = uid; self.username = username; self.avatar = avatar; self.account = account; self.signature = signature
    }
}
