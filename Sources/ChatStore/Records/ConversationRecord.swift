import ChatCore
import GRDB

/// One row of `conversation`: every field of ``Conversation`` plus the last
/// message (for the preview, computed at read time in the reader's language),
/// visibility and the local clear point.
public struct ConversationRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "conversation"

    public var id: String
    public var targetUid: Int
    public var nickname: String
    public var avatar: String
    public var isOnline: Bool
    public var fromSignal: Bool
    public var signalId: Int?
    public var receiveId: String?
    public var signalReply: String?
    public var signalContent: String?
    public var isImOpened: Bool
    public var isPinned: Bool
    public var pinnedAt: Int
    public var draftText: String?
    public var unreadCount: Int
    public var lastMessageTime: Int
    public var maxSeq: Int
    public var readSeq: Int
    /// Deleted by this user: not listed until a newer message arrives.
    public var hidden: Bool
    /// Messages with seq <= clearedSeq were cleared and are never shown again.
    public var clearedSeq: Int
    // The last message, for the preview.
    public var lastClientMsgID: String?
    public var lastSendID: String?
    public var lastContentType: Int?
    public var lastContent: String?
    public var lastRevoked: Bool
    public var lastSeq: Int?

    public init(id: String, targetUid: Int, nickname: String = "", avatar: String = "") {
        self.id = id
        self.targetUid = targetUid
        self.nickname = nickname
        self.avatar = avatar
        isOnline = false
        fromSignal = false
        isImOpened = false
        isPinned = false
        pinnedAt = 0
        unreadCount = 0
        lastMessageTime = 0
        maxSeq = 0
        readSeq = 0
        hidden = false
        clearedSeq = 0
        lastRevoked = false
    }

    mutating func setLast(_ m: MessageRecord) {
        lastClientMsgID = m.clientMsgID
        lastSendID = m.sendID
        lastContentType = m.contentType
        lastContent = m.content
        lastRevoked = m.revoked
        lastSeq = m.seq
        lastMessageTime = max(lastMessageTime, m.sendTime)
    }

    mutating func clearLast() {
        lastClientMsgID = nil; lastSendID = nil; lastContentType = nil; lastContent = nil
        lastRevoked = false; lastSeq = nil
    }

    /// The preview line in `localizer`'s language.
    public func preview(myImUid: String, localizer: Localizer) -> String {
        guard let type = lastContentType, let content = lastContent, let sender = lastSendID else { return "" }
        let wire = WireMessage(serverMsgID: "", clientMsgID: lastClientMsgID ?? "", conversationId: id, seq: lastSeq ?? 0,
                               sendID: sender, recvID: id, contentType: type, content: content, sendTime: lastMessageTime,
                               revoked: lastRevoked)
        let msg = IMMessageMapper.map(wire, currentUID: myImUid)
        return TerminalSanitizer.sanitize(MessageKinds.summary(of: msg, localizer: localizer))
    }

    public func conversation(myImUid: String, localizer: Localizer) -> Conversation {
        Conversation(
            id: id, targetUid: targetUid, nickname: nickname, avatar: avatar, isOnline: isOnline,
            fromSignal: fromSignal, signalId: signalId, receiveId: receiveId, signalReply: signalReply,
            signalContent: signalContent, isImOpened: isImOpened, isPinned: isPinned, draftText: draftText,
            unreadCount: unreadCount, lastMessagePreview: preview(myImUid: myImUid, localizer: localizer),
            lastMessageTime: lastMessageTime, maxSeq: maxSeq, readSeq: readSeq, pinnedAt: pinnedAt
        )
    }
}
