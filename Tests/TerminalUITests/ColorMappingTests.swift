import Testing
@testable import TerminalUI

@Suite struct ColorMappingTests {
    @Test func palette256IsUsedAsIs() {
        let m = ColorMapping(colors: 256, hasDefaultColors: true)
        #expect(m.resolve(fg: .index(196), bg: .default) == .init(fg: 196, bg: -1, bold: false))
        #expect(m.resolve(fg: .gray, bg: .blue) == .init(fg: 8, bg: 4, bold: false))
    }

    @Test func mapsDownTo16And8() {
        let m16 = ColorMapping(colors: 16, hasDefaultColors: true)
        #expect(m16.resolve(fg: .index(196), bg: .index(21)) == .init(fg: 9, bg: 4, bold: false))
        #expect(m16.resolve(fg: .grey(0), bg: .grey(23)) == .init(fg: 0, bg: 7, bold: false))
        #expect(m16.resolve(fg: .brightCyan, bg: .default).fg == 14)
        let m8 = ColorMapping(colors: 8, hasDefaultColors: true)
        #expect(m8.resolve(fg: .brightRed, bg: .brightBlue) == .init(fg: 1, bg: 4, bold: true))
        #expect(m8.resolve(fg: .gray, bg: .default) == .init(fg: 7, bg: -1, bold: false))
        #expect(m8.resolve(fg: .index(46), bg: .default) == .init(fg: 2, bg: -1, bold: true))
        #expect(m8.resolve(fg: .green, bg: .default) == .init(fg: 2, bg: -1, bold: false))
    }

    @Test func withoutDefaultColors() {
        let m = ColorMapping(colors: 8, hasDefaultColors: false)
        #expect(m.resolve(fg: .default, bg: .default) == .init(fg: 7, bg: 0, bold: false))
    }

    @Test func namedColors() {
        #expect(TermColor.red == .index(1))
        #expect(TermColor.gray == .index(8))
        #expect(TermColor.brightWhite == .index(15))
        #expect(TermColor.rgb6(5, 0, 0) == .index(196))
        #expect(TermColor.grey(30) == .index(255))
        #expect(Style(fg: .red, bold: true) == Style(fg: .index(1), bg: .default, bold: true))
    }

    @Test func titleSupportByTerm() {
        #expect(NCursesScreen.supportsTitle(term: "xterm-256color"))
        #expect(NCursesScreen.supportsTitle(term: "tmux-256color"))
        #expect(NCursesScreen.supportsTitle(term: "screen"))
        #expect(!NCursesScreen.supportsTitle(term: "linux"))
        #expect(!NCursesScreen.supportsTitle(term: "dumb"))
        #expect(!NCursesScreen.supportsTitle(term: ""))
    }
}

@Suite struct TrueColorTests {
    @Test func rgbFallsBackToThePalette() {
        let m = ColorMapping(colors: 256, hasDefaultColors: true)
        #expect(m.resolve(fg: .rgb(255, 0, 0), bg: .rgb(8, 8, 8)) == .init(fg: 196, bg: 232, bold: false))
        let m16 = ColorMapping(colors: 16, hasDefaultColors: true)
        #expect(m16.resolve(fg: .rgb(255, 0, 0), bg: .default) == .init(fg: 9, bg: -1, bold: false))
    }

    @Test func colortermDecides() {
        #expect(HalfBlock.trueColor(environment: ["COLORTERM": "truecolor"]))
        #expect(HalfBlock.trueColor(environment: ["COLORTERM": "24bit"]))
        #expect(!HalfBlock.trueColor(environment: ["COLORTERM": "truecolor", "NO_COLOR": "1"]))
        #expect(!HalfBlock.trueColor(environment: ["TERM": "xterm-256color"]))
        #expect(!HalfBlock.trueColor(environment: ["COLORTERM": "yes"]))
    }

    @Test func overlayRepaintsOnlyChangedRGBCells() {
        var grid = Grid(width: 6, height: 2)
        grid.put("ab", x: 0, y: 0, style: Style(fg: .red))
        grid.put("▀", x: 2, y: 1, style: Style(fg: .rgb(1, 2, 3), bg: .rgb(250, 251, 252)))
        grid.put("▀", x: 3, y: 1, style: Style(fg: .rgb(9, 9, 9)))
        let all = grid.changes(from: nil)
        #expect(TrueColorOverlay.escapes(for: grid, cells: all, cols: 6, lines: 2) ==
            "\u{1B}7\u{1B}[2;3H\u{1B}[0;38;2;1;2;3;48;2;250;251;252m▀\u{1B}[2;4H\u{1B}[0;38;2;9;9;9m▀\u{1B}[0m\u{1B}8")
        // Nothing with 24-bit colour changed: nothing is written.
        #expect(TrueColorOverlay.escapes(for: grid, cells: [(x: 0, y: 0), (x: 1, y: 0)], cols: 6, lines: 2).isEmpty)
        // Outside a terminal that shrank: left alone.
        #expect(TrueColorOverlay.escapes(for: grid, cells: all, cols: 3, lines: 2).contains("[2;3H"))
        #expect(!TrueColorOverlay.escapes(for: grid, cells: all, cols: 3, lines: 2).contains("[2;4H"))
    }
}
