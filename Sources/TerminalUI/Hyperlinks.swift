/// A run of cells on one row that is a link to `url`.
public struct GridLink: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var columns: Int
    public var url: String

    public init(x: Int, y: Int, columns: Int, url: String) {
        self.x = x; self.y = y; self.columns = columns; self.url = url
    }
}

/// OSC 8 hyperlinks on top of ncurses, which knows nothing of them: after
/// an update, the link cells of the rows it touched are written once more,
/// inside `ESC ] 8 ; ; URL ESC \` … `ESC ] 8 ; ; ESC \`, with the cursor saved
/// and restored around them (as `TrueColorOverlay` does for colours).
/// Each link is closed in the same write it is opened in, so no text from
/// a message can end up inside an open one.
public enum Hyperlinks {
    /// Whether to write them: asked for (`config.json`'s `hyperlinks`), and
    /// not inside tmux, which drops or garbles OSC 8 unless it is set up to
    /// pass it (`TONGBAN_HYPERLINKS=1` then forces them on).
    public static func wanted(setting: Bool, environment: [String: String]) -> Bool {
        if let forced = environment["TONGBAN_HYPERLINKS"] { return forced == "1" }
        return setting && environment["TMUX"] == nil && environment["TERM"]?.hasPrefix("screen") != true
    }

    /// The bytes that make `grid`'s links on `rows` hyperlinks, or "".
    public static func escapes(for grid: Grid, rows: Set<Int>, cols: Int, lines: Int) -> String {
        var out = ""
        for link in grid.links where rows.contains(link.y) && link.y < lines && link.y >= 0 {
            guard let url = safe(link.url) else { continue }
            var text = ""
            var x = max(0, link.x)
            while x < min(cols, link.x + link.columns, grid.width) {
                let cell = grid[x, link.y]
                // Only plain one-column cells: addresses are printable ASCII.
                guard !cell.isContinuation, cell.text.unicodeScalars.count == 1,
                      let v = cell.text.unicodeScalars.first?.value, v >= 0x20, v < 0x7F else { break }
                text += TrueColorOverlay.sgr(cell.style) + cell.text
                x += 1
            }
            guard !text.isEmpty else { continue }
            if out.isEmpty { out = "\u{1B}7" }
            out += "\u{1B}[\(link.y + 1);\(max(0, link.x) + 1)H\u{1B}]8;;\(url)\u{1B}\\" + text + "\u{1B}]8;;\u{1B}\\"
        }
        if !out.isEmpty { out += "\u{1B}[0m\u{1B}8" }
        return out
    }

    /// The address as an OSC 8 may carry it: printable ASCII only, at most
    /// 2,000 bytes (terminals drop longer ones); nil otherwise.
    static func safe(_ url: String) -> String? {
        guard !url.isEmpty, url.utf8.count <= 2000,
              url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return url
    }
}
