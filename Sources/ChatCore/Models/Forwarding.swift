/// Forwarding (PROTOCOL.md v3), the same for the full-screen client and
/// `tongban forward`.
extension ChatMessage {
    /// What forwarding this message sends: a mention or a reply as its text
    /// (the names and the quote belong to the chat it came from), a 聊天记录
    /// as a record of itself (its messages are of chats the receiver may not
    /// be in; the server fills it in whole), anything else as it is. nil for
    /// a flash image, which is seen once and never forwarded.
    public var forwarded: MessageContent? {
        if content.flashImage != nil { return nil }
        if content.mention != nil || content.quote != nil { return .text(text ?? "") }
        if let record = content.merged {
            return .merged(MergedPayload(title: record.title, items: [.init(conversationId: conversationId, clientMsgID: id)]))
        }
        return content
    }
}

extension MergedPayload {
    /// A merged forward's title when none is given: who the chat is between,
    /// or the group's name.
    public static func defaultTitle(isGroup: Bool, chatName: String, myName: String, localizer: Localizer) -> String {
        isGroup ? localizer.string("ui.merged.titleGroup", ["name": chatName])
            : localizer.string("ui.merged.titleSingle", ["me": myName, "peer": chatName])
    }
}
