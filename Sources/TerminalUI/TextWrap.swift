/// Wrapping and truncation by display width, grapheme clusters kept whole.
public enum TextWrap {
    /// Lines no wider than `width` (a single wider grapheme gets its own
    /// line). Latin words break at spaces when they can; CJK breaks anywhere.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var out: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            // Index in `line` just after the last space, for word breaks.
            var breakAt: String.Index?
            for ch in paragraph {
                let w = DisplayWidth.of(ch)
                if lineWidth + w > width && !line.isEmpty {
                    if ch != " ", let b = breakAt, b < line.endIndex, isWordChar(ch) {
                        let head = String(line[..<b])
                        let tail = String(line[b...])
                        out.append(trimTrailingSpaces(head))
                        line = tail
                        lineWidth = DisplayWidth.of(tail)
                    } else {
                        out.append(trimTrailingSpaces(line))
                        line = ""
                        lineWidth = 0
                    }
                    breakAt = nil
                    if ch == " " && line.isEmpty { continue }
                }
                line.append(ch)
                lineWidth += w
                if ch == " " { breakAt = line.endIndex }
                if !isWordChar(ch) && ch != " " { breakAt = line.endIndex }
            }
            out.append(trimTrailingSpaces(line))
        }
        return out
    }

    static func isWordChar(_ c: Character) -> Bool {
        c.unicodeScalars.allSatisfy { $0.value < 0x3000 } && (c.isLetter || c.isNumber || c.isPunctuation)
    }

    static func trimTrailingSpaces(_ s: String) -> String {
        var s = s
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    /// `s` cut to `width` columns, ending in `ellipsis` when cut.
    public static func truncate(_ s: String, width: Int, ellipsis: String = "…") -> String {
        guard DisplayWidth.of(s) > width else { return s }
        let room = max(0, width - DisplayWidth.of(ellipsis))
        var out = ""
        var w = 0
        for ch in s {
            let cw = DisplayWidth.of(ch)
            if w + cw > room { break }
            out.append(ch)
            w += cw
        }
        return out + ellipsis
    }
}
