/// A key press (or paste, or resize) decoded from the terminal.
public enum Key: Hashable, Sendable {
    /// A printable grapheme: letters, digits, punctuation, space, CJK (an IME
    /// commit of 你好 arrives as .char("你"), .char("好")), emoji.
    case char(Character)
    /// Return / Enter (CR, keypad Enter). Ctrl-M is the same key.
    case enter
    /// Esc pressed alone (nothing followed within the escape delay).
    case escape
    /// Tab. Ctrl-I is the same key.
    case tab
    /// Shift-Tab.
    case backTab
    case up, down, left, right
    case home, end, pageUp, pageDown
    /// Backspace (DEL 127, Ctrl-H 8, or the terminal's backspace key code).
    case backspace
    /// Forward delete.
    case delete
    /// The terminal changed size; `Terminal.size` is already updated.
    case resize
    /// Ctrl plus a letter, as the lowercase letter: Ctrl-A is .ctrl("a").
    /// Ctrl-I is .tab, Ctrl-M is .enter and Ctrl-H is .backspace; Ctrl-J
    /// (LF) is .ctrl("j"). Ctrl-Space is .ctrl(" "); Ctrl-\ ] ^ _ are
    /// .ctrl("\\"), .ctrl("]"), .ctrl("^"), .ctrl("_"). Ctrl-C, Ctrl-Z, Ctrl-S
    /// and Ctrl-Q arrive as keys too (the terminal runs in raw mode), so the
    /// app decides what they do.
    case ctrl(Character)
    /// Alt (Meta) plus a printable character: ESC followed by it within the
    /// escape delay.
    case alt(Character)
    /// Alt-Enter (ESC followed by CR or LF).
    case altEnter
    /// Text pasted while bracketed paste was on, newlines as "\n".
    case paste(String)
    /// A click or a turn of the wheel (when the mouse is on).
    case mouse(MouseEvent)
    /// The terminal answering a query, not a key: a kitty graphics reply
    /// (`ESC _ G … ESC \`, its body) or the device attributes (`ESC [ ? … c`,
    /// the part between `?` and `c`). See `TerminalGraphics`.
    case reply(TerminalReply)
}

/// What a terminal said back to a query (`TerminalGraphics.query`).
public enum TerminalReply: Hashable, Sendable {
    /// A kitty graphics protocol answer, e.g. `Gi=31;OK`.
    case graphics(String)
    /// Primary device attributes, e.g. `62;4;22` (4: sixel).
    case deviceAttributes(String)
    /// A character cell's size in pixels (`ESC [ 16 t`'s answer).
    case cellSize(width: Int, height: Int)
    /// The terminal's background colour (`ESC ] 11 ; ?`'s answer).
    case background(red: UInt8, green: UInt8, blue: UInt8)
}

/// What the mouse did, at which cell (column, row from the top left).
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The left button went down.
        case press
        case release
        case wheelUp, wheelDown
    }

    public var kind: Kind
    public var x: Int
    public var y: Int

    public init(_ kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}
