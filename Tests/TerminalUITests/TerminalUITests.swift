import Testing
@testable import TerminalUI

@Suite struct WidthTests {
    @Test func widthsMatchWcwidth() {
        #expect(DisplayWidth.of("a") == 1)
        #expect(DisplayWidth.of("你") == 2)
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("❤") == 1)
        #expect(DisplayWidth.of("e\u{301}") == 1, "combining mark adds nothing")
        #expect(DisplayWidth.of("你好，world") == 11)
    }
}

@Suite struct GridTests {
    @Test func putClipsAndHandlesWideCharacters() {
        var g = Grid(width: 6, height: 2)
        #expect(g.put("你好吗", x: 0, y: 0, style: Style()) == 6)
        #expect(g.rowText(0) == "你好吗")
        #expect(g[1, 0].text.isEmpty, "right half of a wide char")
        // A wide char that does not fit at the edge becomes a space.
        #expect(g.put("ab你", x: 3, y: 1, style: Style()) == 3)
        #expect(g.rowText(1) == "   ab")
        // Overwriting half of a wide char blanks the other half.
        g.put("x", x: 1, y: 0, style: Style())
        #expect(g.rowText(0) == " x好吗")
        #expect(g.put("abcdef", x: 0, y: 1, style: Style(), maxWidth: 2) == 2)
        #expect(g.find("好吗")! == (2, 0))
    }

    @Test func changesAreOnlyTheDifferentCells() {
        var a = Grid(width: 4, height: 2)
        var b = a
        b.put("z", x: 3, y: 1, style: Style(bold: true))
        #expect(b.changes(from: a).map { "\($0.x),\($0.y)" } == ["3,1"])
        #expect(b.changes(from: nil).count == 8)
        a.put("z", x: 3, y: 1, style: Style(bold: true))
        #expect(b.changes(from: a).isEmpty)
    }
}

@Suite struct WrapTests {
    @Test func wrapsByDisplayWidth() {
        #expect(TextWrap.wrap("你好世界朋友", width: 4) == ["你好", "世界", "朋友"])
        #expect(TextWrap.wrap("hello brave new world", width: 11) == ["hello brave", "new world"])
        #expect(TextWrap.wrap("a\nb", width: 5) == ["a", "b"])
        #expect(TextWrap.wrap("supercalifragilistic", width: 5).allSatisfy { DisplayWidth.of($0) <= 5 })
        #expect(TextWrap.wrap("👍🏽👍🏽", width: 4).count == 2, "clusters are never split")
    }

    @Test func neverWiderThanWidth() {
        let alphabet = Array("ab 你好😀é,。 xyz漢字") + ["👨‍👩‍👧", "❤️"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let s = String((0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let w = Int.random(in: 1...12, using: &rng)
            for line in TextWrap.wrap(s, width: w) {
                #expect(DisplayWidth.of(line) <= w || line.count == 1, "\(s) at \(w): \(line)")
            }
            #expect(TextWrap.wrap(s, width: w).joined().filter { $0 != " " } == s.filter { $0 != " " }, "nothing lost")
        }
    }

    @Test func truncate() {
        #expect(TextWrap.truncate("你好世界", width: 5) == "你好…")
        #expect(TextWrap.truncate("abc", width: 5) == "abc")
    }
}

@Suite struct KeyDecoderTests {
    static let codes = KeyDecoder.FunctionCodes(up: 259, down: 258, left: 260, right: 261, home: 262, end: 360, pageUp: 339,
                                                pageDown: 338, backspace: 263, delete: 330, backTab: 353, enter: 343, resize: 410)

    func decode(_ inputs: [RawInput]) -> [Key] {
        var d = KeyDecoder(codes: Self.codes)
        return inputs.flatMap { d.feed($0) }
    }

    func chars(_ s: String) -> [RawInput] { s.unicodeScalars.map { .char($0.value) } }

    @Test func plainKeys() {
        #expect(decode(chars("a你")) == [.char("a"), .char("你")])
        #expect(decode([.char(13), .char(9), .char(127), .char(21), .char(10)]) == [.enter, .tab, .backspace, .ctrl("u"), .enter])
        #expect(decode([.function(259), .function(410), .function(353)]) == [.up, .resize, .backTab])
    }

    @Test func escapeAltAndSequences() {
        #expect(decode([.char(27), .timeout]) == [.escape])
        #expect(decode([.char(27), .char(13)]) == [.altEnter])
        #expect(decode([.char(27), .char(120)]) == [.alt("x")])
        #expect(decode(chars("\u{1B}[A")) == [.up])
        #expect(decode(chars("\u{1B}[5~")) == [.pageUp])
    }

    @Test func bracketedPaste() {
        let keys = decode(chars("\u{1B}[200~第一行\r第二行 \u{1B}[B\u{1B}[201~x"))
        #expect(keys == [.paste("第一行\n第二行 \u{1B}[B"), .char("x")])
    }
}
