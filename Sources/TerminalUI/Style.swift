/// A terminal colour: the terminal's default or one of 256 indexed colours.
public enum TermColor: Hashable, Sendable {
    case `default`
    case index(UInt8)

    public static let black = TermColor.index(0)
    public static let red = TermColor.index(1)
    public static let green = TermColor.index(2)
    public static let yellow = TermColor.index(3)
    public static let blue = TermColor.index(4)
    public static let magenta = TermColor.index(5)
    public static let cyan = TermColor.index(6)
    public static let white = TermColor.index(7)
    public static let gray = TermColor.index(8)
}

/// How a cell looks.
public struct Style: Hashable, Sendable {
    public var fg: TermColor
    public var bg: TermColor
    public var bold: Bool
    public var reverse: Bool
    public var underline: Bool
    public var dim: Bool

    public init(fg: TermColor = .default, bg: TermColor = .default, bold: Bool = false, reverse: Bool = false,
                underline: Bool = false, dim: Bool = false) {
        self.fg = fg; self.bg = bg; self.bold = bold; self.reverse = reverse; self.underline = underline; self.dim = dim
    }
}
