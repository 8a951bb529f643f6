import CNCurses

/// How many terminal columns text takes, measured the way ncurses will
/// advance the cursor when `Terminal` draws it.
///
/// ## Policy
///
/// A grapheme's width is glibc's per-code-point `wcwidth` summed over the
/// code points that Tongban actually sends to the terminal for it. ncurses
/// and tmux 3.3a advance by the same per-code-point widths (CJK 2, 👍 2, ❤ 1,
/// combining marks 0), so grid, ncurses and terminal agree. Code points that
/// terminals disagree on are not sent at all, so there is nothing left to
/// disagree about:
///
/// | dropped when drawing | why | example |
/// |---|---|---|
/// | U+FE0E / U+FE0F variation selectors | modern terminals widen ❤️ to 2, glibc/ncurses/tmux keep 1 | ❤️ → ❤, width 1 |
/// | ZWJ and every other format character (Cf: bidi controls, tags, ZWSP, soft hyphen) | tmux 3.3a glues the character after a ZWJ into the previous cell; other terminals draw one 2-wide glyph | 👨‍👩‍👧 → 👨👩👧, width 6 |
/// | emoji skin-tone modifiers U+1F3FB–1F3FF after a base | glibc/tmux give 4, modern terminals 2 | 👍🏽 → 👍, width 2 |
///
/// Flags (two regional indicators) are sent as they are: glibc gives 1 + 1,
/// tmux and modern terminals draw one 2-wide flag, so the total (2) agrees.
///
/// Substitutions, also applied when drawing: a tab becomes a space; control
/// characters and code points glibc cannot measure (`wcwidth` -1: C0/C1
/// controls, emoji newer than glibc's Unicode tables such as 🫨) become U+FFFD
/// "�" of width 1 — tmux 3.3a silently drops unknown code points, ncurses
/// would show `^X` for controls, either of which would tear the screen. So
/// -1 is clamped to 1, as the cell it occupies really is 1 wide.
///
/// A grapheme of width 0 (a lone combining mark, a lone ZWJ) draws nothing and
/// `Grid.put` skips it.
///
/// East Asian "ambiguous" characters (─ │ ● … —) are 1 wide, as in glibc;
/// terminals configured to draw them 2 wide will tear.
///
/// ## Locale
///
/// `wcwidth` only knows non-ASCII widths in a UTF-8 locale (in the "C" locale
/// 你 is -1). Rather than calling `setlocale` (process-wide, not thread safe),
/// `DisplayWidth` creates one private `C.UTF-8` LC_CTYPE locale on first use
/// (`newlocale`, falling back to `en_US.UTF-8`) and switches to it with
/// `uselocale` around each `wcwidth` call on the calling thread only. All
/// glibc UTF-8 locales share the same width table, so this equals what
/// ncurses measures after `Terminal.start()` set a UTF-8 locale.
public enum DisplayWidth {
    /// Columns taken by one grapheme cluster (0, 1, 2, or more for a cluster
    /// that draws as several cells such as 👨‍👩‍👧 → 6).
    public static func of(_ c: Character) -> Int {
        // Fast path: printable ASCII is 1; ASCII controls draw as " " or "�".
        if isSingleASCII(c) { return 1 }
        var total = 0
        var first = true
        for scalar in c.unicodeScalars {
            if let kept = drawnScalar(scalar, isFirst: first) {
                total += scalarWidth(kept)
            }
            first = false
        }
        return total
    }

    /// Columns taken by a string: the sum over its grapheme clusters.
    public static func of(_ s: String) -> Int {
        var total = 0
        for c in s {
            total += of(c)
        }
        return total
    }

    // MARK: - What gets drawn

    /// One ncurses cell: a spacing code point followed by zero-width marks.
    struct Piece: Equatable, Sendable {
        var scalars: [UInt32]
        var width: Int
    }

    /// The ncurses cells a grapheme draws as, left to right; their widths add
    /// up to `of(c)`. Empty for a zero-width grapheme.
    static func pieces(of c: Character) -> [Piece] {
        var result: [Piece] = []
        var first = true
        for scalar in c.unicodeScalars {
            defer { first = false }
            guard let kept = drawnScalar(scalar, isFirst: first) else { continue }
            let w = scalarWidth(kept)
            if w > 0 {
                result.append(Piece(scalars: [kept.value], width: w))
            } else if !result.isEmpty, result[result.count - 1].scalars.count < maxScalarsPerCell {
                // A zero-width mark rides on the cell before it; marks before
                // the first spacing character, or beyond what a cchar_t holds,
                // are dropped (they add no width either way).
                result[result.count - 1].scalars.append(kept.value)
            }
        }
        return result
    }

    /// The text actually sent to the terminal for `s` (see the policy above).
    public static func drawnText(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for c in s {
            for piece in pieces(of: c) {
                for v in piece.scalars {
                    if let u = Unicode.Scalar(v) { out.append(u) }
                }
            }
        }
        return String(out)
    }

    /// ncurses' CCHARW_MAX: a cell holds a spacing character and 4 marks.
    static let maxScalarsPerCell = 5

    /// The code point sent for `scalar`, or nil if it is not sent.
    static func drawnScalar(_ scalar: Unicode.Scalar, isFirst: Bool) -> Unicode.Scalar? {
        let v = scalar.value
        switch v {
        case 0x09:
            return " "
        case 0xFE0E, 0xFE0F:
            return nil
        case 0x1F3FB...0x1F3FF where !isFirst:
            return nil
        default:
            break
        }
        if v >= 0x20 && v < 0x7F { return scalar }
        if scalar.properties.generalCategory == .format { return nil }
        if rawWidth(v) < 0 { return replacement }
        return scalar
    }

    static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// Width of a code point that `drawnScalar` kept (never negative).
    static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return 1 }
        return max(0, rawWidth(v))
    }

    /// glibc `wcwidth` in a UTF-8 locale: -1, 0, 1 or 2.
    static func rawWidth(_ v: UInt32) -> Int {
        Int(tb_wcwidth_in(utf8Locale.handle, v))
    }

    private static func isSingleASCII(_ c: Character) -> Bool {
        let utf8 = c.utf8
        return utf8.count == 1 && utf8[utf8.startIndex] < 0x80
    }

    /// The private UTF-8 LC_CTYPE locale, created once. Immutable after
    /// creation and only ever passed to `uselocale`, so sharing it is safe.
    private struct LocaleHandle: @unchecked Sendable {
        let handle: locale_t?
    }

    private static let utf8Locale = LocaleHandle(handle: tb_new_utf8_ctype_locale())
}
