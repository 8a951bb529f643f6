/// Forwarding (PROTOCOL.md v3), the same for the full-screen client and
/// `tongban forward`.
extension ChatMessage {
    /// What forwarding this message sends: a mention or a reply as its text
    /// (the names and the quote belong to the chat it came from), a 聊天记录
    /// as a record of itself (its messages are of chats the receiver may not
    /// be in; the server fills it in whole), anything else as it is. nil for
    /// a flash image, which is seen once and never forwarded.
    public var forwarded: MessageContent? {
        let kind = MessageKinds.kind(for: type)
        return kind.capabilities.contains(.forwardable) ? kind.forwardedForm(self) : nil
    }

    /// What its kind allows (see ``MessageKind/Capabilities``).
    public func can(_ capability: MessageKind.Capabilities) -> Bool {
        MessageKinds.kind(for: type).capabilities.contains(capability)
    }

    /// Whether `capability` may be used on it as it stands: the server has
    /// it and it is not revoked, and its kind allows it.
    public func allows(_ capability: MessageKind.Capabilities) -> Bool { isActionable && can(capability) }

    /// Whether I may edit it now: mine, on the server, not revoked, and of a
    /// kind that can be edited (the server's edit window is the server's).
    public var isEditable: Bool { isMe && isActionable && MessageKinds.kind(for: type).editable }

    /// Sent (the server gave it a seq) and not revoked: what every action
    /// on a message asks first.
    var isActionable: Bool { status == .success && seq > 0 && !isRecalled }
}

extension MergedPayload {
    /// A merged forward's title when none is given: who the chat is between,
    /// or the group's name.
    public static func defaultTitle(isGroup: Bool, chatName: String, myName: String, localizer: Localizer) -> String {
        isGroup ? localizer.string("ui.merged.titleGroup", ["name": chatName])
            : localizer.string("ui.merged.titleSingle", ["me": myName, "peer": chatName])
    }
}
