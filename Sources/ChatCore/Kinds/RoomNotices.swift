/// The line a room's notice (1601-1605, PROTOCOL.md v3 "Rooms") reads as,
/// e.g. `Bob 鲍勃 进入房间`. Their content is a group notice's.
public enum RoomNotices {
    /// nil for a message that is not a room notice.
    public static func sentence(contentType: Int, content: String, me: String?, _ l: Localizer) -> String? {
        guard ContentType.isRoomNotice(contentType) else { return nil }
        let obj = JSONObject(jsonText: content)
        var names: [String: String] = [:]
        if case .object(let dict)? = obj?.fields["userNames"] {
            for (k, v) in dict { if case .string(let s) = v { names[k] = s } }
        }
        func display(_ id: String) -> String {
            if id == me { return l.string("group.you") }
            return MessageKind.flattenLines(names[id] ?? id)
        }
        let op = display(obj?.string("opUser") ?? "")
        var users: [String] = []
        if case .array(let list)? = obj?.fields["users"] {
            for case .string(let id) in list { users.append(display(id)) }
        }
        let who = users.joined(separator: l.string("group.listSeparator"))
        switch contentType {
        case ContentType.roomEntered: return l.string("room.notice.entered", ["op": op])
        case ContentType.roomLeft: return l.string("room.notice.left", ["op": op])
        case ContentType.roomKicked: return l.string("room.notice.kicked", ["op": op, "users": who])
        case ContentType.roomChanged: return l.string("room.notice.changed", ["op": op])
        default: return l.string("room.notice.dropped", ["op": op])
        }
    }
}
