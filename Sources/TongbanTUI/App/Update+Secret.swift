import ChatCore

/// Secret chats (PROTOCOL.md v4) from the list and the message pane.
extension Update {
    /// `S` on a one-to-one chat (open or secret): its secret chat, started if new.
    static func startSecret(with c: Conversation, _ s: inout AppState, _ L: Localizer) -> [Effect] {
        guard !c.isMultiParty, c.targetUid > 0 else {
            s.status = L.string("ui.secret.onlyOneToOne")
            return []
        }
        let user = UserBasicInfo(uid: c.targetUid, username: c.nickname, avatar: c.avatar)
        return [.startSecret(user)]
    }
}
