import CNCurses
import Foundation
import Synchronization

/// Columns a character takes, as ncurses and tmux will advance the cursor:
/// glibc's `wcwidth` per code point, summed over the grapheme. Policy for
/// sequences terminals disagree on: zero-width joiners, variation selectors
/// and skin-tone modifiers count as glibc says (0 or 2 per code point), so
/// ❤️ is 1, 👍🏽 is 4 and a ZWJ family is the sum of its people — exactly what
/// ncurses writes, so the screen never tears. Unknown (-1) counts as 1.
public enum DisplayWidth {
    private static let localeReady = Mutex(false)

    /// wcwidth needs a UTF-8 locale; set one once if the process has none.
    static func ensureLocale() {
        localeReady.withLock { ready in
            guard !ready else { return }
            if tb_locale_is_utf8() == 0 {
                tb_setlocale_all("")
                if tb_locale_is_utf8() == 0 { tb_setlocale_all("C.UTF-8") }
            }
            ready = true
        }
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value < 0x7F { return scalar.value >= 0x20 ? 1 : 0 }
        ensureLocale()
        let w = Int(wcwidth(wchar_t(bitPattern: scalar.value)))
        return w < 0 ? 1 : w
    }

    public static func of(_ c: Character) -> Int {
        var total = 0
        for s in c.unicodeScalars { total += of(s) }
        return total
    }

    public static func of(_ s: String) -> Int {
        var total = 0
        for c in s { total += of(c) }
        return total
    }
}
