/// Wrapping and truncating text by display width (`DisplayWidth`), never
/// splitting a grapheme cluster.
public enum TextWrap {
    /// Splits `text` into lines at most `width` columns wide.
    ///
    /// - Hard breaks at every newline ("\n", "\r\n", "\r", U+2028...); an empty
    ///   paragraph gives an empty line, so `wrap("", …) == [""]`.
    /// - Latin words stay whole when they fit on a line: lines break after
    ///   spaces, the spaces at a soft break are dropped.
    /// - CJK text (and any other character two or more columns wide) may break
    ///   between any two characters, except before closing punctuation such
    ///   as "，。！？）」" or after opening punctuation such as "（「" when
    ///   another break point exists on the line.
    /// - A word longer than a line is cut at the width.
    /// - No line is wider than `width`, except a single grapheme wider than
    ///   `width` (你 at width 1), which gets a line of its own.
    /// `width` below 1 is treated as 1.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var paragraph: [Character] = []
        for ch in text {
            if ch.isNewline {
                lines.append(contentsOf: wrapParagraph(paragraph, width: width))
                paragraph.removeAll(keepingCapacity: true)
            } else {
                paragraph.append(ch)
            }
        }
        lines.append(contentsOf: wrapParagraph(paragraph, width: width))
        return lines
    }

    /// `s` cut to at most `width` columns; when it is cut, the end is replaced
    /// by `ellipsis` ("…"). Graphemes are kept whole. If even the ellipsis does
    /// not fit, as much of `s` as fits is returned without it.
    public static func truncate(_ s: String, width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        if DisplayWidth.of(s) <= width { return s }
        let ellipsisWidth = DisplayWidth.of(ellipsis)
        let room = ellipsisWidth <= width ? width - ellipsisWidth : width
        var out = ""
        var used = 0
        for ch in s {
            let w = DisplayWidth.of(ch)
            if used + w > room { break }
            out.append(ch)
            used += w
        }
        return ellipsisWidth <= width ? out + ellipsis : out
    }

    // MARK: - Internals

    private struct Item {
        let ch: Character
        let width: Int
    }

    private static func wrapParagraph(_ chars: [Character], width: Int) -> [String] {
        var lines: [String] = []
        var line: [Item] = []
        var lineWidth = 0
        /// Index in `line` where the next line may start (0 = no break point).
        var breakAt = 0
        /// The current line follows a soft break: leading spaces are dropped.
        var continuation = false

        func emit(_ items: ArraySlice<Item>) {
            var end = items.endIndex
            while end > items.startIndex && items[end - 1].ch == " " {
                end -= 1
            }
            lines.append(String(items[items.startIndex..<end].map(\.ch)))
        }
        func newLine() {
            line.removeAll(keepingCapacity: true)
            lineWidth = 0
            breakAt = 0
            continuation = true
        }

        var i = 0
        while i < chars.count {
            let ch = chars[i]
            if continuation && line.isEmpty && ch == " " {
                i += 1
                continue
            }
            let w = DisplayWidth.of(ch)
            let canBreakBefore = line.last.map { isBreakOpportunity(after: $0, before: ch, nextWidth: w) } ?? false
            if w == 0 || lineWidth + w <= width {
                if canBreakBefore { breakAt = line.count }
                line.append(Item(ch: ch, width: w))
                lineWidth += w
                i += 1
            } else if ch == " " {
                // A space that overflows is the break itself.
                emit(line[...])
                newLine()
                i += 1
            } else if canBreakBefore {
                emit(line[...])
                newLine()
            } else if breakAt > 0, line[..<breakAt].contains(where: { $0.ch != " " }) {
                // Move the word (or the CJK character kept with its
                // punctuation) after the last break point to the next line.
                emit(line[..<breakAt])
                let rest = Array(line[breakAt...])
                newLine()
                for item in rest {
                    if let prev = line.last, isBreakOpportunity(after: prev, before: item.ch, nextWidth: item.width) {
                        breakAt = line.count
                    }
                    line.append(item)
                    lineWidth += item.width
                }
            } else if lineWidth == 0 {
                // A single grapheme wider than the line: a line of its own.
                line.append(Item(ch: ch, width: w))
                emit(line[...])
                newLine()
                i += 1
            } else {
                // A word longer than the line: cut it.
                emit(line[...])
                newLine()
            }
        }
        if !line.isEmpty {
            // The paragraph's last line keeps its trailing spaces (they fit).
            lines.append(String(line.map(\.ch)))
        } else if lines.isEmpty {
            lines.append("")
        }
        return lines
    }

    /// Whether a line may break between `prev` and `next`.
    private static func isBreakOpportunity(after prev: Item, before next: Character, nextWidth: Int) -> Bool {
        if next == " " { return false }
        if prev.ch == " " { return true }
        if nextWidth == 0 { return false }
        if noBreakBefore.contains(next) || noBreakAfter.contains(prev.ch) { return false }
        return prev.width >= 2 || nextWidth >= 2
    }

    /// Closing punctuation that should not start a line (kinsoku).
    private static let noBreakBefore: Set<Character> = Set(
        "，。、；：！？）」』】〕〉》〗〙’”…～・ーゝゞ々ぁぃぅぇぉっゃゅょァィゥェォッャュョ％．］｝,.;:!?)]}%"
    )

    /// Opening punctuation that should not end a line.
    private static let noBreakAfter: Set<Character> = Set("（「『【〔〈《〖〘‘“［｛([{")
}
