import ChatCore
import TerminalUI

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
