import GRDB

/// One row of `outbox` (`OutboxItem` is what leaves the store).
struct OutboxRecord: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "outbox"

    var id: Int64?
    var clientMsgID: String
    var conversationId: String
    var contentType: Int
    /// The wire content; for media not yet uploaded, the payload to fill in.
    var content: String
    var receiveId: String?
    var pushDesc: String
    /// Local files still to upload (JSON array of paths), for media sends.
    var pendingUploads: String?
    /// `chat_image` or `chat_audio` for media sends.
    var mediaKind: String?
    var attempts: Int
    var lastError: String?
    var createdAt: Int
    /// Refused by the server; held for the user's retry or discard, and
    /// holding what its conversation queued after it.
    var failed: Bool = false
    /// An attempt's request may have reached the server (never taken back).
    var mayHaveArrived: Bool = false

    init(_ item: OutboxItem) {
        clientMsgID = item.clientMsgID; conversationId = item.conversationId; contentType = item.contentType
        content = item.content; receiveId = item.receiveId; pushDesc = item.pushDesc; pendingUploads = item.pendingUploads
        mediaKind = item.mediaKind; attempts = item.attempts; lastError = item.lastError; createdAt = item.createdAt
        failed = item.failed; mayHaveArrived = item.mayHaveArrived
    }

    var item: OutboxItem {
        var item = OutboxItem(clientMsgID: clientMsgID, conversationId: conversationId, contentType: contentType, content: content,
                              receiveId: receiveId, pushDesc: pushDesc, pendingUploads: pendingUploads, mediaKind: mediaKind,
                              createdAt: createdAt)
        item.attempts = attempts; item.lastError = lastError; item.failed = failed; item.mayHaveArrived = mayHaveArrived
        return item
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
