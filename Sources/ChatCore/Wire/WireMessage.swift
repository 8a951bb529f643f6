/// A message as the server returns it everywhere (PROTOCOL.md "Messages").
public struct WireMessage: Codable, Sendable, Hashable {
    public var serverMsgID: String
    public var clientMsgID: String
    public var conversationId: String
    public var seq: Int
    public var sendID: String
    public var recvID: String
    public var contentType: Int
    public var content: String
    /// Unix milliseconds.
    public var sendTime: Int
    public var revoked: Bool
    public var flashViewed: Bool
    /// v3: who reacted with what, by emoji (imUids in the order they
    /// reacted); nil when nobody has.
    public var reactions: Reactions?
    /// v3: when the sender last edited it (Unix milliseconds).
    public var editedAt: Int?
    /// v3: only in a `message_update` to the user who deleted it for
    /// themselves (their other devices drop it); its content is then empty.
    public var deletedForMe: Bool?
    /// v4: a disappearing secret message whose time ran out (its content is empty).
    public var expired: Bool?

    public init(
        serverMsgID: String, clientMsgID: String, conversationId: String, seq: Int,
        sendID: String, recvID: String, contentType: Int, content: String, sendTime: Int,
        revoked: Bool = false, flashViewed: Bool = false, reactions: Reactions? = nil, editedAt: Int? = nil
    ) {
        self.serverMsgID = serverMsgID
        self.clientMsgID = clientMsgID
        self.conversationId = conversationId
        self.seq = seq
        self.sendID = sendID
        self.recvID = recvID
        self.contentType = contentType
        self.content = content
        self.sendTime = sendTime
        self.revoked = revoked
        self.flashViewed = flashViewed
        self.reactions = reactions
        self.editedAt = editedAt
    }

    /// As synthesised, plus ranges: a seq outside 0...2^53 is refused (the
    /// store does arithmetic on seqs), a time outside it is clamped.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serverMsgID = try c.decode(String.self, forKey: .serverMsgID)
        clientMsgID = try c.decode(String.self, forKey: .clientMsgID)
        conversationId = try c.decode(String.self, forKey: .conversationId)
        seq = try WireRange.seq(c.decode(Int.self, forKey: .seq), .seq, in: c)
        sendID = try c.decode(String.self, forKey: .sendID)
        recvID = try c.decode(String.self, forKey: .recvID)
        contentType = try c.decode(Int.self, forKey: .contentType)
        content = try c.decode(String.self, forKey: .content)
        sendTime = WireRange.clamp(try c.decode(Int.self, forKey: .sendTime))
        revoked = try c.decode(Bool.self, forKey: .revoked)
        flashViewed = try c.decode(Bool.self, forKey: .flashViewed)
        // Reactions that do not read are left out, not the message.
        reactions = (try? c.decodeIfPresent(Reactions.self, forKey: .reactions)).flatMap { $0.isEmpty ? nil : $0 }
        editedAt = (try c.decodeIfPresent(Int.self, forKey: .editedAt)).map(WireRange.clamp)
        deletedForMe = (try? c.decodeIfPresent(Bool.self, forKey: .deletedForMe)) == true ? true : nil
        expired = (try? c.decodeIfPresent(Bool.self, forKey: .expired)) == true ? true : nil
    }
}

/// Bounds for numbers that come over the wire and are then computed with.
public enum WireRange {
    /// 2^53: exact in JSON numbers everywhere, far from Int overflow.
    public static let max = 1 << 53

    static func seq<K: CodingKey>(_ v: Int, _ key: K, in c: KeyedDecodingContainer<K>) throws -> Int {
        guard (0...max).contains(v) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(key.stringValue) \(v) is out of range")
        }
        return v
    }

    static func clamp(_ v: Int) -> Int { Swift.min(Swift.max(v, 0), max) }

    /// Counts (unread messages): a million is more than any list shows
    /// ("99+"), and a sum over any number of conversations stays far from overflow.
    public static let maxCount = 1_000_000
    public static func count(_ v: Int) -> Int { Swift.min(Swift.max(v, 0), maxCount) }
}

/// The content types of PROTOCOL.md.
public enum ContentType {
    public static let text = 101
    /// An at-text (OpenIM's 106): `{"text","atUserIDs","atAll"}`.
    public static let mention = 106
    public static let custom = 110
    public static let revokeNotice = 2101

    // Group system notices (PROTOCOL.md "Groups"): timeline messages with a
    // seq that do not count as unread.
    public static let groupCreated = 1501
    public static let groupInfoChanged = 1502
    public static let memberLeft = 1504
    public static let ownerChanged = 1507
    public static let memberKicked = 1508
    public static let memberInvited = 1509
    public static let memberJoined = 1510
    /// v4: the owner dissolved the group; the timeline ends here.
    public static let groupDissolved = 1511

    public static func isGroupNotice(_ type: Int) -> Bool { (1501...1511).contains(type) }

    // Room notices (PROTOCOL.md v3 "Rooms"), with `content` as for group notices.
    public static let roomEntered = 1601
    public static let roomLeft = 1602
    public static let roomKicked = 1603
    public static let roomChanged = 1604
    public static let roomDropped = 1605

    public static func isRoomNotice(_ type: Int) -> Bool { (1601...1605).contains(type) }
    /// A group's or a room's notice: a grey line, never unread.
    public static func isNotice(_ type: Int) -> Bool { isGroupNotice(type) || isRoomNotice(type) }
}
