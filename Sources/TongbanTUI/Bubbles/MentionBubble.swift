import ChatCore
import TerminalUI

extension Bubbles {
    /// A mention reads as its text; one that names me (or everyone) is
    /// drawn in the mention colour, like `[有人@我]` in the list.
    static func mention(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.mention else { return [] }
        return wrap(p.text, !m.isMe && p.mentions(c.me) ? Theme.merge(base, Theme.mention) : base, m, c)
    }
}
