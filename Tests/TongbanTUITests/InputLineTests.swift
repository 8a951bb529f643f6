import TerminalUI
import Testing
@testable import TongbanTUI

/// The input bar's line editing, as in bash and zsh.
@Suite struct InputLineTests {
    /// Ctrl-U used to read the line's start again after cutting, from a
    /// cursor now past the end: any Ctrl-U after text crashed the client.
    @Test func ctrlUCutsToTheLineStartOnly() {
        var line = InputLine(text: "第一行\n第二行 words")
        line.apply(.ctrl("u"))
        #expect(line.text == "第一行\n")
        #expect(line.beforeCursor == "第一行\n")
        line.insert("新的")
        #expect(line.text == "第一行\n新的")
        var single = InputLine(text: "整行都删")
        single.apply(.ctrl("u"))
        #expect(single.text.isEmpty && single.beforeCursor.isEmpty)
        single.apply(.ctrl("u"))
        #expect(single.text.isEmpty, "on an empty line it does nothing")
    }

    @Test func ctrlKAndCtrlWCutForwardAndAWord() {
        var line = InputLine(text: "hello big world")
        line.apply(.ctrl("w"))
        #expect(line.text == "hello big ")
        line.apply(.home)
        line.apply(.right)
        line.apply(.ctrl("k"))
        #expect(line.text == "h" && line.beforeCursor == "h")
    }
}
