import Foundation

/// A send not yet acknowledged by the server. Rows are sent in `id` order,
/// always with the same clientMsgID, so a resend after a crash is deduped by
/// the server.
public struct OutboxItem: Sendable, Hashable {
    public var clientMsgID: String
    public var conversationId: String
    public var contentType: Int
    /// The wire content; for media not yet uploaded, the payload to fill in.
    public var content: String
    public var receiveId: String?
    public var pushDesc: String
    /// Local files still to upload (JSON array of paths), for media sends.
    public var pendingUploads: String?
    /// `chat_image` or `chat_audio` for media sends.
    public var mediaKind: String?
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Int
    /// Refused by the server; held for the user's retry or discard, and
    /// holding what its conversation queued after it.
    public var failed: Bool = false
    /// An attempt's request may have reached the server (never taken back).
    public var mayHaveArrived: Bool = false

    public init(clientMsgID: String, conversationId: String, contentType: Int, content: String,
                receiveId: String? = nil, pushDesc: String, pendingUploads: String? = nil,
                mediaKind: String? = nil, createdAt: Int) {
        self.clientMsgID = clientMsgID
        self.conversationId = conversationId
        self.contentType = contentType
        self.content = content
        self.receiveId = receiveId
        self.pushDesc = pushDesc
        self.pendingUploads = pendingUploads
        self.mediaKind = mediaKind
        self.attempts = 0
        self.createdAt = createdAt
    }
}
