// Request and response bodies of PROTOCOL.md, field names exactly as on the wire.

public struct RegisterRequest: Codable, Sendable {
    public var account: String
    public var password: String
    public var username: String?
    public init(account: String, password: String, username: String? = nil) {
        self.account = account; self.password = password; self.username = username
    }
}

public struct LoginRequest: Codable, Sendable {
    public var account: String
    public var password: String
    public init(account: String, password: String) { self.account = account; self.password = password }
}

public struct AuthResponse: Codable, Sendable, Hashable {
    public var uid: Int
    public var imUid: String
    public var token: String
    public var username: String
    /// v4: the id of the session this token is (as `/auth/sessions` and
    /// `new_login` name it), so a device knows its own sign-in when it reads it.
    public var sessionId: String?
    public init(uid: Int, imUid: String, token: String, username: String, sessionId: String? = nil) {
        self.uid = uid; self.imUid = imUid; self.token = token; self.username = username; self.sessionId = sessionId
    }
}

public struct OfflinePushInfo: Codable, Sendable, Hashable {
    public var title: String
    public var desc: String
    public init(title: String, desc: String) { self.title = title; self.desc = desc }
}

public struct SendMessageRequest: Codable, Sendable, Hashable {
    /// The conversation id (as in the seed).
    public var recvID: String
    public var content: String
    public var contentType: Int
    public var clientMsgId: String
    public var offlinePushInfo: OfflinePushInfo?
    public var receiveId: String?
    enum CodingKeys: String, CodingKey {
        case recvID, content, contentType, clientMsgId, offlinePushInfo
        case receiveId = "receive_id"
    }
    public init(recvID: String, content: String, contentType: Int, clientMsgId: String,
                offlinePushInfo: OfflinePushInfo? = nil, receiveId: String? = nil) {
        self.recvID = recvID; self.content = content; self.contentType = contentType
        self.clientMsgId = clientMsgId; self.offlinePushInfo = offlinePushInfo; self.receiveId = receiveId
    }
}

public struct SendMessageResponse: Codable, Sendable, Hashable {
    public var serverMsgID: String
    public var clientMsgID: String
    public var sendTime: Int
    public var seq: Int
    public init(serverMsgID: String, clientMsgID: String, sendTime: Int, seq: Int) {
        self.serverMsgID = serverMsgID; self.clientMsgID = clientMsgID; self.sendTime = sendTime; self.seq = seq
    }
    /// The seq and time a server answers with are stored: held to the same
    /// ranges as in every other message (WireRange).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serverMsgID = try c.decode(String.self, forKey: .serverMsgID)
        clientMsgID = try c.decode(String.self, forKey: .clientMsgID)
        seq = try WireRange.seq(c.decode(Int.self, forKey: .seq), .seq, in: c)
        sendTime = WireRange.clamp(try c.decode(Int.self, forKey: .sendTime))
    }
}

public struct RevokeRequest: Codable, Sendable {
    public var conversationId: String
    public var clientMsgId: String
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", clientMsgId = "client_msg_id" }
    public init(conversationId: String, clientMsgId: String) { self.conversationId = conversationId; self.clientMsgId = clientMsgId }
}

/// v3 `POST /chat/message/react`.
public struct ReactRequest: Codable, Sendable {
    public var conversationId: String
    public var clientMsgId: String
    public var emoji: String
    public var on: Bool
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", clientMsgId = "client_msg_id", emoji, on }
    public init(conversationId: String, clientMsgId: String, emoji: String, on: Bool) {
        self.conversationId = conversationId; self.clientMsgId = clientMsgId; self.emoji = emoji; self.on = on
    }
}

public struct ReactResponse: Codable, Sendable, Hashable {
    public var reactions: Reactions
    public init(reactions: Reactions) { self.reactions = reactions }
}

/// v3 `POST /chat/message/delete`: 1-100 messages deleted for the caller only.
public struct DeleteMessagesRequest: Codable, Sendable {
    public var conversationId: String
    public var clientMsgIds: [String]
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", clientMsgIds = "client_msg_ids" }
    public init(conversationId: String, clientMsgIds: [String]) {
        self.conversationId = conversationId; self.clientMsgIds = clientMsgIds
    }
}

/// v3 `POST /chat/message/edit`: the new `content`, of the message's own content type.
public struct EditRequest: Codable, Sendable {
    public var conversationId: String
    public var clientMsgId: String
    public var content: String
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", clientMsgId = "client_msg_id", content }
    public init(conversationId: String, clientMsgId: String, content: String) {
        self.conversationId = conversationId; self.clientMsgId = clientMsgId; self.content = content
    }
}

public struct SeqResponse: Codable, Sendable, Hashable {
    public var seq: Int
    public init(seq: Int) { self.seq = seq }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seq = try WireRange.seq(c.decode(Int.self, forKey: .seq), .seq, in: c)
    }
}

public struct HistoryResponse: Codable, Sendable, Hashable {
    public var messages: [WireMessage]
    public var hasMore: Bool
    public init(messages: [WireMessage], hasMore: Bool) { self.messages = messages; self.hasMore = hasMore }
}

public struct StartConversationRequest: Codable, Sendable {
    public var userId: Int
    enum CodingKeys: String, CodingKey { case userId = "user_id" }
    public init(userId: Int) { self.userId = userId }
}

public struct PinRequest: Codable, Sendable {
    public var conversationId: String
    public var isPinned: Bool
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", isPinned = "is_pinned" }
    public init(conversationId: String, isPinned: Bool) { self.conversationId = conversationId; self.isPinned = isPinned }
}

public struct ReadRequest: Codable, Sendable {
    public var conversationId: String
    public var seq: Int
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id", seq }
    public init(conversationId: String, seq: Int) { self.conversationId = conversationId; self.seq = seq }
}

/// Body of `/chat/conversation/delete` and `/chat/conversation/clear`.
public struct ConversationIDRequest: Codable, Sendable {
    public var conversationId: String
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id" }
    public init(conversationId: String) { self.conversationId = conversationId }
}

public struct ProfileBatchRequest: Codable, Sendable {
    public var userIds: [Int]
    public var scene: String
    enum CodingKeys: String, CodingKey { case userIds = "user_ids", scene }
    public init(userIds: [Int], scene: String = "list") { self.userIds = userIds; self.scene = scene }
}

/// `POST /user/profile/update` (an addition to PROTOCOL.md): a new display name.
/// Every field is optional (v3): only those given change.
public struct UpdateProfileRequest: Codable, Sendable {
    public var username: String?
    public var signature: String?
    /// An objectKey of a `chat_image` the caller uploaded, or `""` for none.
    public var avatar: String?
    public init(username: String? = nil, signature: String? = nil, avatar: String? = nil) {
        self.username = username; self.signature = signature; self.avatar = avatar
    }
}

public struct UploadResponse: Codable, Sendable, Hashable {
    public var objectKey: String
    public var size: Int
    public init(objectKey: String, size: Int) { self.objectKey = objectKey; self.size = size }
}

public struct SignRequest: Codable, Sendable {
    public var objectKeys: [String]
    enum CodingKeys: String, CodingKey { case objectKeys = "object_keys" }
    public init(objectKeys: [String]) { self.objectKeys = objectKeys }
}

public struct SignResponse: Codable, Sendable, Hashable {
    public var urls: [String: String]
    public var expireAt: Int
    public init(urls: [String: String], expireAt: Int) { self.urls = urls; self.expireAt = expireAt }
}

public struct SignalCreateRequest: Codable, Sendable {
    public var content: String
    public init(content: String) { self.content = content }
}

public struct SignalCreateResponse: Codable, Sendable, Hashable {
    public var signalId: Int
    public init(signalId: Int) { self.signalId = signalId }
}

public struct SignalReplyRequest: Codable, Sendable {
    public var signalId: Int
    public var content: String
    enum CodingKeys: String, CodingKey { case signalId = "signal_id", content }
    public init(signalId: Int, content: String) { self.signalId = signalId; self.content = content }
}

/// `receiveId` is a decimal string on the wire (the seed converts it with `Int(...)`).
public struct SignalReplyResponse: Codable, Sendable, Hashable {
    public var receiveId: String
    public init(receiveId: String) { self.receiveId = receiveId }
}

public struct SignalInboxItem: Codable, Sendable, Hashable {
    public var receiveId: String
    public var signalId: Int
    public var signalContent: String
    public var replyContent: String
    public var from: UserBasicInfo
    public var isImOpened: Bool
    public init(receiveId: String, signalId: Int, signalContent: String, replyContent: String, from: UserBasicInfo, isImOpened: Bool) {
        self.receiveId = receiveId; self.signalId = signalId; self.signalContent = signalContent
        self.replyContent = replyContent; self.from = from; self.isImOpened = isImOpened
    }
}

/// v4 `GET /signal/feed`: someone else's signal.
public struct SignalFeedItem: Codable, Sendable, Hashable {
    public var signalId: Int
    public var content: String
    public var from: UserBasicInfo
    /// Unix ms.
    public var createdAt: Int
    /// Whether the caller replied to it already (a second reply is 409).
    public var replied: Bool
    public init(signalId: Int, content: String, from: UserBasicInfo, createdAt: Int, replied: Bool) {
        self.signalId = signalId; self.content = content; self.from = from; self.createdAt = createdAt; self.replied = replied
    }
}

/// v4 `GET /signal/mine`.
public struct MySignal: Codable, Sendable, Hashable {
    public var signalId: Int
    public var content: String
    public var createdAt: Int
    public var replyCount: Int
    public init(signalId: Int, content: String, createdAt: Int, replyCount: Int) {
        self.signalId = signalId; self.content = content; self.createdAt = createdAt; self.replyCount = replyCount
    }
}

/// v4 `/signal/delete`, `/signal/hide`.
public struct SignalIdRequest: Codable, Sendable {
    public var signalId: Int
    enum CodingKeys: String, CodingKey { case signalId = "signal_id" }
    public init(signalId: Int) { self.signalId = signalId }
}

/// v4 `/signal/report`.
public struct SignalReportRequest: Codable, Sendable {
    public var signalId: Int
    public var reason: String
    enum CodingKeys: String, CodingKey { case signalId = "signal_id", reason }
    public init(signalId: Int, reason: String) { self.signalId = signalId; self.reason = reason }
}

/// v4 `/chat/typing`.
public struct TypingRequest: Codable, Sendable {
    public var conversationId: String
    enum CodingKeys: String, CodingKey { case conversationId = "conversation_id" }
    public init(conversationId: String) { self.conversationId = conversationId }
}

/// v4 `GET /chat/message/read-counts`: by seq, as a decimal string.
public struct ReadCountsResponse: Codable, Sendable, Hashable {
    public struct Count: Codable, Sendable, Hashable {
        public var read: Int
        public var unread: Int
        public init(read: Int, unread: Int) { self.read = read; self.unread = unread }
    }
    public var counts: [String: Count]
    public init(counts: [String: Count]) { self.counts = counts }
}

/// v4 `GET /chat/message/readers`.
public struct ReadersResponse: Codable, Sendable, Hashable {
    public var read: [UserBasicInfo]
    public var unread: [UserBasicInfo]
    public init(read: [UserBasicInfo], unread: [UserBasicInfo]) { self.read = read; self.unread = unread }
}

public struct OpenIMRequest: Codable, Sendable {
    public var receiveId: String
    enum CodingKeys: String, CodingKey { case receiveId = "receive_id" }
    public init(receiveId: String) { self.receiveId = receiveId }
}

public struct HealthResponse: Codable, Sendable {
    public var status: String
    public init(status: String = "ok") { self.status = status }
}
