/// The line a room's notice (1601-1605, PROTOCOL.md v3 "Rooms") reads as,
/// e.g. `Bob 鲍勃 进入房间`. Their content is a group notice's, and so is
/// the sentence (`GroupNoticePayload.sentence`).
public enum RoomNotices {
    /// nil for a message that is not a room notice.
    public static func sentence(contentType: Int, content: String, me: String?, _ l: Localizer) -> String? {
        guard ContentType.isRoomNotice(contentType) else { return nil }
        let p = GroupNoticePayload(contentType: contentType, jsonText: content)
            ?? GroupNoticePayload(contentType: contentType, opUser: "")
        return p.sentence(me: me, l)
    }
}
