/// One entry of a user's event log (PROTOCOL.md "Sync").
public enum SyncEvent: Sendable, Hashable {
    case message(WireMessage)
    case messageUpdate(WireMessage)
    case conversation(ConversationSummary)
    /// v2: a group the caller is or was in changed.
    case group(GroupInfo)
    /// v3: a friend was added, changed (profile, remark) or, with `removed`, is no longer one.
    case contact(Contact, removed: Bool)
    /// v3: a friend request the caller sent or received changed state.
    case friendRequest(FriendRequest)
    /// v4: the caller's account signed in on another device.
    case newLogin(NewLoginSession)
    /// v4: in a one-to-one chat, `userId` (the peer) read up to `seq`.
    case read(conversationId: String, userId: String, seq: Int)
    /// v4: `userId`'s set of devices with keys changed (secret chats).
    case devices(userId: String)
    /// v4: a device of the peer could not open a secret message of mine.
    case secretRetry(conversationId: String, clientMsgID: String, deviceId: String)
}

/// v4: the session a `new_login` event announces.
public struct NewLoginSession: Codable, Sendable, Hashable {
    public var sessionId: String
    public var userAgent: String
    /// Unix milliseconds.
    public var createdAt: Int
    public init(sessionId: String, userAgent: String, createdAt: Int) {
        self.sessionId = sessionId; self.userAgent = userAgent; self.createdAt = createdAt
    }
}

extension SyncEvent: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, message, conversation, group, contact, removed, request, session, conversationId, userId, seq
        case clientMsgID, deviceId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .kind)
        switch kind {
        case "message": self = .message(try c.decode(WireMessage.self, forKey: .message))
        case "message_update": self = .messageUpdate(try c.decode(WireMessage.self, forKey: .message))
        case "conversation": self = .conversation(try c.decode(ConversationSummary.self, forKey: .conversation))
        case "group": self = .group(try c.decode(GroupInfo.self, forKey: .group))
        case "contact":
            self = .contact(try c.decode(Contact.self, forKey: .contact),
                            removed: try c.decodeIfPresent(Bool.self, forKey: .removed) ?? false)
        case "friend_request": self = .friendRequest(try c.decode(FriendRequest.self, forKey: .request))
        case "new_login": self = .newLogin(try c.decode(NewLoginSession.self, forKey: .session))
        case "read":
            self = .read(conversationId: try c.decode(String.self, forKey: .conversationId),
                         userId: try c.decode(String.self, forKey: .userId),
                         seq: try WireRange.seq(c.decode(Int.self, forKey: .seq), .seq, in: c))
        case "devices": self = .devices(userId: try c.decode(String.self, forKey: .userId))
        case "secret_retry":
            self = .secretRetry(conversationId: try c.decode(String.self, forKey: .conversationId),
                                clientMsgID: try c.decode(String.self, forKey: .clientMsgID),
                                deviceId: try c.decode(String.self, forKey: .deviceId))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown event kind \(kind)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .message(let m):
            try c.encode("message", forKey: .kind); try c.encode(m, forKey: .message)
        case .messageUpdate(let m):
            try c.encode("message_update", forKey: .kind); try c.encode(m, forKey: .message)
        case .conversation(let s):
            try c.encode("conversation", forKey: .kind); try c.encode(s, forKey: .conversation)
        case .group(let g):
            try c.encode("group", forKey: .kind); try c.encode(g, forKey: .group)
        case .contact(let contact, let removed):
            try c.encode("contact", forKey: .kind); try c.encode(contact, forKey: .contact)
            if removed { try c.encode(true, forKey: .removed) }
        case .friendRequest(let r):
            try c.encode("friend_request", forKey: .kind); try c.encode(r, forKey: .request)
        case .newLogin(let s):
            try c.encode("new_login", forKey: .kind); try c.encode(s, forKey: .session)
        case .read(let conversationId, let userId, let seq):
            try c.encode("read", forKey: .kind); try c.encode(conversationId, forKey: .conversationId)
            try c.encode(userId, forKey: .userId); try c.encode(seq, forKey: .seq)
        case .devices(let userId):
            try c.encode("devices", forKey: .kind); try c.encode(userId, forKey: .userId)
        case .secretRetry(let conversationId, let clientMsgID, let deviceId):
            try c.encode("secret_retry", forKey: .kind); try c.encode(conversationId, forKey: .conversationId)
            try c.encode(clientMsgID, forKey: .clientMsgID); try c.encode(deviceId, forKey: .deviceId)
        }
    }
}

/// `GET /chat/sync` answer. Events of a kind this client does not know are
/// skipped rather than failing the whole batch (a newer server may add kinds).
public struct SyncResponse: Sendable, Hashable {
    public var events: [SyncEvent]
    public var cursor: Int
    public var hasMore: Bool
    /// How many events were skipped because they could not be read.
    public var skippedEvents: Int
    public init(events: [SyncEvent], cursor: Int, hasMore: Bool, skippedEvents: Int = 0) {
        self.events = events; self.cursor = cursor; self.hasMore = hasMore; self.skippedEvents = skippedEvents
    }
}

extension SyncResponse: Codable {
    private enum CodingKeys: String, CodingKey { case events, cursor, hasMore }
    private struct Lenient: Decodable {
        let event: SyncEvent?
        init(from decoder: any Decoder) throws { event = try? SyncEvent(from: decoder) }
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try c.decode([Lenient].self, forKey: .events)
        events = raw.compactMap(\.event)
        skippedEvents = raw.count - events.count
        cursor = try c.decode(Int.self, forKey: .cursor)
        hasMore = try c.decode(Bool.self, forKey: .hasMore)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(events, forKey: .events)
        try c.encode(cursor, forKey: .cursor)
        try c.encode(hasMore, forKey: .hasMore)
    }
}

/// WebSocket text frames (PROTOCOL.md "Push").
public enum PushFrame: Sendable, Hashable {
    case hello(cursor: Int)
    case sync(cursor: Int)
    case presence(userId: String, online: Bool)
    case ping
    case pong
    /// v3 rooms: a room's message or notice, whole (rooms are in no sync log).
    case room(WireMessage)
    /// v3 rooms: a room's message as it is now (revoked, reacted to, edited).
    case roomUpdate(WireMessage)
    /// v3 rooms: a room's info changed (present count, name, topic).
    case roomInfo(RoomInfo)
    /// v4: `userId` is typing in `conversationId`; shown for `ttlMs` from its arrival.
    case typing(conversationId: String, userId: String, ttlMs: Int)
    /// v4: reads passed some of my messages in a group: ask for their counts again.
    case readChanged(conversationId: String)
}

extension PushFrame: Codable {
    private enum CodingKeys: String, CodingKey { case type, cursor, userId, online, message, room, conversationId, ttlMs }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "hello": self = .hello(cursor: try c.decode(Int.self, forKey: .cursor))
        case "sync": self = .sync(cursor: try c.decode(Int.self, forKey: .cursor))
        case "presence":
            self = .presence(userId: try c.decode(String.self, forKey: .userId), online: try c.decode(Bool.self, forKey: .online))
        case "ping": self = .ping
        case "pong": self = .pong
        case "room": self = .room(try c.decode(WireMessage.self, forKey: .message))
        case "room_update": self = .roomUpdate(try c.decode(WireMessage.self, forKey: .message))
        case "room_info": self = .roomInfo(try c.decode(RoomInfo.self, forKey: .room))
        case "typing":
            self = .typing(conversationId: try c.decode(String.self, forKey: .conversationId),
                           userId: try c.decode(String.self, forKey: .userId),
                           ttlMs: min(max(try c.decodeIfPresent(Int.self, forKey: .ttlMs) ?? 5000, 0), 60_000))
        case "read_changed": self = .readChanged(conversationId: try c.decode(String.self, forKey: .conversationId))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown frame type \(other)")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .hello(let cursor): try c.encode("hello", forKey: .type); try c.encode(cursor, forKey: .cursor)
        case .sync(let cursor): try c.encode("sync", forKey: .type); try c.encode(cursor, forKey: .cursor)
        case .presence(let uid, let online):
            try c.encode("presence", forKey: .type); try c.encode(uid, forKey: .userId); try c.encode(online, forKey: .online)
        case .ping: try c.encode("ping", forKey: .type)
        case .pong: try c.encode("pong", forKey: .type)
        case .room(let m): try c.encode("room", forKey: .type); try c.encode(m, forKey: .message)
        case .roomUpdate(let m): try c.encode("room_update", forKey: .type); try c.encode(m, forKey: .message)
        case .roomInfo(let r): try c.encode("room_info", forKey: .type); try c.encode(r, forKey: .room)
        case .typing(let conversationId, let userId, let ttlMs):
            try c.encode("typing", forKey: .type); try c.encode(conversationId, forKey: .conversationId)
            try c.encode(userId, forKey: .userId); try c.encode(ttlMs, forKey: .ttlMs)
        case .readChanged(let conversationId):
            try c.encode("read_changed", forKey: .type); try c.encode(conversationId, forKey: .conversationId)
        }
    }
}
