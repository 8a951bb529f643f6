/// Maps a wire message (PROTOCOL.md) to the message the screen shows.
///
/// Never fails: content it cannot read (malformed JSON, a missing or ill-typed
/// field, an unknown contentType or custom `type`) becomes `.unknown` with the
/// raw text kept, so nothing is dropped and nothing crashes.
public enum IMMessageMapper {
    public static func map(_ wire: WireMessage, currentUID: String) -> ChatMessage {
        let isMe = wire.sendID == currentUID
        let (type, content) = decode(contentType: wire.contentType, content: wire.content, revoked: wire.revoked)
        var msg = ChatMessage(
            id: wire.clientMsgID, serverId: wire.serverMsgID, senderId: wire.sendID,
            receiverId: wire.recvID, conversationId: wire.conversationId, seq: wire.seq,
            type: type, content: content, createTime: wire.sendTime, isRead: false, isMe: isMe
        )
        msg.status = .success
        msg.isRecalled = wire.revoked
        msg.isDestroyed = wire.flashViewed
        if !wire.revoked {
            msg.reactions = wire.reactions ?? Reactions()
            msg.editedAt = wire.editedAt
        }
        applyMediaFields(&msg)
        return msg
    }

    /// Decodes wire content into a typed payload.
    public static func decode(contentType: Int, content: String, revoked: Bool = false) -> (ChatMessageType, MessageContent) {
        switch contentType {
        case ContentType.text:
            return (.text, .text(content))
        case ContentType.custom:
            // A revoked custom message has had its content erased: keep its
            // place as an empty text so the bubble reads "message revoked".
            if revoked && content.isEmpty { return (.text, .text("")) }
            guard let obj = JSONObject(jsonText: content) else {
                return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content)))
            }
            let customType = obj.string("type")
            if let t = customType, let kind = MessageKinds.kind(customType: t), let decoded = kind.decode(obj) {
                return (kind.messageType, decoded)
            }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content,
                                                      customType: customType, msgDesc: obj.string("msgDesc"))))
        case ContentType.mention:
            if revoked && content.isEmpty { return (.text, .text("")) }
            if let p = MentionPayload(jsonText: content) { return (.mention, .mention(p)) }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content)))
        case ContentType.merged:
            if revoked && content.isEmpty { return (.text, .text("")) }
            if let p = MergedPayload(jsonText: content) { return (.merged, .merged(p)) }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content)))
        case ContentType.quote:
            if revoked && content.isEmpty { return (.text, .text("")) }
            if let p = QuotePayload(jsonText: content) { return (.quote, .quote(p)) }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content)))
        case _ where ContentType.isGroupNotice(contentType) || ContentType.isRoomNotice(contentType):
            if let p = GroupNoticePayload(contentType: contentType, jsonText: content) { return (.groupNotice, .groupNotice(p)) }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content)))
        case SecretWire.contentType:
            let secret = MessageContent.secret(content)
            return (secret.messageType, secret)
        case ContentType.revokeNotice:
            if let obj = JSONObject(jsonText: content), let target = obj.nonEmpty("clientMsgID") {
                return (.revoked, .revokeNotice(targetClientMsgID: target))
            }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content)))
        default:
            var desc: String? = nil
            var customType: String? = nil
            if let obj = JSONObject(jsonText: content) { desc = obj.string("msgDesc"); customType = obj.string("type") }
            return (.unknown, .unknown(UnknownPayload(contentType: contentType, raw: content, customType: customType, msgDesc: desc)))
        }
    }

    /// Mirrors the typed payload into the seed's media fields.
    public static func applyMediaFields(_ msg: inout ChatMessage) {
        msg.content.base.mirror(into: &msg)
    }

    /// The wire (contentType, content) to send for a typed payload, or nil for
    /// contents that are never sent (time markers, unknown payloads).
    public static func wireContent(for content: MessageContent) -> (contentType: Int, content: String)? {
        if let own = content.base.ownWireForm { return own }
        guard let json = MessageKinds.customPayloadJSON(for: content) else { return nil }
        return (ContentType.custom, json)
    }
}
