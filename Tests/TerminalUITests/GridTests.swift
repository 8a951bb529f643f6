import Testing
@testable import TerminalUI

@Suite struct GridTests {
    @Test func putAndRowText() {
        var g = Grid(width: 10, height: 2)
        #expect(g.put("hi", x: 1, y: 0, style: Style()) == 2)
        #expect(g.put("你好", x: 4, y: 0, style: Style()) == 4)
        #expect(g.rowText(0) == " hi 你好")
        #expect(g[4, 0].text == "你")
        #expect(g[5, 0].text == "")
        #expect(g[5, 0].isContinuation)
        #expect(g.rowText(1) == "")
        #expect(g.text() == " hi 你好\n")
    }

    @Test func clipsAtRightEdgeAndMaxWidth() {
        var g = Grid(width: 8, height: 1)
        #expect(g.put("hello world", x: 3, y: 0, style: Style()) == 5)
        #expect(g.rowText(0) == "   hello")
        var h = Grid(width: 20, height: 1)
        #expect(h.put("hello world", x: 0, y: 0, style: Style(), maxWidth: 4) == 4)
        #expect(h.rowText(0) == "hell")
        #expect(h.put("xyz", x: 10, y: 0, style: Style(), maxWidth: 0) == 0)
        #expect(h.put("xyz", x: 25, y: 0, style: Style()) == 0)
        #expect(h.put("xyz", x: 0, y: 3, style: Style()) == 0)
    }

    @Test func wideCharThatDoesNotFitBecomesSpace() {
        let red = Style(fg: .red)
        var g = Grid(width: 5, height: 1)
        #expect(g.put("ab你你", x: 0, y: 0, style: red) == 5)
        #expect(g.rowText(0) == "ab你")
        #expect(g[4, 0] == Cell(text: " ", style: red))
        var h = Grid(width: 10, height: 1)
        #expect(h.put("你好", x: 0, y: 0, style: Style(), maxWidth: 3) == 3)
        #expect(h.rowText(0) == "你")
        var f = Grid(width: 4, height: 1)
        #expect(f.put("a👨‍👩‍👧", x: 0, y: 0, style: Style()) == 4)
        #expect(f.rowText(0) == "a")
    }

    @Test func overwritingHalfOfWideCharBlanksTheOtherHalf() {
        var g = Grid(width: 6, height: 1)
        g.put("你好", x: 0, y: 0, style: Style(fg: .green))
        g.put("X", x: 1, y: 0, style: Style())  // right half of 你
        #expect(g.rowText(0) == " X好")
        #expect(g[0, 0] == Cell(text: " ", style: Style(fg: .green)))
        g.put("Y", x: 2, y: 0, style: Style())  // left half of 好
        #expect(g.rowText(0) == " XY")
        #expect(g[3, 0].text == " ")
        // A wide char straddling two wide chars blanks both.
        var h = Grid(width: 6, height: 1)
        h.put("你好", x: 0, y: 0, style: Style())
        h.put("世", x: 1, y: 0, style: Style())
        #expect(h.rowText(0) == " 世")
        #expect(h[3, 0].text == " ")
    }

    @Test func leftEdgeAndZeroWidthAndControls() {
        var g = Grid(width: 6, height: 1)
        #expect(g.put("你好", x: -1, y: 0, style: Style()) == 4)
        #expect(g.rowText(0) == " 好")
        var h = Grid(width: 10, height: 1)
        #expect(h.put("\u{301}a\u{200B}b", x: 0, y: 0, style: Style()) == 2)
        #expect(h.rowText(0) == "ab")
        var c = Grid(width: 10, height: 1)
        #expect(c.put("a\tb\u{1B}c\n", x: 0, y: 0, style: Style()) == 6)
        #expect(c.rowText(0) == "a b\u{FFFD}c\u{FFFD}")
    }

    @Test func fillAndClear() {
        let blue = Style(bg: .blue)
        var g = Grid(width: 6, height: 3)
        g.put("你好世", x: 0, y: 1, style: Style())
        g.fill(x: 1, y: 1, w: 2, h: 5, style: blue)  // cuts 你 and 好
        #expect(g.rowText(1) == "    世")
        #expect(g[1, 1].style == blue)
        #expect(g[3, 1].text == " ")
        #expect(g[1, 2].style == blue)
        #expect(g[1, 0].style == Style())
        g.clear(style: blue)
        #expect(g.text() == "\n\n")
        #expect(g[5, 2].style == blue)
    }

    @Test func subscriptKeepsInvariants() {
        var g = Grid(width: 4, height: 1)
        g[3, 0] = Cell(text: "你", style: Style())  // does not fit
        #expect(g[3, 0].text == " ")
        g[1, 0] = Cell(text: "你", style: Style(bold: true))
        #expect(g[2, 0] == Cell(text: "", style: Style(bold: true)))
        g[2, 0] = Cell(text: "x", style: Style())
        #expect(g.rowText(0) == "  x")
        #expect(g[-1, 0] == Cell())
        #expect(g[9, 9] == Cell())
    }

    @Test func findText() {
        var g = Grid(width: 20, height: 3)
        g.put("hello", x: 2, y: 0, style: Style())
        g.put("你好世界 👨‍👩‍👧 ok", x: 1, y: 2, style: Style())
        #expect(g.find("hello")! == (2, 0))
        #expect(g.find("世界")! == (5, 2))
        #expect(g.find("👨‍👩‍👧 ok")! == (10, 2))
        #expect(g.find("nope") == nil)
        #expect(g.find("") == nil)
    }

    @Test func changesBetweenFrames() {
        var a = Grid(width: 4, height: 2)
        #expect(a.changes(from: nil).count == 8)
        a.put("你ab", x: 0, y: 0, style: Style())
        #expect(a.changes(from: nil).count == 7)  // 你 is one head
        var b = a
        #expect(b.changes(from: a).isEmpty)
        b.put("c", x: 3, y: 0, style: Style())
        #expect(b.changes(from: a).map { "\($0.x),\($0.y)" } == ["3,0"])
        var c = a
        c.put("xy", x: 0, y: 0, style: Style())  // replaces 你 with two heads
        #expect(c.changes(from: a).map { "\($0.x),\($0.y)" } == ["0,0", "1,0"])
        #expect(a.changes(from: c).map { "\($0.x),\($0.y)" } == ["0,0"])
        var d = a
        d.put("a", x: 2, y: 0, style: Style(bold: true))  // style only
        #expect(d.changes(from: a).map { "\($0.x),\($0.y)" } == ["2,0"])
        #expect(a.changes(from: Grid(width: 5, height: 2)).count == 7)
    }

    @Test func equality() {
        var a = Grid(width: 3, height: 1)
        var b = Grid(width: 3, height: 1)
        #expect(a == b)
        a.put("x", x: 0, y: 0, style: Style())
        #expect(a != b)
        b.put("x", x: 0, y: 0, style: Style())
        #expect(a == b)
        #expect(Grid(width: 3, height: 1) != Grid(width: 1, height: 3))
        #expect(Grid(width: -2, height: 3).width == 0)
    }
}
