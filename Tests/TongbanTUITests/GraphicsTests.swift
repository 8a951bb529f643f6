import ChatCore
import ChatMedia
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Pictures three ways: the same avatar as half blocks in the frame's
/// cells, and as the kitty and sixel escape output a frame writes after
/// them (golden text, ESC shown as ⎋); and how the terminal's answers
/// choose between them.
@Suite struct GraphicsTests {
    static let zh = Localizer(language: .zhHans)

    /// A peer's page with a decoded 24×24 picture.
    static func page() -> AppState {
        var s = PeopleScreenTests.peopleState()
        s.thumbnails["chat/image/alice.jpg"] = .ready(Fixture.picture(width: 24, height: 24))
        s.mode = .peer(PeerPage(user: PeopleScreenTests.alice))
        return s
    }

    @Test func anAvatarDrawnThreeWays() throws {
        let s = Self.page()
        try Golden.check("avatar-halfblock", s, Self.zh)
        let grid = Screen.render(s, Self.zh, RenderOptions())
        let image = try #require(grid.images.first)
        #expect(grid.images.count == 1 && image.columns == 12 && image.rows == 6 && image.width == 24)
        #expect(grid[image.x, image.y].text == "▀", "the cells under it hold the half-block version")
        try Golden.checkText("avatar-kitty", TerminalGraphics.frame(grid.images, graphics: .kitty))
        // Cells of 2×4 pixels: the 24×24 picture fills its 12×6 cells one to one.
        try Golden.checkText("avatar-sixel", TerminalGraphics.frame(grid.images, graphics: .sixel, cell: (2, 4)))
        // Sixel is drawn one to one, so it is resampled to the cells' pixels (kitty scales by itself).
        #expect(TerminalGraphics.frame(grid.images, graphics: .sixel, cell: (10, 20)).contains("\u{1B}Pq\"1;1;120;120#"))
        #expect(TerminalGraphics.frame(grid.images, graphics: .halfBlock).isEmpty)
        // Closed, the page's picture is gone from the frame.
        var closed = s
        closed.mode = .normal
        #expect(Screen.render(closed, Self.zh, RenderOptions()).images.isEmpty)
    }

    /// Message pictures take the same path: a thumbnail wholly on screen is
    /// placed for a pixel-drawing terminal over its half-block cells.
    @Test func aMessageThumbnailIsPlacedToo() throws {
        var s = Fixture.chatState(width: 120, height: 48)
        s.focus = .messages
        let grid = Screen.render(s, Self.zh, RenderOptions())
        let image = try #require(grid.images.first { $0.width == 16 && $0.height == 11 })
        #expect(image.columns == 16 && image.rows == 6)
        #expect(grid[image.x, image.y].text == "▀")
    }

    /// A picture drawn in pixels sits on top of the cells: a menu or help
    /// opened over it would be unreadable (xterm with sixel showed this), so
    /// covered pictures leave the frame and come back when it closes.
    @Test func anOverlayHidesThePicturesItCovers() throws {
        var s = Fixture.chatState(width: 120, height: 48)
        s.focus = .messages
        let open = Screen.render(s, Self.zh, RenderOptions())
        let picture = try #require(open.images.first { $0.width == 16 && $0.height == 11 })
        s.mode = .help
        let helped = Screen.render(s, Self.zh, RenderOptions())
        #expect(!helped.images.contains { $0.id == picture.id }, "the help covers the thumbnail: no pixels over it")
        #expect(helped[picture.x, picture.y].text != "▀", "the help's own cells are there instead")
        s.mode = .normal
        #expect(Screen.render(s, Self.zh, RenderOptions()).images.contains { $0.id == picture.id }, "closed: the picture is back")
        // An overlay's own picture (the peer's avatar on a page) stays.
        #expect(Screen.render(Self.page(), Self.zh, RenderOptions()).images.count == 1)
    }

    @Test func kittyChunksLargePicturesAndSixelCompressesRuns() {
        let big = GridImage(x: 0, y: 0, columns: 12, rows: 6, width: 64, height: 64,
                            pixels: [UInt8](repeating: 200, count: 64 * 64 * 3), id: 5)
        let kitty = TerminalGraphics.kitty(big)
        let chunks = kitty.components(separatedBy: "\u{1B}_G").dropFirst()
        #expect(chunks.count == 4, "16,384 base64 characters in chunks of 4096")
        #expect(chunks.first?.hasPrefix("a=T,f=24,s=64,v=64,c=12,r=6,i=5,C=1,q=2,m=1;") == true)
        #expect(chunks.dropFirst().allSatisfy { $0.hasPrefix("m=") } && chunks.last?.hasPrefix("m=0;") == true)
        let sixel = TerminalGraphics.sixel(big)
        #expect(sixel.hasPrefix("\u{1B}Pq\"1;1;64;64#172;2;80;80;80#172!64~-"), "one colour, one run per band")
        #expect(sixel.hasSuffix("\u{1B}\\"))
    }

    @Test func theTerminalsAnswersChooseTheProtocol() {
        var d = TerminalGraphics.Detector()
        #expect(d.chosen == .halfBlock, "no answer: half blocks")
        d.hear(.deviceAttributes("62;22"))
        #expect(d.chosen == .halfBlock)
        d.hear(.deviceAttributes("62;4;22"))
        #expect(d.chosen == .sixel)
        d.hear(.graphics("Gi=31;EINVAL:bad"))
        #expect(d.chosen == .sixel)
        d.hear(.graphics("Gi=31;OK"))
        #expect(d.chosen == .kitty, "kitty wins where both are there")
        #expect(TerminalGraphics.Detector(environment: ["TONGBAN_GRAPHICS": "halfblock"]).chosen == .halfBlock)
        var forced = TerminalGraphics.Detector(environment: ["TONGBAN_GRAPHICS": "sixel"])
        forced.hear(.graphics("Gi=31;OK"))
        #expect(forced.chosen == .sixel, "the environment wins")
        #expect(d.cell == (10, 20))
        d.hear(.cellSize(width: 9, height: 18))
        #expect(d.cell == (9, 18))
    }

    @Test func repliesAreDecodedApartFromKeys() {
        var decoder = KeyDecoder()
        let input = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;18;9t\u{1B}[?62;4;22cj".unicodeScalars.map { KeyDecoder.Input.char($0.value) }
        #expect(decoder.decode(input) == [.reply(.graphics("Gi=31;OK")), .reply(.cellSize(width: 9, height: 18)),
                                          .reply(.deviceAttributes("62;4;22")), .char("j")])
        // An answer too long to be one is read to its end and dropped, not typed.
        var long = KeyDecoder()
        let flood = ("\u{1B}_G" + String(repeating: "x", count: 5000) + "\u{1B}\\k").unicodeScalars.map { KeyDecoder.Input.char($0.value) }
        #expect(long.decode(flood) == [.char("k")])
        // A reply cut off by a pause is dropped, not typed.
        var cut = KeyDecoder()
        let partial = "\u{1B}_Gi=31;O".unicodeScalars.map { KeyDecoder.Input.char($0.value) } + [.timeout]
        #expect(cut.decode(partial).isEmpty)
        #expect(cut.decode([.char(0x6B)]) == [.char("k")])
    }

    /// Inside tmux only sixel (which tmux draws itself) is asked for: tmux
    /// cannot place a passed-through kitty picture among its panes.
    @Test func theQueryAsksForKittyOutsideTmuxOnly() {
        #expect(TerminalGraphics.query(insideTmux: false) == "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[16t\u{1B}[c")
        #expect(TerminalGraphics.query(insideTmux: true) == "\u{1B}[16t\u{1B}[c")
    }
}
