import ChatCore
import TerminalUI

extension Bubbles {
    static func flashImage(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        let key: String
        if m.isMe { key = m.isDestroyed ? "ui.flash.viewedBySender" : "ui.flash.sender" } else {
            key = m.isDestroyed ? "ui.flash.viewed" : "ui.flash.receiver"
        }
        return wrap("⚡ " + c.L.string(key), m.isDestroyed ? Theme.dim : base, m, c)
    }
}
