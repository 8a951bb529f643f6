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

    public init(
        serverMsgID: String, clientMsgID: String, conversationId: String, seq: Int,
        sendID: String, recvID: String, contentType: Int, content: String, sendTime: Int,
        revoked: Bool = false, flashViewed: Bool = false
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
    }
}

/// The content types of PROTOCOL.md.
public enum ContentType {
    public static let text = 101
    public static let custom = 110
    public static let revokeNotice = 2101
}
