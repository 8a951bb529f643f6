import ChatCore
import TerminalUI

extension Bubbles {
    /// `📎 name  1.2 MB`: the name as it would be saved.
    static func file(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.file else { return [] }
        return wrap("📎 " + SafeFileName.base(p.name) + "  " + FileSizeText.format(p.size), base, m, c)
    }
}
