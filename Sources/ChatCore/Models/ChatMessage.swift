import Foundation

/// One message as the chat screen shows it (seed 000 §一).
///
/// The seed's media fields (`imageUrl`, `objectKey`, ...) are kept next to the
/// typed ``content`` because the view models re-sign and rewrite URLs on them.
public struct ChatMessage: Identifiable, Sendable, Hashable {
    /// clientMsgID: the key of optimistic updates and of echo dedupe.
    public let id: String
    public var serverId: String?
    public let senderId: String
    public let receiverId: String
    public var conversationId: String
    /// Position in the conversation (1...); 0 while not yet acknowledged.
    public var seq: Int
    public var type: ChatMessageType
    public var content: MessageContent
    /// Unix milliseconds.
    public let createTime: Int
    public var isRead: Bool
    public let isMe: Bool

    // Media.
    public var imageUrl: String?
    /// Unix seconds; 0 means never expires.
    public var urlExpireAt: Int?
    public var objectKey: String?
    public var multiObjectKeys: [String]?
    public var multiImageUrls: [String]?
    public var durationSec: Int?
    public var width: Double?
    public var height: Double?
    /// Seen once and never kept (its kind is ephemeral: a flash image).
    public var isFlash: Bool { MessageKinds.kind(for: type).capabilities.contains(.ephemeral) }

    // Lifecycle.
    public var isRecalled: Bool = false
    /// A flash image that has been viewed and destroyed.
    public var isDestroyed: Bool = false
    public var uploadProgress: Double = 0
    public var status: MessageStatus = .success
    public var errorReason: String?

    // Signal quote.
    public var signalQuoteId: Int?
    public var signalQuoteContent: String?
    public var signalQuoteReply: String?
    /// v3: who reacted with what; when the sender last edited it.
    public var reactions = Reactions()
    public var editedAt: Int?

    public init(
        id: String, serverId: String? = nil, senderId: String, receiverId: String,
        conversationId: String, seq: Int = 0, type: ChatMessageType, content: MessageContent,
        createTime: Int, isRead: Bool, isMe: Bool
    ) {
        self.id = id
        self.serverId = serverId
        self.senderId = senderId
        self.receiverId = receiverId
        self.conversationId = conversationId
        self.seq = seq
        self.type = type
        self.content = content
        self.createTime = createTime
        self.isRead = isRead
        self.isMe = isMe
    }

    /// True when the signed URL has passed its expiry (0 = never expires).
    public var isURLExpired: Bool { isURLExpired(now: Date()) }

    public func isURLExpired(now: Date) -> Bool {
        guard let exp = urlExpireAt, exp > 0 else { return false }
        return Int(now.timeIntervalSince1970) > exp
    }

    /// The text of a text message, or nil.
    public var text: String? { content.text ?? content.mention?.text ?? content.quote?.text }

    /// Whether this message mentions `imUid` (by name or `@all`).
    public func mentions(_ imUid: String) -> Bool {
        guard let p = content.mention ?? content.quote?.mention else { return false }
        return p.mentions(imUid) && senderId != imUid
    }

    /// Revoke notices and flash-viewed receipts change other messages; they
    /// are kept for seq continuity but are never shown as bubbles.
    public var isControl: Bool { type == .revoked || type == .flashViewed }
}
