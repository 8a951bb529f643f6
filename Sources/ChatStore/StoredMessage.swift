import ChatCore
import Foundation

/// A message as the store keeps it: the wire fields plus local delivery
/// state. `seq` is nil until the server has acknowledged the message.
public struct StoredMessage: Sendable, Hashable {
    public var clientMsgID: String
    public var serverMsgID: String?
    public var conversationId: String
    public var seq: Int?
    public var sendID: String
    public var recvID: String
    public var contentType: Int
    public var content: String
    public var sendTime: Int
    public var revoked: Bool
    public var flashViewed: Bool
    /// Revoke notices and flash-viewed receipts: kept for seq continuity,
    /// never shown as bubbles.
    public var isControl: Bool
    public var status: String
    public var errorReason: String?
    /// What the full-text index sees (text, signal-quote reply), "" otherwise.
    public var searchText: String
    /// v3: who reacted with what, and when the sender last edited it.
    public var reactions: Reactions
    public var editedAt: Int?

    init(clientMsgID: String, serverMsgID: String?, conversationId: String, seq: Int?, sendID: String, recvID: String,
         contentType: Int, content: String, sendTime: Int, revoked: Bool, flashViewed: Bool, isControl: Bool, status: String,
         errorReason: String?, searchText: String, reactions: Reactions = Reactions(), editedAt: Int? = nil) {
        self.clientMsgID = clientMsgID; self.serverMsgID = serverMsgID; self.conversationId = conversationId; self.seq = seq
        self.sendID = sendID; self.recvID = recvID; self.contentType = contentType; self.content = content
        self.sendTime = sendTime; self.revoked = revoked; self.flashViewed = flashViewed; self.isControl = isControl
        self.status = status; self.errorReason = errorReason; self.searchText = searchText
        self.reactions = reactions; self.editedAt = editedAt
    }

    public init(wire: WireMessage, status: MessageStatus = .success, errorReason: String? = nil) {
        clientMsgID = wire.clientMsgID
        serverMsgID = wire.serverMsgID.isEmpty ? nil : wire.serverMsgID
        conversationId = wire.conversationId
        seq = wire.seq > 0 ? wire.seq : nil
        sendID = wire.sendID
        recvID = wire.recvID
        contentType = wire.contentType
        content = wire.revoked ? "" : wire.content
        sendTime = wire.sendTime
        revoked = wire.revoked
        flashViewed = wire.flashViewed
        self.status = status.rawValue
        self.errorReason = errorReason
        let (type, decoded) = IMMessageMapper.decode(contentType: wire.contentType, content: content, revoked: wire.revoked)
        isControl = type == .revoked || type == .flashViewed
        searchText = MessageKinds.searchText(type: type, content: decoded, revoked: wire.revoked)
        reactions = wire.revoked ? Reactions() : wire.reactions ?? Reactions()
        editedAt = wire.editedAt
    }

    public var wire: WireMessage {
        WireMessage(serverMsgID: serverMsgID ?? "", clientMsgID: clientMsgID, conversationId: conversationId,
                    seq: seq ?? 0, sendID: sendID, recvID: recvID, contentType: contentType, content: content,
                    sendTime: sendTime, revoked: revoked, flashViewed: flashViewed,
                    reactions: reactions.isEmpty ? nil : reactions, editedAt: editedAt)
    }

    /// The message as the screen shows it.
    public func chatMessage(myImUid: String) -> ChatMessage {
        var m = IMMessageMapper.map(wire, currentUID: myImUid)
        m.status = MessageStatus(rawValue: status) ?? .success
        m.errorReason = errorReason
        if m.isMe || (seq ?? 0) == 0 { m.isRead = true }
        return m
    }
}

extension StoredMessage {
    /// Its kind, whose capabilities say what may be done with it.
    public var kind: MessageKind { MessageKinds.kind(contentType: contentType, content: content) }
}
