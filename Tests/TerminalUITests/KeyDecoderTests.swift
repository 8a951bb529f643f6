import Testing
@testable import TerminalUI

@Suite struct KeyDecoderTests {
    typealias Code = KeyDecoder.Code

    /// Inputs for the characters of `s`, one code point each.
    func chars(_ s: String) -> [KeyDecoder.Input] {
        s.unicodeScalars.map { .char($0.value) }
    }

    func decode(_ inputs: [KeyDecoder.Input], pasteTimeout: Int = 60) -> [Key] {
        var d = KeyDecoder(pasteTimeoutPolls: pasteTimeout)
        return d.decode(inputs)
    }

    @Test func printableCharacters() {
        #expect(decode(chars("ab")) == [.char("a"), .char("b")])
        #expect(decode([.char(20320)]) == [.char("你")])
        #expect(decode(chars("你好")) == [.char("你"), .char("好")])
        #expect(decode(chars(" ")) == [.char(" ")])
    }

    @Test func codePointsOfOneGraphemeAreJoined() {
        #expect(decode(chars("👍🏽")) == [.char("👍🏽")])
        #expect(decode(chars("e\u{301}x")) == [.char("e\u{301}"), .char("x")])
        #expect(decode(chars("🇨🇳")) == [.char("🇨🇳")])
        #expect(decode(chars("👨‍👩‍👧")) == [.char("👨‍👩‍👧")])
        // Held until the batch ends or something else arrives.
        var d = KeyDecoder()
        #expect(d.feed(.char(0x61)) == [])
        #expect(d.isPending)
        #expect(d.feed(.char(0x62)) == [.char("a")])
        #expect(d.endOfBatch() == [.char("b")])
        #expect(!d.isPending)
    }

    @Test func controlCodes() {
        #expect(decode([.char(1)]) == [.ctrl("a")])
        #expect(decode([.char(3)]) == [.ctrl("c")])
        #expect(decode([.char(26)]) == [.ctrl("z")])
        #expect(decode([.char(9)]) == [.tab])
        #expect(decode([.char(13)]) == [.enter])
        #expect(decode([.char(10)]) == [.ctrl("j")])
        #expect(decode([.char(127)]) == [.backspace])
        #expect(decode([.char(8)]) == [.backspace])
        #expect(decode([.char(0)]) == [.ctrl(" ")])
        #expect(decode([.char(0x1F)]) == [.ctrl("_")])
        #expect(decode([.char(0x85)]) == [])  // C1: ignored
        #expect(decode(chars("a") + [.char(1)] + chars("b")) == [.char("a"), .ctrl("a"), .char("b")])
    }

    @Test func ncursesKeyCodes() {
        #expect(decode([.keyCode(Code.up), .keyCode(Code.down), .keyCode(Code.left), .keyCode(Code.right)])
            == [.up, .down, .left, .right])
        #expect(decode([.keyCode(Code.home), .keyCode(Code.end), .keyCode(Code.pageUp), .keyCode(Code.pageDown)])
            == [.home, .end, .pageUp, .pageDown])
        #expect(decode([.keyCode(Code.backspace), .keyCode(Code.delete), .keyCode(Code.backTab)])
            == [.backspace, .delete, .backTab])
        #expect(decode([.keyCode(Code.enter), .keyCode(Code.resize)]) == [.enter, .resize])
        #expect(decode([.keyCode(Code.find), .keyCode(Code.select)]) == [.home, .end])
        #expect(decode([.keyCode(0x6FFF)]) == [])
    }

    @Test func escapeAndAlt() {
        #expect(decode([.char(27), .timeout]) == [.escape])
        var d = KeyDecoder()
        #expect(d.decode([.char(27)]) == [])  // waits for the escape delay
        #expect(d.isPending)
        #expect(d.feed(.timeout) == [.escape])
        #expect(decode([.char(27)] + chars("x")) == [.alt("x")])
        #expect(decode([.char(27)] + chars("你")) == [.alt("你")])
        #expect(decode([.char(27), .char(13)]) == [.altEnter])
        #expect(decode([.char(27), .char(10)]) == [.altEnter])
        #expect(decode([.char(27), .char(27), .timeout]) == [.escape, .escape])
        #expect(decode([.char(27), .keyCode(Code.up)]) == [.escape, .up])
        #expect(decode([.char(27), .char(127)]) == [.escape, .backspace])
        #expect(decode(chars("a") + [.char(27), .timeout]) == [.char("a"), .escape])
    }

    @Test func rawCSIAndSS3Sequences() {
        #expect(decode([.char(27)] + chars("[A")) == [.up])
        #expect(decode([.char(27)] + chars("[1;5C")) == [.right])
        #expect(decode([.char(27)] + chars("[3~")) == [.delete])
        #expect(decode([.char(27)] + chars("[5~[6~")) == [.pageUp, .char("["), .char("6"), .char("~")])
        #expect(decode([.char(27)] + chars("[Z")) == [.backTab])
        #expect(decode([.char(27)] + chars("[1~") + [.char(27)] + chars("[4~")) == [.home, .end])
        #expect(decode([.char(27)] + chars("OH") + [.char(27)] + chars("OF")) == [.home, .end])
        #expect(decode([.char(27)] + chars("[99x")) == [])  // unknown: swallowed
        #expect(decode([.char(27)] + chars("[") + [.timeout]) == [.alt("[")])
        #expect(decode([.char(27)] + chars("O") + [.timeout]) == [.alt("O")])
        #expect(decode([.char(27)] + chars("[") + [.char(1)]) == [.alt("["), .ctrl("a")])
    }

    @Test func bracketedPasteRaw() {
        let inputs = [.char(27)] + chars("[200~a\r\nb\rc 你好\tend") + [.char(27)] + chars("[201~x")
        #expect(decode(inputs) == [.paste("a\nb\nc 你好\tend"), .char("x")])
        // ESC inside a paste that is not the end marker is dropped, the rest kept.
        let withEscape = [.char(27)] + chars("[200~x") + [.char(27)] + chars("y") + [.char(27)] + chars("[3z")
            + [.char(27)] + chars("[201~")
        #expect(decode(withEscape) == [.paste("xy[3z")])
        // Keys inside a paste are text, not commands.
        let keys = [.char(27)] + chars("[200~q") + [.char(3), .char(27)] + chars("[201~")
        #expect(decode(keys) == [.paste("q")])
    }

    @Test func bracketedPasteAsKeyCodes() {
        let inputs: [KeyDecoder.Input] = [.keyCode(Code.pasteBegin)] + chars("第一行\n👍🏽") + [.keyCode(Code.enter)]
            + [.keyCode(Code.pasteEnd)]
        #expect(decode(inputs) == [.paste("第一行\n👍🏽\n")])
        #expect(decode([.keyCode(Code.pasteBegin), .keyCode(Code.pasteEnd)]) == [.paste("")])
        // A resize during a paste is still delivered.
        #expect(decode([.keyCode(Code.pasteBegin)] + chars("a") + [.keyCode(Code.resize)] + chars("b")
            + [.keyCode(Code.pasteEnd)]) == [.resize, .paste("ab")])
        // Timeouts inside a paste do not end it, until too many in a row.
        #expect(decode([.keyCode(Code.pasteBegin)] + chars("ab") + [.timeout, .timeout], pasteTimeout: 3) == [])
        #expect(decode([.keyCode(Code.pasteBegin)] + chars("ab") + [.timeout, .timeout, .timeout] + chars("c"),
                       pasteTimeout: 3) == [.paste("ab"), .char("c")])
    }
}
