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
