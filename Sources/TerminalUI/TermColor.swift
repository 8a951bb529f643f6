/// A terminal colour: the terminal's own default, an xterm palette index
/// (0–7 basic, 8–15 bright, 16–231 6×6×6 cube, 232–255 greys), or a 24-bit
/// colour.
///
/// `Terminal` maps indexes down when the terminal has fewer colours (see
/// `ColorMapping`). A 24-bit colour is drawn as its nearest palette index
/// by ncurses and, where the terminal says it has true colour (`COLORTERM`),
/// repainted exactly on top (see `TrueColorOverlay`).
public enum TermColor: Hashable, Sendable {
    case `default`
    case index(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    /// The palette index ncurses draws: `.rgb` becomes its nearest xterm-256
    /// colour, `.default` stays nil.
    public var paletteIndex: UInt8? {
        switch self {
        case .default: return nil
        case .index(let n): return n
        case .rgb(let r, let g, let b): return HalfBlock.xterm256(r, g, b)
        }
    }

    public static let black = TermColor.index(0)
    public static let red = TermColor.index(1)
    public static let green = TermColor.index(2)
    public static let yellow = TermColor.index(3)
    public static let blue = TermColor.index(4)
    public static let magenta = TermColor.index(5)
    public static let cyan = TermColor.index(6)
    public static let white = TermColor.index(7)
    /// Bright black, index 8.
    public static let gray = TermColor.index(8)
    public static let brightRed = TermColor.index(9)
    public static let brightGreen = TermColor.index(10)
    public static let brightYellow = TermColor.index(11)
    public static let brightBlue = TermColor.index(12)
    public static let brightMagenta = TermColor.index(13)
    public static let brightCyan = TermColor.index(14)
    public static let brightWhite = TermColor.index(15)

    /// A colour of the 6×6×6 cube, each component 0...5 (clamped).
    public static func rgb6(_ r: Int, _ g: Int, _ b: Int) -> TermColor {
        func c(_ v: Int) -> Int { min(5, max(0, v)) }
        return .index(UInt8(16 + 36 * c(r) + 6 * c(g) + c(b)))
    }

    /// A grey of the 24-step ramp, level 0...23 (clamped), dark to light.
    public static func grey(_ level: Int) -> TermColor {
        .index(UInt8(232 + min(23, max(0, level))))
    }
}
