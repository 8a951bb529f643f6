import ChatCore
import TerminalUI

extension Bubbles {
    static func text(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let t = m.content.text else { return [] }
        return wrap(t, base, m, c)
    }
}
