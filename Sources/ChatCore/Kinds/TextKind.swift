extension MessageKind {
    /// contentType 101. Summary: the text on one line.
    public static let text = MessageKind(
        customType: nil, messageType: .text,
        summary: { msg, _ in MessageKind.flattenLines(msg.text ?? "") }
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
