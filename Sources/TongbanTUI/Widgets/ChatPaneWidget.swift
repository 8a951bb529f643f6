import ChatCore
import TerminalUI

/// The open chat: header, messages, input bar.
enum ChatPaneWidget {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions, _ layout: ScreenLayout,
                       into g: inout Grid, _ area: Rect) {
        guard let chat = s.chat else {
            let hint = L.string(s.list.conversations.isEmpty ? "ui.empty.title" : "ui.noChat")
            g.put(hint, x: area.x + max(0, (area.width - DisplayWidth.of(hint)) / 2), y: area.y + area.height / 2, style: Theme.dim)
            return
        }
        let x = area.x, y = area.y, w = area.width
        var hx = x + 1
        let c = chat.conversation
        let after = ConversationMarks.text(c, L)
        let nameW = max(1, w - 12 - DisplayWidth.of(after))
        hx += g.put(TextWrap.truncate(TerminalSanitizer.sanitize(c.nickname), width: nameW), x: hx, y: y, style: Theme.title, maxWidth: nameW)
        hx += g.put(after, x: hx, y: y, style: Theme.dim, maxWidth: max(0, x + w - hx - 1))
        if c.isOnline && !c.isGroup { g.put(" ● " + L.string("ui.online"), x: hx, y: y, style: Theme.online) }
        g.put(String(repeating: "─", count: w), x: x, y: y + 1, style: Theme.border)
        g.put(String(repeating: "─", count: w), x: x, y: layout.input.y - 1, style: Theme.border)
        InputBarWidget.render(s.input, focused: s.focus == .input, into: &g, layout.input)
        MessageListWidget.render(s, L, options, into: &g, layout.messages)
    }
}

/// The input bar: 1 to 5 lines, growing with the text, the cursor in view.
enum InputBarWidget {
    static func textWidth(_ paneWidth: Int) -> Int { max(1, paneWidth - 3) }

    static func wrap(_ text: String, width: Int) -> [String] {
        let lines = TextWrap.wrap(TerminalSanitizer.sanitize(text, keepNewlines: true), width: width)
        if text.hasSuffix("\n") || lines.isEmpty { return lines + [""] }
        return lines
    }

    static func visibleLines(_ input: InputLine, width: Int) -> Int {
        min(ScreenLayout.maxInputLines, max(1, wrap(input.text, width: width).count))
    }

    static func render(_ input: InputLine, focused: Bool, into g: inout Grid, _ area: Rect) {
        let x = area.x, w = area.width
        let width = textWidth(w)
        var lines = wrap(input.text, width: width)
        let cursorLines = wrap(input.beforeCursor, width: width)
        let cursorRow = cursorLines.count - 1
        let cursorCol = DisplayWidth.of(cursorLines.last ?? "")
        let visible = area.height
        let first = max(0, min(cursorRow - visible + 1, lines.count - visible))
        lines = Array(lines[first..<min(lines.count, first + visible)])
        for (i, line) in lines.enumerated() {
            g.put(i == 0 && first == 0 ? "> " : "  ", x: x, y: area.y + i, style: focused ? Theme.prompt : Theme.dim)
            g.put(line, x: x + 2, y: area.y + i, style: Style(), maxWidth: width)
        }
        guard focused else { return }
        let cy = area.y + cursorRow - first
        let cx = min(x + 2 + cursorCol, x + w - 1)
        var cell = g[cx, cy]
        cell.style.reverse = true
        if cell.text.isEmpty || cell.text == " " { g.put(" ", x: cx, y: cy, style: Theme.selected) } else {
            g.put(cell.text, x: cx, y: cy, style: cell.style)
        }
    }
}
