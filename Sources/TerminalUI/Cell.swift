/// One column of a `Grid`.
///
/// `text` is one grapheme cluster for the cell where a character starts, " "
/// for a blank, and "" for each further column a wide character covers (the
/// right half of 你, columns 2–6 of 👨‍👩‍👧). Those continuation cells carry the
/// same style as the cell they continue.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style

    public init(text: String = " ", style: Style = Style()) {
        self.text = text
        self.style = style
    }

    /// True for the right part of a wide character.
    public var isContinuation: Bool { text.isEmpty }
}
