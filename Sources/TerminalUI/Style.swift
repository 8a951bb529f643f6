/// How a cell is drawn: colours and attributes.
public struct Style: Hashable, Sendable {
    public var fg: TermColor
    public var bg: TermColor
    public var bold: Bool
    public var reverse: Bool
    public var underline: Bool
    public var dim: Bool

    public init(
        fg: TermColor = .default,
        bg: TermColor = .default,
        bold: Bool = false,
        reverse: Bool = false,
        underline: Bool = false,
        dim: Bool = false
    ) {
        self.fg = fg
        self.bg = bg
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
        self.dim = dim
    }
}
