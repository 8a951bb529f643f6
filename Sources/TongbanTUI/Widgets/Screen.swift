import ChatCore
import TerminalUI

/// How the frame is drawn beyond the state: the user's terminal settings.
struct RenderOptions: Equatable, Sendable {
    /// `NO_COLOR`: draw without colours.
    var monochrome = false
    /// `COLORTERM=truecolor`: pictures in 24-bit colour.
    var trueColor = false
}

/// The whole frame: a pure function of the state (ratatui's `draw`).
enum Screen {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions) -> Grid {
        let width = s.size.width, height = s.size.height
        var g = Grid(width: max(1, width), height: max(1, height))
        let layout = ScreenLayout(s)
        guard layout.fits else {
            let note = L.string("ui.tooSmall")
            let lines = TextWrap.wrap(note, width: max(1, width - 2))
            for (i, line) in lines.enumerated() {
                let y = height / 2 - lines.count / 2 + i
                g.put(line, x: max(0, (width - DisplayWidth.of(line)) / 2), y: max(0, min(height - 1, y)), style: Theme.prompt)
            }
            return g
        }
        if let list = layout.list { ConversationListWidget.render(s, L, options, into: &g, list) }
        if let x = layout.separatorX {
            for y in 0..<layout.body.height { g.put("│", x: x, y: y, style: Theme.border) }
        }
        if let chat = layout.chat { ChatPaneWidget.render(s, L, options, layout, into: &g, chat) }
        StatusBarWidget.render(s, L, into: &g, layout.status)
        OverlayWidget.render(s, L, options, into: &g, layout.body)
        if options.monochrome { Theme.stripColours(&g) }
        return g
    }
}
