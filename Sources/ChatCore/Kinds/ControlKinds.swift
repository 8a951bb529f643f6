/// `flash_viewed`: the receiver viewed the flash image `targetClientMsgID`.
public struct FlashViewedPayload: KindPayload {
    public static let messageType = ChatMessageType.flashViewed
    public var targetClientMsgID: String
    public init(targetClientMsgID: String) { self.targetClientMsgID = targetClientMsgID }
}

/// contentType 2101: the message `targetClientMsgID` was revoked.
public struct RevokeNoticePayload: KindPayload {
    public static let messageType = ChatMessageType.revoked
    public var targetClientMsgID: String
    public init(targetClientMsgID: String) { self.targetClientMsgID = targetClientMsgID }
    public var ownWireForm: (contentType: Int, content: String)? {
        (ContentType.revokeNotice, JSONObject(fields: ["clientMsgID": .string(targetClientMsgID)]).jsonText())
    }
}

/// A UI time separator's text, e.g. `11-22 09:30`; never sent.
public struct TimeMarkerPayload: KindPayload {
    public static let messageType = ChatMessageType.time
    public var label: String
    public init(_ label: String) { self.label = label }
}

/// A message this client does not understand. `raw` is the wire `content`
/// exactly as received; `customType` and `msgDesc` are read from it when it
/// is a JSON object (seed 004: show `msgDesc` for unknown types). Kept
/// verbatim so nothing is lost; never sent.
public struct UnknownPayload: KindPayload {
    public static let messageType = ChatMessageType.unknown
    public var contentType: Int
    public var raw: String
    public var customType: String?
    public var msgDesc: String?
    public init(contentType: Int, raw: String, customType: String? = nil, msgDesc: String? = nil) {
        self.contentType = contentType; self.raw = raw; self.customType = customType; self.msgDesc = msgDesc
    }
}

extension MessageContent {
    public static func flashViewed(targetClientMsgID: String) -> MessageContent {
        MessageContent(FlashViewedPayload(targetClientMsgID: targetClientMsgID))
    }
    /// The flash image a `flash_viewed` receipt is about.
    public var flashViewedTarget: String? { payload(as: FlashViewedPayload.self)?.targetClientMsgID }

    public static func revokeNotice(targetClientMsgID: String) -> MessageContent {
        MessageContent(RevokeNoticePayload(targetClientMsgID: targetClientMsgID))
    }
    /// The message a revoke notice revokes.
    public var revokeNoticeTarget: String? { payload(as: RevokeNoticePayload.self)?.targetClientMsgID }

    public static func timeMarker(_ label: String) -> MessageContent { MessageContent(TimeMarkerPayload(label)) }
    public var timeMarker: String? { payload(as: TimeMarkerPayload.self)?.label }

    public static func unknown(_ p: UnknownPayload) -> MessageContent { MessageContent(p) }
    public var unknown: UnknownPayload? { payload(as: UnknownPayload.self) }
}

extension MessageKind {
    /// `flash_viewed`: msgId (required), the viewed flash image's clientMsgID.
    public static let flashViewed = MessageKind(
        customType: "flash_viewed", messageType: .flashViewed,
        decode: { obj in
            guard let id = obj.nonEmpty("msgId") else { return nil }
            return .flashViewed(targetClientMsgID: id)
        },
        encode: { content in content.flashViewedTarget.map { ["msgId": .string($0)] } },
        summary: { msg, l in l.string(msg.isMe ? "summary.flashViewed.mine" : "summary.flashViewed") },
        singleChatOnly: true,
        capabilities: []
    )

    /// contentType 2101: `{"clientMsgID": ...}`. Summary `你撤回了一条消息`
    /// for my own revoke, else `消息已撤回`.
    public static let revokeNotice = MessageKind(
        customType: nil, messageType: .revoked, contentType: ContentType.revokeNotice,
        summary: { msg, l in l.string(msg.isMe ? "summary.revoked.mine" : "summary.revoked") },
        capabilities: [],
        validate: { _, _ in .invalid(revokeIsTheServers) },
        wireShape: revokeIsTheServers
    )

    static let revokeIsTheServers = "revoke notices are made by the server; use /chat/message/revoke"

    /// UI time separator: its own text.
    public static let timeMarker = MessageKind(
        customType: nil, messageType: .time,
        summary: { msg, _ in msg.content.timeMarker ?? "" },
        capabilities: [],
        validate: { _, _ in .invalid("time markers are the screen's own") }
    )

    /// Anything else: its `msgDesc` if it has one, else `[未知消息类型]`.
    public static let unknown = MessageKind(
        customType: nil, messageType: .unknown,
        summary: { msg, l in
            if let desc = msg.content.unknown?.msgDesc, !desc.isEmpty { return MessageKind.flattenLines(desc) }
            return l.string("summary.unknown")
        },
        searchText: { content in content.unknown?.msgDesc ?? "" }
    )
}
