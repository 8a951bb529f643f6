/// 24-bit colour on top of ncurses.
///
/// ncurses only knows palette colours unless the terminfo entry is a
/// `*-direct` one, which almost nobody's `TERM` is, while most terminals
/// (and tmux) take SGR `38;2;r;g;b` anyway and say so in `COLORTERM`. So
/// ncurses draws every cell with its nearest palette colour — its picture of
/// the screen stays right — and, after each update, the cells that changed
/// and carry a `.rgb` colour are written once more, exactly, by this
/// overlay. The overlay saves and restores the cursor (DECSC/DECRC), so
/// ncurses' idea of where the cursor is stays true.
public enum TrueColorOverlay {
    /// The bytes that repaint `cells` of `grid` in 24-bit colour, or "" when
    /// none of them has an `.rgb` colour. Cells outside `cols`×`lines`,
    /// continuation cells, wide cells and cells whose text has control
    /// characters are left to ncurses.
    public static func escapes(for grid: Grid, cells: [(x: Int, y: Int)], cols: Int, lines: Int) -> String {
        var out = ""
        for (x, y) in cells where x < cols && y < lines {
            let cell = grid[x, y]
            guard !cell.isContinuation, isRGB(cell.style.fg) || isRGB(cell.style.bg),
                  grid.span(x: x, y: y).count == 1,
                  !cell.text.isEmpty,
                  cell.text.unicodeScalars.allSatisfy({ !isControl($0) }),
                  DisplayWidth.of(cell.text) == 1
            else { continue }
            if out.isEmpty { out = "\u{1B}7" }
            out += "\u{1B}[\(y + 1);\(x + 1)H" + sgr(cell.style) + cell.text
        }
        if !out.isEmpty { out += "\u{1B}[0m\u{1B}8" }
        return out
    }

    /// `ESC [ 0 ; … m` for a cell's whole style.
    static func sgr(_ style: Style) -> String {
        var out = "\u{1B}[0" + sgr(style.fg, foreground: true) + sgr(style.bg, foreground: false)
        if style.bold { out += ";1" }
        if style.dim { out += ";2" }
        if style.underline { out += ";4" }
        if style.reverse { out += ";7" }
        return out + "m"
    }

    private static func isRGB(_ color: TermColor) -> Bool {
        if case .rgb = color { return true }
        return false
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .control || category == .format
    }

    /// `;38;2;r;g;b`, `;38;5;n` or "" (the default colour; SGR 0 set it).
    private static func sgr(_ color: TermColor, foreground: Bool) -> String {
        let base = foreground ? 38 : 48
        switch color {
        case .default: return ""
        case .index(let n): return ";\(base);5;\(n)"
        case .rgb(let r, let g, let b): return ";\(base);2;\(r);\(g);\(b)"
        }
    }
}
