/// An in-memory screen: `width` × `height` cells that widgets draw into and
/// `Terminal` blits. Tests assert on `rowText`, `text()`, `find` and cells.
///
/// Invariants kept by every mutation:
/// - a character `w` columns wide occupies a head cell holding the grapheme
///   and `w - 1` continuation cells (`text == ""`) to its right, all with the
///   same style, and never crosses the right edge;
/// - overwriting any column of a wide character blanks (" ") its other
///   columns, keeping their style.
/// Widths come from `DisplayWidth`, i.e. what ncurses will advance.
public struct Grid: Sendable, Equatable {
    public let width: Int
    public let height: Int
    private var cells: [Cell]
    /// Pictures drawn in pixels over their cells, where the terminal can
    /// (`TerminalGraphics`); their cells hold the half-block version.
    public var images: [GridImage] = []
    /// Runs of cells that are a link (`Hyperlinks`).
    public var links: [GridLink] = []

    /// A blank grid. Negative sizes are treated as 0.
    public init(width: Int, height: Int, style: Style = Style()) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(text: " ", style: style), count: self.width * self.height)
    }

    // MARK: - Cells

    /// The cell at column `x`, row `y`. Reading outside the grid gives a blank
    /// cell; writing outside is ignored. Writing goes through the same rules
    /// as `put`: a wide grapheme also claims its continuation cells (a space
    /// is stored instead if it would cross the edge), "" or zero-width text is
    /// stored as " ".
    public subscript(x: Int, y: Int) -> Cell {
        get {
            guard contains(x, y) else { return Cell() }
            return cells[y * width + x]
        }
        set {
            guard contains(x, y) else { return }
            let w = DisplayWidth.of(newValue.text)
            if w == 0 {
                writeCluster(" ", width: 1, x: x, y: y, style: newValue.style)
            } else if x + w > width {
                writeCluster(" ", width: 1, x: x, y: y, style: newValue.style)
            } else {
                writeCluster(newValue.text, width: w, x: x, y: y, style: newValue.style)
            }
        }
    }

    /// Whether (x, y) is inside the grid.
    public func contains(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }

    /// The columns of the character covering (x, y): its head cell and its
    /// continuation cells. A single column for narrow characters.
    public func span(x: Int, y: Int) -> Range<Int> {
        guard contains(x, y) else { return x..<x }
        var start = x
        while start > 0 && cells[y * width + start].text.isEmpty {
            start -= 1
        }
        var end = start + 1
        while end < width && cells[y * width + end].text.isEmpty {
            end += 1
        }
        return start..<end
    }

    // MARK: - Drawing

    /// Blanks every cell with `style`.
    public mutating func clear(style: Style = Style()) {
        for i in cells.indices {
            cells[i] = Cell(text: " ", style: style)
        }
    }

    /// Blanks the rectangle (clipped to the grid) with `style`. Wide
    /// characters cut by its left or right edge are blanked entirely.
    public mutating func fill(x: Int, y: Int, w: Int, h: Int, style: Style) {
        let x0 = max(0, x), x1 = min(width, x.addingClamped(w))
        let y0 = max(0, y), y1 = min(height, y.addingClamped(h))
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            breakCluster(x: x0, y: row)
            breakCluster(x: x1 - 1, y: row)
            for col in x0..<x1 {
                cells[row * width + col] = Cell(text: " ", style: style)
            }
        }
    }

    /// Draws `s` on row `y` starting at column `x`, one grapheme per cell
    /// (wide graphemes take 2 or more), and returns how many columns it
    /// advanced from `x` (0 if nothing fits).
    ///
    /// - Clips at the right edge and at `x + maxWidth`. A grapheme that does
    ///   not fit entirely is replaced by spaces up to the limit, and drawing
    ///   stops there.
    /// - Graphemes left of column 0 are skipped (a wide one cut by the left
    ///   edge leaves spaces).
    /// - Zero-width graphemes (a lone combining mark or ZWJ) are skipped; a tab
    ///   becomes a space and control characters become "�", so the grid never
    ///   holds text the terminal would draw differently.
    /// - Writing over part of an existing wide character blanks its other part.
    /// - Does not interpret "\n": wrap first (`TextWrap`) and put each line.
    @discardableResult
    public mutating func put(_ s: String, x: Int, y: Int, style: Style = Style(), maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height else { return 0 }
        var limit = width
        if let maxWidth {
            limit = min(limit, x.addingClamped(max(0, maxWidth)))
        }
        var col = x
        for grapheme in s {
            for ch in Grid.sanitized(grapheme) {
                let w = DisplayWidth.of(ch)
                if w == 0 { continue }
                if col.addingClamped(w) > limit {
                    var c = max(col, 0)
                    while c < limit {
                        writeCluster(" ", width: 1, x: c, y: y, style: style)
                        c += 1
                    }
                    return max(0, max(col, limit) - x)
                }
                if col >= 0 {
                    writeCluster(String(ch), width: w, x: col, y: y, style: style)
                } else if col + w > 0 {
                    for c in 0..<(col + w) {
                        writeCluster(" ", width: 1, x: c, y: y, style: style)
                    }
                }
                col += w
            }
        }
        return max(0, col - x)
    }

    // MARK: - Reading (for tests)

    /// The visible text of row `y`: each character once (continuation cells
    /// skipped), trailing spaces trimmed.
    public func rowText(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var s = ""
        for x in 0..<width {
            s += cells[y * width + x].text
        }
        while s.last == " " {
            s.removeLast()
        }
        return s
    }

    /// All rows' `rowText`, joined by "\n".
    public func text() -> String {
        (0..<height).map(rowText).joined(separator: "\n")
    }

    /// The column and row where `s` first appears (rows top to bottom, then
    /// left to right), matching from the start of a cell. Nil if absent.
    public func find(_ s: String) -> (x: Int, y: Int)? {
        let needle = Array(s.unicodeScalars)
        guard !needle.isEmpty else { return nil }
        for y in 0..<height {
            var scalars: [Unicode.Scalar] = []
            var starts: [(offset: Int, x: Int)] = []
            for x in 0..<width {
                let t = cells[y * width + x].text
                if t.isEmpty { continue }
                starts.append((scalars.count, x))
                scalars.append(contentsOf: t.unicodeScalars)
            }
            for start in starts where start.offset + needle.count <= scalars.count {
                if scalars[start.offset..<(start.offset + needle.count)].elementsEqual(needle) {
                    return (start.x, y)
                }
            }
        }
        return nil
    }

    // MARK: - Diffing

    /// The head cells of `self` (column, row; row-major order) that must be
    /// redrawn to turn a screen showing `old` into `self`: every character
    /// covering a column whose cell differs. All heads when `old` is nil or
    /// has another size.
    public func changes(from old: Grid?) -> [(x: Int, y: Int)] {
        let full = old == nil || old?.width != width || old?.height != height
        var result: [(x: Int, y: Int)] = []
        for y in 0..<height {
            var x = 0
            while x < width {
                var end = x + 1
                while end < width && cells[y * width + end].text.isEmpty {
                    end += 1
                }
                if full {
                    result.append((x, y))
                } else if let old {
                    for col in x..<end where cells[y * width + col] != old.cells[y * width + col] {
                        result.append((x, y))
                        break
                    }
                }
                x = end
            }
        }
        return result
    }

    // MARK: - Internals

    /// Stores a character of display width `w` at (x, y); the caller checked
    /// that it fits.
    private mutating func writeCluster(_ text: String, width w: Int, x: Int, y: Int, style: Style) {
        breakCluster(x: x, y: y)
        breakCluster(x: x + w - 1, y: y)
        cells[y * width + x] = Cell(text: text, style: style)
        for k in 1..<max(1, w) {
            cells[y * width + x + k] = Cell(text: "", style: style)
        }
    }

    /// If (x, y) belongs to a character wider than one column, blanks all of
    /// its columns (keeping their style).
    private mutating func breakCluster(x: Int, y: Int) {
        let r = span(x: x, y: y)
        guard r.count > 1 || cells[y * width + r.lowerBound].text.isEmpty else { return }
        for col in r {
            cells[y * width + col].text = " "
        }
    }

    /// `ch` as stored: a tab becomes a space and control characters (which
    /// ncurses would draw as ^X) become U+FFFD, one per control code point.
    private static func sanitized(_ ch: Character) -> [Character] {
        if let a = ch.asciiValue, a >= 0x20, a < 0x7F { return [ch] }
        var hasControl = false
        for scalar in ch.unicodeScalars where scalar.properties.generalCategory == .control {
            hasControl = true
            break
        }
        guard hasControl else { return [ch] }
        var out: [Character] = []
        var rest = String.UnicodeScalarView()
        for scalar in ch.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                if !rest.isEmpty {
                    out.append(contentsOf: String(rest))
                    rest = String.UnicodeScalarView()
                }
                out.append(scalar == "\t" ? " " : "\u{FFFD}")
            } else {
                rest.append(scalar)
            }
        }
        if !rest.isEmpty { out.append(contentsOf: String(rest)) }
        return out
    }
}

extension Int {
    /// `self + other`, saturating instead of trapping on overflow.
    fileprivate func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        if overflow { return other > 0 ? Int.max : Int.min }
        return sum
    }
}
