import ChatCore
import TerminalUI

extension Bubbles {
    /// The signal a chat started from, boxed, above the reply.
    static func signalQuote(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.signalQuote else { return [] }
        let align: BubbleLine.Align = m.isMe ? .right : .left
        let inner = max(4, c.width - 4)
        var box = [BubbleLine(text: "┌ " + c.L.string("ui.signalQuote"), style: Theme.dim, align: align)]
        box += TextWrap.wrap(TerminalSanitizer.sanitize(p.signalContent, keepNewlines: true), width: inner)
            .map { BubbleLine(text: "│ " + $0, style: Theme.dim, align: align) }
        box.append(BubbleLine(text: "├" + String(repeating: "─", count: min(inner, 12)), style: Theme.dim, align: align))
        box += TextWrap.wrap(TerminalSanitizer.sanitize(p.replyContent, keepNewlines: true), width: inner)
            .map { BubbleLine(text: "│ " + $0, style: base, align: align) }
        return box
    }
}
