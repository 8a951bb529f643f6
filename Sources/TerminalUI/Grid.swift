/// One screen cell: a grapheme ("" for the right half of a wide one) and its style.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style
    public init(text: String = " ", style: Style = Style()) { self.text = text; self.style = style }
}

/// An in-memory screen. Everything draws here; only `Terminal` knows
/// ncurses, and tests read the cells.
public struct Grid: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { inside(x, y) ? cells[y * width + x] : Cell() }
        set { if inside(x, y) { cells[y * width + x] = newValue } }
    }

    func inside(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

    public mutating func clear(style: Style = Style()) {
        cells = Array(repeating: Cell(text: " ", style: style), count: width * height)
    }

    public mutating func fill(x: Int, y: Int, w: Int, h: Int, style: Style) {
        for yy in max(0, y)..<min(height, y + h) {
            for xx in max(0, x)..<min(width, x + w) { setCell(xx, yy, Cell(text: " ", style: style)) }
        }
    }

    /// Puts one cell, blanking the other half of any wide character it cuts.
    mutating func setCell(_ x: Int, _ y: Int, _ cell: Cell) {
        guard inside(x, y) else { return }
        let old = self[x, y]
        if old.text.isEmpty, x > 0 { self[x - 1, y] = Cell(text: " ", style: self[x - 1, y].style) }
        if !old.text.isEmpty, DisplayWidth.of(old.text) == 2, x + 1 < width, self[x + 1, y].text.isEmpty {
            self[x + 1, y] = Cell(text: " ", style: old.style)
        }
        self[x, y] = cell
    }

    /// Writes `s` from (x, y), clipped to `maxWidth` columns and the right
    /// edge; returns the columns written. A wide character that does not fit
    /// becomes a space. Zero-width characters join the previous cell.
    @discardableResult
    public mutating func put(_ s: String, x: Int, y: Int, style: Style, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(width, x + max(0, maxWidth ?? width))
        var cx = x
        for ch in s {
            if ch == "\n" || ch == "\r" || ch == "\t" { break }
            let w = DisplayWidth.of(ch)
            if w == 0 {
                if cx > x, inside(cx - 1, y) { self[cx - 1, y].text += String(ch) }
                continue
            }
            if cx + w > limit {
                if cx < limit, cx >= 0 { setCell(cx, y, Cell(text: " ", style: style)); cx += 1 }
                break
            }
            if cx >= 0 {
                setCell(cx, y, Cell(text: String(ch), style: style))
                if w == 2 { setCell(cx + 1, y, Cell(text: "", style: style)) }
            }
            cx += w
        }
        return max(0, cx - x)
    }

    /// The visible text of a row: wide characters once, trailing spaces trimmed.
    public func rowText(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var s = ""
        for x in 0..<width { s += self[x, y].text }
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    public func text() -> String { (0..<height).map(rowText).joined(separator: "\n") }

    /// The first cell position where `s` starts (row by row).
    public func find(_ s: String) -> (x: Int, y: Int)? {
        guard !s.isEmpty else { return nil }
        for y in 0..<height {
            // Map string offsets back to columns.
            var columns: [Int] = []
            var row = ""
            for x in 0..<width {
                let t = self[x, y].text
                for _ in t { columns.append(x) }
                row += t
            }
            if let r = row.range(of: s) {
                let offset = row.distance(from: row.startIndex, to: r.lowerBound)
                return (offset < columns.count ? columns[offset] : 0, y)
            }
        }
        return nil
    }

    /// Cells that differ from `old` (all of them when sizes differ or old is nil).
    public func changes(from old: Grid?) -> [(x: Int, y: Int)] {
        var out: [(Int, Int)] = []
        guard let old, old.width == width, old.height == height else {
            for y in 0..<height { for x in 0..<width { out.append((x, y)) } }
            return out
        }
        for i in 0..<cells.count where cells[i] != old.cells[i] { out.append((i % width, i / width)) }
        return out
    }
}
