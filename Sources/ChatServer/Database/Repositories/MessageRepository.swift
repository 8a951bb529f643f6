import ChatCore

/// A stored message. `isControl` marks server notices and flash-viewed
/// receipts, which are not shown as messages; `noticeSeq` is the seq of a
/// revoked message's notice.
package struct MessageRow: Sendable {
    package var id: Int64
    package var serverMsgID: String
    package var clientMsgID: String
    package var senderUid: Int
    package var conversationId: String
    package var seq: Int
    package var sendID: String
    package var recvID: String
    package var contentType: Int
    package var content: String
    package var sendTime: Int
    package var revoked: Bool
    package var flashViewed: Bool
    package var isControl: Bool
    package var noticeSeq: Int?
    /// v3: stored as `Reactions.jsonText` ("" for none).
    package var reactions: Reactions
    package var editedAt: Int?

    package init(id: Int64, serverMsgID: String, clientMsgID: String, senderUid: Int, conversationId: String, seq: Int,
         sendID: String, recvID: String, contentType: Int, content: String, sendTime: Int,
         revoked: Bool = false, flashViewed: Bool = false, isControl: Bool = false, noticeSeq: Int? = nil,
         reactions: Reactions = Reactions(), editedAt: Int? = nil) {
        self.id = id; self.serverMsgID = serverMsgID; self.clientMsgID = clientMsgID; self.senderUid = senderUid
        self.conversationId = conversationId; self.seq = seq; self.sendID = sendID; self.recvID = recvID
        self.contentType = contentType; self.content = content; self.sendTime = sendTime
        self.revoked = revoked; self.flashViewed = flashViewed; self.isControl = isControl; self.noticeSeq = noticeSeq
        self.reactions = reactions; self.editedAt = editedAt
    }
}

/// What a stored reply's JSON holds when its quote names a message: the
/// key and the id as JSON writes them (a quote inside the reply's own
/// text is escaped, so it never matches). A narrowing only: the callers
/// decode what it finds.
package enum QuoteNeedle {
    package static func of(_ clientMsgID: String) -> String {
        var bytes: [UInt8] = Array("\"clientMsgID\":".utf8)
        JSONText.appendString(clientMsgID, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Messages, by conversation and seq.
package protocol MessageRepository {
    /// Stores `row` (its `id`, `revoked`, `flashViewed` and `noticeSeq` are
    /// not read); returns the new id.
    func insert(_ row: MessageRow) throws -> Int64
    func message(id: Int64) throws -> MessageRow?
    /// The message with `clientMsgID` in a conversation, control ones left out.
    func message(in conversationId: String, clientMsgID: String) throws -> MessageRow?
    /// Messages with `clientMsgID` that `sender` sent anywhere or anyone sent in `conversationId`.
    func messages(clientMsgID: String, sentBy sender: Int, orIn conversationId: String) throws -> [MessageRow]
    /// Empties the content and records the notice's seq.
    func markRevoked(id: Int64, noticeSeq: Int) throws
    func markFlashViewed(id: Int64) throws
    /// v3: replaces the message's reactions.
    func setReactions(id: Int64, _ reactions: Reactions) throws
    /// v3: replies (114) in a conversation whose quote names `clientMsgID`,
    /// not revoked themselves.
    func replies(to clientMsgID: String, in conversationId: String) throws -> [MessageRow]
    /// v3: a content the server itself rewrote (a reply's quote of a revoked message).
    func setContent(id: Int64, _ content: String) throws
    /// v3: the sender's new content, and when they changed it.
    func edit(id: Int64, content: String, editedAt: Int) throws

    /// The newest message above `seq` and at most `ceiling` that is not a
    /// control one, nor deleted by `reader`.
    func lastVisible(in conversationId: String, after seq: Int, upTo ceiling: Int, for reader: Int) throws -> MessageRow?
    /// Messages above `seq` and at most `ceiling` that are neither control
    /// ones nor group notices, and not from `uid` nor deleted by them.
    func unreadCount(in conversationId: String, after seq: Int, upTo ceiling: Int, notFrom uid: Int) throws -> Int
    /// Who sent the messages above `seq` and at most `ceiling` that count
    /// as unread for others (no control messages, no notices), `uid` left out.
    func senders(in conversationId: String, after seq: Int, upTo ceiling: Int, notFrom uid: Int) throws -> [Int]
    /// Who sent each of `seqs` (those that exist), by seq.
    func senders(in conversationId: String, seqs: [Int]) throws -> [Int: Int]
    /// Up to `limit` messages above `seq`, oldest first; with a `reader`,
    /// those they deleted for themselves left out.
    func messages(in conversationId: String, after seq: Int, limit: Int, for reader: Int?) throws -> [MessageRow]
    /// Up to `limit` messages above `floor` and below `ceiling`, newest
    /// first, those `reader` deleted for themselves left out.
    func messages(in conversationId: String, above floor: Int, below ceiling: Int, limit: Int, for reader: Int) throws -> [MessageRow]
    /// v3 delete for me: `uid` never sees these messages again.
    func hide(_ messageIds: [Int64], for uid: Int) throws
    /// Who deleted message `id` for themselves.
    func hiders(of id: Int64) throws -> Set<Int>
}
