import CNCurses
import Foundation
import Synchronization

/// The real terminal through ncursesw. Every ncurses call runs on one
/// dedicated thread (ARCHITECTURE.md: a blocking read on a pool thread
/// starves a 2-core machine); other threads hand it frames through a
/// latest-frame slot and receive keys through `keys`.
public final class Terminal: Sendable {
    struct Shared {
        var frame: Grid?
        var title: String?
        var bell = false
        var running = false
        var size = (width: 80, height: 24)
    }

    private let shared = Mutex(Shared())
    private let stream: AsyncStream<Key>
    private let continuation: AsyncStream<Key>.Continuation
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init() {
        (stream, continuation) = AsyncStream<Key>.makeStream(bufferingPolicy: .unbounded)
    }

    public var keys: AsyncStream<Key> { stream }

    public var size: (width: Int, height: Int) { shared.withLock { $0.size } }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Takes over the screen; returns once it is ready.
    public func start() throws {
        guard isatty(0) != 0, isatty(1) != 0 else {
            throw StartError(description: "tongban needs a terminal (stdin and stdout must be a TTY)")
        }
        shared.withLock { $0.running = true }
        let thread = Thread { [self] in self.loop() }
        thread.name = "tongban.ncurses"
        thread.start()
        started.wait()
    }

    /// Gives the screen back.
    public func stop() {
        let wasRunning = shared.withLock { s -> Bool in defer { s.running = false }; return s.running }
        if wasRunning { finished.wait() }
    }

    public func render(_ grid: Grid) { shared.withLock { $0.frame = grid } }
    public func bell() { shared.withLock { $0.bell = true } }

    public func setTitle(_ title: String) {
        let clean = String(title.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }
            .map(Character.init))
        shared.withLock { $0.title = clean }
    }

    // MARK: - The ncurses thread

    private func loop() {
        tb_setlocale_all("")
        if tb_locale_is_utf8() == 0 { tb_setlocale_all("C.UTF-8") }
        initscr()
        raw()
        noecho()
        nonl()
        keypad(tb_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        if has_colors() {
            start_color()
            use_default_colors()
        }
        wtimeout(tb_stdscr(), 30)
        tb_write_raw("\u{1B}[?2004h")
        let titleAllowed = ["xterm", "tmux", "screen", "rxvt", "alacritty", "kitty", "foot", "wezterm"]
            .contains { (ProcessInfo.processInfo.environment["TERM"] ?? "").contains($0) }
        var painter = Painter()
        updateSize()
        started.signal()

        var decoder = KeyDecoder(codes: .init(
            up: tb_key_up(), down: tb_key_down(), left: tb_key_left(), right: tb_key_right(), home: tb_key_home(),
            end: tb_key_end(), pageUp: tb_key_ppage(), pageDown: tb_key_npage(), backspace: tb_key_backspace(),
            delete: tb_key_dc(), backTab: tb_key_btab(), enter: tb_key_enter(), resize: tb_key_resize()))
        var escapeWaiting = false
        while shared.withLock({ $0.running }) {
            var code: UInt32 = 0
            let r = tb_get_wch(tb_stdscr(), &code)
            var raw: RawInput?
            if r == tb_key_code_yes() {
                raw = .function(Int32(bitPattern: code))
                if Int32(bitPattern: code) == tb_key_resize() { updateSize(); painter.invalidate() }
            } else if r != tb_err() {
                raw = .char(code)
            } else if escapeWaiting {
                raw = .timeout
            }
            if let raw {
                let keys = decoder.feed(raw)
                escapeWaiting = { if case .char(27) = raw { return true } else { return false } }() || (escapeWaiting && keys.isEmpty && raw != .timeout)
                for k in keys { continuation.yield(k) }
            }
            let (frame, title, ring) = shared.withLock { s -> (Grid?, String?, Bool) in
                defer { s.frame = nil; s.title = nil; s.bell = false }
                return (s.frame, s.title, s.bell)
            }
            if let frame { painter.paint(frame) }
            if let title, titleAllowed { tb_write_raw("\u{1B}]0;\(title)\u{07}") }
            if ring { beep() }
        }
        tb_write_raw("\u{1B}[?2004l")
        endwin()
        continuation.finish()
        finished.signal()
    }

    private func updateSize() {
        let w = Int(tb_cols()), h = Int(tb_lines())
        shared.withLock { $0.size = (max(1, w), max(1, h)) }
    }
}

/// Writes only the cells that changed since the last frame; colour pairs
/// are allocated on first use.
struct Painter {
    var last: Grid?
    var pairs: [Pair: Int16] = [:]
    var nextPair: Int16 = 1

    struct Pair: Hashable { var fg: TermColor; var bg: TermColor }

    mutating func invalidate() {
        last = nil
        clear()
    }

    mutating func paint(_ grid: Grid) {
        let changed = grid.changes(from: last)
        if last == nil || last!.width != grid.width || last!.height != grid.height { erase() }
        for (x, y) in changed {
            let cell = grid[x, y]
            if cell.text.isEmpty { continue }  // right half of a wide character
            var attrs = tb_a_normal()
            if cell.style.bold { attrs |= tb_a_bold() }
            if cell.style.reverse { attrs |= tb_a_reverse() }
            if cell.style.underline { attrs |= tb_a_underline() }
            if cell.style.dim { attrs |= tb_a_dim() }
            let pair = pairNumber(cell.style)
            var scalars = Array(cell.text.unicodeScalars.prefix(8)).map { wchar_t(bitPattern: $0.value) }
            scalars.append(0)
            _ = tb_put_cell(Int32(y), Int32(x), scalars, attrs, pair)
        }
        last = grid
        refresh()
    }

    mutating func pairNumber(_ style: Style) -> Int16 {
        if style.fg == .default && style.bg == .default { return 0 }
        let key = Pair(fg: style.fg, bg: style.bg)
        if let p = pairs[key] { return p }
        guard Int32(nextPair) < tb_color_pairs() else { return 0 }
        func number(_ c: TermColor) -> Int16 {
            switch c {
            case .default: return -1
            case .index(let i): return tb_colors() >= 256 ? Int16(i) : Int16(i % 8)
            }
        }
        init_pair(nextPair, number(style.fg), number(style.bg))
        pairs[key] = nextPair
        nextPair += 1
        return pairs[key]!
    }
}
