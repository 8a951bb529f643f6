import ChatCore
import TerminalUI

extension Bubbles {
    /// `▶ 2″`, with a stop mark while it plays.
    static func voice(_ m: ChatMessage, _ c: BubbleContext, _ base: Style) -> [BubbleLine] {
        guard let p = m.content.audio else { return [] }
        let playing = c.playingId == m.id
        let text = (playing ? "■ " : "") + c.L.string("ui.voice", ["s": String(p.durationSec)])
            + (playing ? " " + c.L.string("ui.playing") : "")
        return wrap(text, base, m, c)
    }
}
