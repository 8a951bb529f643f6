/// What follows a conversation's name wherever it is listed (the list pane,
/// the chat header, `tongban ls`): a group's member count, then whether I
/// left it and whether it is muted.
public enum ConversationMarks {
    /// `（4人）` for a group, `（4人在）` for a room (who is there now), else "".
    public static func count(_ c: Conversation, _ L: Localizer) -> String {
        if c.isRoom { return L.string("ui.room.count", ["count": String(c.memberCount)]) }
        return c.isGroup ? L.string("ui.group.count", ["count": String(c.memberCount)]) : ""
    }

    /// ` 🔒` for a secret chat (v4), ` [已退出]` for a group I left, then ` 🔕` when muted.
    public static func flags(_ c: Conversation, _ L: Localizer) -> String {
        (ConversationIDHelper.isSecret(c.id) ? " 🔒" : "")
            + (c.isGroup && !c.isMember ? " " + L.string("ui.group.left") : "") + (c.isMuted ? " 🔕" : "")
    }

    public static func text(_ c: Conversation, _ L: Localizer) -> String { count(c, L) + flags(c, L) }
}
