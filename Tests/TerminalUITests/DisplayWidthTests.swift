import Testing
@testable import TerminalUI

@Suite struct DisplayWidthTests {
    @Test func basicWidths() {
        #expect(DisplayWidth.of("a" as Character) == 1)
        #expect(DisplayWidth.of("hello") == 5)
        #expect(DisplayWidth.of("你" as Character) == 2)
        #expect(DisplayWidth.of("你好，世界") == 10)
        #expect(DisplayWidth.of("😀" as Character) == 2)
        #expect(DisplayWidth.of("❤" as Character) == 1)
        #expect(DisplayWidth.of("Ａ" as Character) == 2)  // fullwidth
        #expect(DisplayWidth.of("｡" as Character) == 1)  // halfwidth
        #expect(DisplayWidth.of("─│●…—") == 5)  // ambiguous: narrow
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func combiningMarks() {
        #expect(DisplayWidth.of("\u{301}" as Character) == 0)
        #expect(DisplayWidth.of("e\u{301}" as Character) == 1)
        #expect(DisplayWidth.of("e\u{301}te\u{301}") == 3)
        #expect(DisplayWidth.of("\u{1100}\u{1161}\u{11A8}" as Character) == 2)  // conjoining jamo 각
        #expect(DisplayWidth.of("क्षि") == 3)
    }

    /// The policy for sequences terminals disagree on (see DisplayWidth):
    /// presentation selectors, ZWJ and skin-tone modifiers are not drawn.
    @Test func emojiSequencePolicy() {
        #expect(DisplayWidth.of("❤️" as Character) == 1)
        #expect(DisplayWidth.drawnText("❤️") == "❤")
        #expect(DisplayWidth.of("👍🏽" as Character) == 2)
        #expect(DisplayWidth.drawnText("👍🏽") == "👍")
        #expect(DisplayWidth.of("👨‍👩‍👧" as Character) == 6)
        #expect(DisplayWidth.drawnText("👨‍👩‍👧") == "👨👩👧")
        #expect(DisplayWidth.of("🇨🇳" as Character) == 2)
        #expect(DisplayWidth.drawnText("🇨🇳") == "🇨🇳")
        #expect(DisplayWidth.of("🇨🇳🇺🇸") == 4)
        #expect(DisplayWidth.of("🏳️‍🌈" as Character) == 3)  // 🏳 1 + 🌈 2
        #expect(DisplayWidth.of("1️⃣" as Character) == 1)
        #expect(DisplayWidth.of("🏽" as Character) == 2)  // a lone modifier is a swatch
    }

    @Test func unmeasurableAndControl() {
        // Newer than glibc's tables: wcwidth -1, drawn as U+FFFD, width 1.
        #expect(DisplayWidth.of("🫨" as Character) == 1)
        #expect(DisplayWidth.drawnText("🫨") == "\u{FFFD}")
        #expect(DisplayWidth.of("\u{1B}" as Character) == 1)
        #expect(DisplayWidth.of("\t" as Character) == 1)
        #expect(DisplayWidth.drawnText("a\tb") == "a b")
        #expect(DisplayWidth.of("\r\n" as Character) == 2)
        // Format characters draw nothing.
        #expect(DisplayWidth.of("\u{200B}" as Character) == 0)
        #expect(DisplayWidth.of("\u{200D}" as Character) == 0)
        #expect(DisplayWidth.drawnText("a\u{202E}b") == "ab")
    }

    @Test func stringWidthIsSumOfGraphemes() {
        let s = "a你😀❤️👍🏽👨‍👩‍👧🇨🇳e\u{301}🫨"
        #expect(DisplayWidth.of(s) == s.reduce(0) { $0 + DisplayWidth.of($1) })
        #expect(DisplayWidth.of(s) == 1 + 2 + 2 + 1 + 2 + 6 + 2 + 1 + 1)
    }

    /// What the terminal is sent adds up to the measured width, cell by cell.
    @Test func piecesMatchWidth() {
        let samples: [Character] = ["a", "你", "😀", "❤️", "👍🏽", "👨‍👩‍👧", "🇨🇳", "e\u{301}", "🫨", "\u{301}",
                                    "\t", "\r\n", "🏳️‍🌈", "1️⃣", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "Z\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}"]
        for c in samples {
            let pieces = DisplayWidth.pieces(of: c)
            #expect(pieces.reduce(0) { $0 + $1.width } == DisplayWidth.of(c), "\(c)")
            for piece in pieces {
                #expect(piece.width >= 1)
                #expect(piece.scalars.count <= DisplayWidth.maxScalarsPerCell)
                #expect(DisplayWidth.rawWidth(piece.scalars[0]) == piece.width)
            }
        }
    }
}
