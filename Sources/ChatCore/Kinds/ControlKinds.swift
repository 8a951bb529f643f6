extension MessageKind {
    /// `flash_viewed`: msgId (required), the viewed flash image's clientMsgID.
    public static let flashViewed = MessageKind(
        customType: "flash_viewed", messageType: .flashViewed,
        decode: { obj in
            guard let id = obj.nonEmpty("msgId") else { return nil }
            return .flashViewed(targetClientMsgID: id)
        },
        encode: { content in
            guard case .flashViewed(let id) = content else { return nil }
            return ["msgId": .string(id)]
        },
        summary: { msg, l in l.string(msg.isMe ? "summary.flashViewed.mine" : "summary.flashViewed") }
    )

    /// contentType 2101: `{"clientMsgID": ...}`. Summary `你撤回了一条消息`
    /// for my own revoke, else `消息已撤回`.
    public static let revokeNotice = MessageKind(
        customType: nil, messageType: .revoked,
        summary: { msg, l in l.string(msg.isMe ? "summary.revoked.mine" : "summary.revoked") }
    )

    /// UI time separator: its own text.
    public static let timeMarker = MessageKind(
        customType: nil, messageType: .time,
        summary: { msg, _ in
            if case .timeMarker(let s) = msg.content { return s }
            return ""
        }
    )

    /// Anything else: its `msgDesc` if it has one, else `[未知消息类型]`.
    public static let unknown = MessageKind(
        customType: nil, messageType: .unknown,
        summary: { msg, l in
            if case .unknown(let p) = msg.content, let desc = p.msgDesc, !desc.isEmpty {
                return MessageKind.flattenLines(desc)
            }
            return l.string("summary.unknown")
        }
    )
}
