import ChatCore
import TerminalUI

extension Bubbles {
    /// A person shared into the chat (名片, PROTOCOL.md v4): their picture
    /// once decoded, their name and account, boxed; Enter opens their page.
    static func card(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.card else { return [] }
        let align: BubbleLine.Align = m.isMe ? .right : .left
        let inner = max(4, c.width - 2)
        var box = [BubbleLine(text: "┌ " + c.L.string("ui.card"), style: Theme.dim, align: align)]
        if case .ready(let image)? = c.thumbnails[p.avatar], !p.avatar.isEmpty {
            let rows = (image.height + 1) / 2
            for row in 0..<rows {
                var line = BubbleLine(text: "", style: base, align: align)
                line.picture = image
                line.pictureRow = row
                box.append(line)
            }
        }
        let name = TextWrap.truncate(TerminalSanitizer.oneLine(p.name.isEmpty ? p.userId : p.name), width: inner)
        box.append(BubbleLine(text: "│ " + name, style: Style(fg: base.fg, bg: base.bg, bold: true), align: align))
        if !p.account.isEmpty {
            box.append(BubbleLine(text: "│ @" + TextWrap.truncate(TerminalSanitizer.oneLine(p.account), width: inner - 1),
                                  style: Theme.dim, align: align))
        }
        box.append(BubbleLine(text: "└ " + c.L.string("ui.card.open"), style: Theme.dim, align: align))
        return box
    }
}
