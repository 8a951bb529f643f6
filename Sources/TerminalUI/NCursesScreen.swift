import CNCurses
import CTermWake
import Foundation

/// The ncurses side of `Terminal`: sets the terminal up, blits grids, reads
/// raw input, tears down. Not thread safe by design: it is created, used and
/// closed on the `Terminal`'s own thread only, and never leaves it.
final class NCursesScreen {
    private let screen: OpaquePointer
    private let colorMapping: ColorMapping?
    private let maxPair: Int
    private let titleAllowed: Bool
    /// 24-bit colours are repainted exactly over ncurses' palette colours.
    private let trueColor: Bool
    private var titlePushed = false
    private var shownTitle: String?
    private var last: Grid?
    private var needsFullRedraw = true
    private var cursorVisible = false
    private var lastCursor: (x: Int, y: Int)?
    private var pairs: [ColorMapping.Resolved: Int16] = [:]
    private var nextPair = 1
    /// SIGINT/SIGTERM whose handler we replaced (they had none before).
    private let cleanupSignals: [Int32]

    /// Escape delay in milliseconds: how long ncurses waits after ESC for
    /// the rest of a function-key sequence.
    static let escapeDelay: Int32 = 25

    /// Checks for a terminal and sets the user's locale, or C.UTF-8 when it
    /// is not UTF-8: ncursesw needs a UTF-8 LC_CTYPE to read and write wide
    /// characters. Called before `init`, by the thread that starts the
    /// terminal thread.
    static func prepare() throws(Terminal.StartError) {
        guard tb_stdio_is_tty() != 0 else { throw .notATerminal }
        _ = tb_setlocale_all("")
        if tb_codeset_is_utf8() == 0 {
            guard tb_setlocale_all("C.UTF-8") != 0 || tb_setlocale_all("C.utf8") != 0,
                  tb_codeset_is_utf8() != 0
            else { throw .noUTF8Locale }
        }
    }

    /// Sets the terminal up. Must be called on the thread that will make
    /// every later call.
    /// `wakeFD`: the write end of the terminal thread's wake-up pipe, which
    /// SIGWINCH also writes to (after ncurses' own handler).
    init(environment: [String: String], wakeFD: Int32) throws(Terminal.StartError) {
        // Signals nobody handles get a handler that restores the terminal
        // (ncurses installs its own for them, which misses bracketed paste).
        let cleanupSignals = [tb_sigint(), tb_sigterm()].filter { tb_signal_is_default($0) != 0 }
        guard let screen = tb_newterm() else {
            throw .cannotInitialize(term: environment["TERM"] ?? "")
        }
        self.screen = screen
        self.cleanupSignals = cleanupSignals
        for sig in cleanupSignals {
            tb_install_fatal_signal_cleanup(sig)
        }
        raw()
        noecho()
        nonl()
        let win = tb_stdscr()
        keypad(win, true)
        intrflush(win, false)
        set_escdelay(Self.escapeDelay)
        // Bracketed paste markers come back as single key codes.
        define_key("\u{1B}[200~", KeyDecoder.Code.pasteBegin)
        define_key("\u{1B}[201~", KeyDecoder.Code.pasteEnd)
        if has_colors() {
            start_color()
            let hasDefault = use_default_colors() == tb_ok()
            colorMapping = ColorMapping(colors: Int(tb_colors()), hasDefaultColors: hasDefault)
            maxPair = min(Int(tb_color_pairs()) - 1, Int(Int16.max))
        } else {
            colorMapping = nil
            maxPair = 0
        }
        curs_set(0)
        tb_leave_initial_state()
        tb_install_winch_wake(wakeFD)
        trueColor = colorMapping != nil && HalfBlock.trueColor(environment: environment)
        titleAllowed = Self.supportsTitle(term: environment["TERM"] ?? "")
        tb_write_raw("\u{1B}[?2004h")
    }

    /// Columns and rows of the terminal.
    var size: (width: Int, height: Int) {
        (Int(tb_cols()), Int(tb_lines()))
    }

    // MARK: - Input

    /// Waits up to `timeout` ms (0: do not wait) for one input.
    func read(timeout: Int32) -> KeyDecoder.Input {
        wtimeout(tb_stdscr(), timeout)
        var value: UInt32 = 0
        let r = tb_get_wch(&value)
        if r == tb_ok() { return .char(value) }
        if r == tb_key_code_yes() {
            if Int32(bitPattern: value) == tb_key_mouse() {
                var x: Int32 = 0, y: Int32 = 0
                switch tb_get_mouse(&x, &y) {
                case 1: return .mouse(MouseEvent(.press, x: Int(x), y: Int(y)))
                case 2: return .mouse(MouseEvent(.release, x: Int(x), y: Int(y)))
                case 3: return .mouse(MouseEvent(.wheelUp, x: Int(x), y: Int(y)))
                case 4: return .mouse(MouseEvent(.wheelDown, x: Int(x), y: Int(y)))
                default: return .timeout
                }
            }
            if Int32(bitPattern: value) == KeyDecoder.Code.resize {
                needsFullRedraw = true
            }
            return .keyCode(Int32(bitPattern: value))
        }
        return .timeout
    }

    // MARK: - Output

    /// Clears the terminal and repaints the last frame in full.
    func invalidate() {
        needsFullRedraw = true
        if let last {
            draw(last, cursor: lastCursor)
        }
    }

    /// Draws `grid`, writing only the cells that changed since the last frame
    /// (everything after a resize, on the first frame, or when the grid's size
    /// changed), and shows the cursor at `cursor` (hidden if nil or outside).
    func draw(_ grid: Grid, cursor: (x: Int, y: Int)?) {
        let (cols, lines) = size
        var full = needsFullRedraw
        if let last, last.width != grid.width || last.height != grid.height { full = true }
        if full {
            werase(tb_stdscr())
            if needsFullRedraw && last != nil {
                // After a resize or `invalidate()` the terminal's content is
                // unknown: clear it for real.
                clearok(tb_stdscr(), true)
            }
        }
        let previous = full ? nil : last
        var repaintRows = Set<Int>()
        let changed = grid.changes(from: previous)
        for (x, y) in changed where y < lines && x < cols {
            let cell = grid[x, y]
            let span = grid.span(x: x, y: y).count
            if Self.hasRegionalIndicator(cell.text)
                || previous.map({ Self.hasRegionalIndicator($0[x, y].text) }) == true {
                repaintRows.insert(y)
            }
            drawCell(cell, x: x, y: y, span: span, cols: cols)
        }
        for y in repaintRows {
            // Terminals pair up regional indicators on their own: redraw the
            // whole row so a flag is never sent half.
            wredrawln(tb_stdscr(), Int32(y), 1)
        }
        if let cursor, cursor.x >= 0, cursor.y >= 0, cursor.x < cols, cursor.y < lines {
            wmove(tb_stdscr(), Int32(cursor.y), Int32(cursor.x))
            if !cursorVisible {
                curs_set(1)
                cursorVisible = true
            }
        } else if cursorVisible {
            curs_set(0)
            cursorVisible = false
        }
        wnoutrefresh(tb_stdscr())
        doupdate()
        // doupdate() may have taken a pending resize: then the overlay would
        // aim at the old size, and the resize event repaints everything anyway.
        if trueColor, size.width == cols, size.height == lines {
            // doupdate() has flushed ncurses' output: the overlay comes after it.
            // ncurses rewrites short runs of unchanged cells between changed
            // ones (cheaper than moving the cursor) and whole rows for flags,
            // in palette colours: every row it touched gets its overlay again.
            let rows = repaintRows.union(changed.map(\.y)).sorted()
            let cells = rows.flatMap { y in (0..<grid.width).map { (x: $0, y: y) } }
            let overlay = TrueColorOverlay.escapes(for: grid, cells: cells, cols: cols, lines: lines)
            if !overlay.isEmpty {
                // The cursor is hidden while it jumps through the picture.
                tb_write_raw(cursorVisible ? "\u{1B}[?25l" + overlay + "\u{1B}[?25h" : overlay)
            }
        }
        if hyperlinks, !grid.links.isEmpty, size.width == cols, size.height == lines {
            let rows = repaintRows.union(changed.map(\.y))
            let links = Hyperlinks.escapes(for: grid, rows: rows, cols: cols, lines: lines)
            if !links.isEmpty { tb_write_raw(cursorVisible ? "\u{1B}[?25l" + links + "\u{1B}[?25h" : links) }
        }
        last = grid
        lastCursor = cursor
        needsFullRedraw = false
    }

    func bell() {
        beep()
    }

    /// OSC 8 around links (`Hyperlinks`).
    var hyperlinks = false

    /// Mouse reports on or off.
    func setMouse(_ on: Bool) {
        tb_mouse(on ? 1 : 0)
    }

    /// An escape sequence to the terminal as it is (a notification).
    /// Gives the terminal to another program (an editor): the program's
    /// modes are saved, the screen left as at exit, bracketed paste off.
    func suspend() {
        def_prog_mode()
        endwin()
        tb_write_raw("\u{1B}[?2004l")
    }

    /// Takes the terminal back after `suspend` and draws everything again.
    func resume() {
        reset_prog_mode()
        tb_write_raw("\u{1B}[?2004h")
        refresh()
        needsFullRedraw = true
        if let last { draw(last, cursor: lastCursor) }
    }

    func writeRaw(_ sequence: String) {
        tb_write_raw(sequence)
    }

    /// Sets the window title with OSC 0 on terminals known to support it.
    /// Control and format characters are removed; an empty title restores
    /// the title saved at the first call (xterm title stack).
    func setTitle(_ title: String) {
        guard titleAllowed else { return }
        let clean = String(String.UnicodeScalarView(title.unicodeScalars.filter {
            let category = $0.properties.generalCategory
            return category != .control && category != .format
        }).prefix(256))
        // The same title again is not sent again (one write saved per frame).
        guard clean != shownTitle else { return }
        shownTitle = clean
        if !titlePushed {
            tb_write_raw("\u{1B}[22;0t")
            titlePushed = true
        }
        tb_write_raw("\u{1B}]0;\(clean)\u{07}")
    }

    /// Restores the terminal: bracketed paste off, title, cursor, endwin.
    func close() {
        tb_remove_winch_wake()
        curs_set(1)
        endwin()
        tb_write_raw("\u{1B}[?2004l")
        if titlePushed {
            tb_write_raw("\u{1B}[23;0t")
        }
        delscreen(screen)
        for sig in cleanupSignals {
            tb_reset_signal(sig)
        }
    }

    // MARK: - Internals

    private func drawCell(_ cell: Cell, x: Int, y: Int, span: Int, cols: Int) {
        let (attrs, pair) = attributes(for: cell.style)
        var col = x
        // Printable ASCII, most of any frame, is its own single piece of width
        // one (DisplayWidth keeps it as it is): drawn without the arrays the
        // general case builds, three allocations per cell of a whole frame.
        let utf8 = cell.text.utf8
        if utf8.count == 1, let byte = utf8.first, byte >= 0x20, byte < 0x7F {
            if span >= 1 {
                var scalar = UInt32(byte)
                _ = tb_put_cell(Int32(y), Int32(col), &scalar, 1, attrs, pair)
                col += 1
            }
        } else {
            var pieces: [DisplayWidth.Piece] = []
            for ch in cell.text {
                pieces.append(contentsOf: DisplayWidth.pieces(of: ch))
            }
            let drawnWidth = pieces.reduce(0) { $0 + $1.width }
            if drawnWidth <= span && x + drawnWidth <= cols {
                for piece in pieces {
                    piece.scalars.withUnsafeBufferPointer { buffer in
                        _ = tb_put_cell(Int32(y), Int32(col), buffer.baseAddress, Int32(buffer.count), attrs, pair)
                    }
                    col += piece.width
                }
            }
        }
        // Whatever the character does not cover (or cannot be drawn in)
        // becomes spaces, so ncurses and the grid agree on every column.
        var space: UInt32 = 0x20
        let end = min(x + span, cols)
        while col < end {
            _ = tb_put_cell(Int32(y), Int32(col), &space, 1, attrs, pair)
            col += 1
        }
    }

    /// The last style's attributes: a frame's cells come in runs of one
    /// style, and its colour pair is a dictionary look-up.
    private var lastAttributes: (style: Style, attrs: attr_t, pair: Int16)?

    private func attributes(for style: Style) -> (attr_t, Int16) {
        if let last = lastAttributes, last.style == style { return (last.attrs, last.pair) }
        let (attrs, pair) = resolvedAttributes(for: style)
        lastAttributes = (style, attrs, pair)
        return (attrs, pair)
    }

    private func resolvedAttributes(for style: Style) -> (attr_t, Int16) {
        var attrs = tb_a_normal()
        if style.bold { attrs |= tb_a_bold() }
        if style.reverse { attrs |= tb_a_reverse() }
        if style.underline { attrs |= tb_a_underline() }
        if style.dim { attrs |= tb_a_dim() }
        guard let colorMapping, style.fg != .default || style.bg != .default else { return (attrs, 0) }
        let resolved = colorMapping.resolve(fg: style.fg, bg: style.bg)
        if resolved.bold { attrs |= tb_a_bold() }
        return (attrs, pair(for: resolved))
    }

    /// The colour pair for a fg/bg combination, allocated on first use. When
    /// the terminal's pairs run out, the default pair (0) is used.
    private func pair(for resolved: ColorMapping.Resolved) -> Int16 {
        var key = resolved
        key.bold = false
        if key.fg == -1 && key.bg == -1 { return 0 }
        if let known = pairs[key] { return known }
        guard nextPair <= maxPair else { return 0 }
        let number = Int16(nextPair)
        guard init_pair(number, key.fg, key.bg) == tb_ok() else { return 0 }
        nextPair += 1
        pairs[key] = number
        return number
    }

    private static func hasRegionalIndicator(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0x1F1E6...0x1F1FF).contains($0.value) }
    }

    /// Terminals that understand OSC 0 (window title) and the title stack.
    static func supportsTitle(term: String) -> Bool {
        let t = term.lowercased()
        let prefixes = ["xterm", "tmux", "screen", "rxvt", "alacritty", "kitty", "foot", "wezterm", "ghostty"]
        return prefixes.contains { t.hasPrefix($0) }
    }
}
