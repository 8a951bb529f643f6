import ChatCore
import TerminalUI

/// How the frame is drawn beyond the state: the user's terminal settings.
struct RenderOptions: Equatable, Sendable {
    /// `NO_COLOR`: draw without colours.
    var monochrome = false
    /// `COLORTERM=truecolor`: pictures in 24-bit colour.
    var trueColor = false
    /// The theme (`config.json`), overrides included.
    var palette = ThemePalette.dark
}

/// The whole frame: a pure function of the state (ratatui's `draw`).
enum Screen {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions) -> Grid {
        Theme.$palette.withValue(options.palette) { draw(s, L, options) }
    }

    private static func draw(_ s: AppState, _ L: Localizer, _ options: RenderOptions) -> Grid {
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
        // Without an overlay nothing can cover them: no copy and no compare per frame.
        let beneath = s.mode == .normal || (g.images.isEmpty && g.links.isEmpty) ? nil : g
        OverlayWidget.render(s, L, options, into: &g, layout.body)
        if let beneath { hideCovered(under: beneath, in: &g) }
        if options.monochrome { Theme.stripColours(&g) }
        return g
    }

    /// Pictures drawn in pixels (sixel, kitty) sit on top of the cells, so
    /// one that a dialog, menu, page or help covers is left out of the frame:
    /// the terminal then repaints its cells, and closing the overlay puts it
    /// back. A picture counts as covered when any of its cells changed.
    /// Links under an overlay go too (OSC 8 would make its text a link).
    static func hideCovered(under beneath: Grid, in g: inout Grid) {
        let changed = g.changes(from: beneath)
        guard !changed.isEmpty else { return }
        // The overlay's own pictures (a peer's avatar) come after the ones beneath.
        let covered = beneath.images.filter { image in
            changed.contains { $0.x >= image.x && $0.x < image.x + image.columns && $0.y >= image.y && $0.y < image.y + image.rows }
        }
        g.images.removeAll { image in covered.contains { $0.id == image.id && $0.x == image.x && $0.y == image.y } }
        // A link under an overlay is not one any more: its cells show the overlay.
        let width = g.width
        let hidden = Set(changed.map { $0.y * width + $0.x })
        g.links.removeAll { link in (link.x..<link.x + link.columns).contains { hidden.contains(link.y * width + $0) } }
    }
}
