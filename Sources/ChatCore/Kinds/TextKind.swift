/// contentType 101: plain text, sent as it is.
public struct TextPayload: KindPayload {
    public static let messageType = ChatMessageType.text
    public var text: String
    public init(_ text: String) { self.text = text }
    public var ownWireForm: (contentType: Int, content: String)? { (ContentType.text, text) }
}

extension MessageContent {
    public static func text(_ text: String) -> MessageContent { MessageContent(TextPayload(text)) }
    /// The text of a plain text message (a mention's is `mention?.text`).
    public var text: String? { payload(as: TextPayload.self)?.text }
}

extension MessageKind {
    /// contentType 101. Summary: the text on one line.
    public static let text = MessageKind(
        customType: nil, messageType: .text, contentType: ContentType.text,
        summary: { msg, _ in MessageKind.flattenLines(msg.text ?? "") },
        searchText: { content in content.text ?? "" },
        reword: { _, text in .text(text) },
        // Unlike a mention's or a reply's, a text's emptiness reads as its content's.
        validate: { content, limits in ContentProblem.check(text: content.text ?? "", limits, empty: "content must not be empty") }
    )

    /// Newlines (and other line separators) become single spaces.
    public static func flattenLines(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var lastWasBreak = false
        for ch in s {
            if ch.isNewline {
                if !lastWasBreak { out.append(" ") }
                lastWasBreak = true
            } else {
                out.append(ch)
                lastWasBreak = false
            }
        }
        return out.trimmingCharacters(in: .whitespaces)
    }
}
