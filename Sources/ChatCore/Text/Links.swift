/// Links in message text: `http://`, `https://` and `mailto:` addresses,
/// as the full screen underlines them (OSC 8 where the terminal can) and
/// `o` opens them, and as exports link them.
public enum Links {
    public struct Link: Equatable, Sendable {
        /// Where the link sits in the text it was found in.
        public var range: Range<String.Index>
        /// The address, safe to hand to a terminal or `xdg-open`: printable
        /// ASCII only, no quote or angle bracket (see `find`).
        public var url: String
    }

    static let schemes = ["https://", "http://", "mailto:"]

    /// The links in `text`, in order. An address runs until a space, a
    /// character outside printable ASCII (Chinese text right after a link
    /// is not part of it), or `<`, `>`, `"`, `'`, `` ` ``; trailing
    /// punctuation is left out (`见 https://a.b/c。` and `(https://a.b/c)`
    /// link `https://a.b/c`), a closing bracket kept when the link opened it.
    public static func find(in text: String) -> [Link] {
        var found: [Link] = []
        let scalars = text.unicodeScalars
        var i = scalars.startIndex
        while i < scalars.endIndex {
            guard let scheme = schemes.first(where: { startsWith(scalars[i...], $0) }),
                  i == scalars.startIndex || !isWordCharacter(scalars[scalars.index(before: i)]) else {
                i = scalars.index(after: i)
                continue
            }
            var end = i
            while end < scalars.endIndex, isURLCharacter(scalars[end]) { end = scalars.index(after: end) }
            end = trimmed(scalars, from: i, to: end)
            let url = String(scalars[i..<end])
            if url.count > scheme.count {
                found.append(Link(range: i..<end, url: url))
                i = end
            } else {
                i = scalars.index(after: i)
            }
        }
        return found
    }

    private static func startsWith(_ s: String.UnicodeScalarView.SubSequence, _ prefix: String) -> Bool {
        var it = s.makeIterator()
        for p in prefix.unicodeScalars {
            guard let c = it.next(), c.properties.lowercaseMapping == String(p) || c == p else { return false }
        }
        return true
    }

    private static func isWordCharacter(_ c: Unicode.Scalar) -> Bool {
        c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))
    }

    private static func isURLCharacter(_ c: Unicode.Scalar) -> Bool {
        c.value > 0x20 && c.value < 0x7F && !"<>\"'`\\{}|^".unicodeScalars.contains(c)
    }

    /// Leaves out what ends a sentence rather than the address, and a
    /// closing bracket the address did not open.
    private static func trimmed(_ s: String.UnicodeScalarView, from start: String.Index, to end: String.Index) -> String.Index {
        var end = end
        while end > start {
            let last = s[s.index(before: end)]
            if ".,;:!?".unicodeScalars.contains(last) {
                end = s.index(before: end)
                continue
            }
            if let open = [")": "(", "]": "["][String(last)] {
                let body = String(s[start..<end])
                if body.filter({ String($0) == open }).count < body.filter({ String($0) == String(last) }).count {
                    end = s.index(before: end)
                    continue
                }
            }
            break
        }
        return end
    }
}
