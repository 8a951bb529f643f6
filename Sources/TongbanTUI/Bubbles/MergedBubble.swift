import ChatCore
import TerminalUI

extension Bubbles {
    /// A merged forward (v3, 聊天记录): its title, then the first three of
    /// its messages as `name：text`, grey behind a `│`; Enter shows them all.
    static func merged(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.merged else { return [] }
        let align: BubbleLine.Align = m.isMe ? .right : .left
        let width = max(4, c.width - 2)
        var lines = [BubbleLine(text: TextWrap.truncate(c.L.string("summary.merged", ["title": TerminalSanitizer.oneLine(p.title)]),
                                                        width: c.width), style: base, align: align)]
        for item in p.items.prefix(3) {
            let said = item.message(currentUID: c.me).map { $0.text ?? MessageKinds.summary(of: $0, localizer: c.L) } ?? ""
            let who = TerminalSanitizer.oneLine(item.senderName ?? item.sendID ?? "")
            let line = "│ " + c.L.string("ui.quoted", ["name": who, "text": TerminalSanitizer.oneLine(said)])
            lines.append(BubbleLine(text: TextWrap.truncate(line, width: width), style: Theme.dim, align: align))
        }
        if p.items.count > 3 {
            lines.append(BubbleLine(text: c.L.string("ui.merged.more", ["n": String(p.items.count)]), style: Theme.dim, align: align))
        }
        return lines
    }
}
