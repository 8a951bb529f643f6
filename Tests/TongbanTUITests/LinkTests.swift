import ChatCore
import ChatViewModels
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Links in messages: underlined, marked for OSC 8 on the cells they are
/// drawn on (wrapped ones too), never under an overlay; `o` opens what a
/// message holds, asking which when there are several.
@Suite struct LinkTests {
    static let zh = Localizer(language: .zhHans)

    static func state(_ text: String, also extra: [ChatMessage] = []) -> AppState {
        var s = Fixture.state(width: 100, height: 30)
        let m = Fixture.message("m-link", .text(text), type: .text, me: false, minutesAgo: 1)
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [m] + extra, isLoading: false, hasMoreHistory: false,
                           newMessageBannerCount: 0, cachedKeys: [], me: "")
        s.focus = .messages
        s.selectedId = "m-link"
        return s
    }

    /// The text of the cells a grid marks as links, per address.
    static func linked(_ g: Grid) -> [String: String] {
        var out: [String: String] = [:]
        for link in g.links {
            out[link.url, default: ""] += (link.x..<link.x + link.columns).map { g[$0, link.y].text }.joined()
        }
        return out
    }

    @Test func aLinkIsUnderlinedAndMarkedWhereItIsDrawn() throws {
        let s = Self.state("看这个 https://example.com/路径 和 mailto:bob@example.com。")
        let g = Screen.render(s, Self.zh, RenderOptions())
        #expect(Self.linked(g) == ["https://example.com/": "https://example.com/", "mailto:bob@example.com": "mailto:bob@example.com"])
        let link = try #require(g.links.first)
        #expect(g[link.x, link.y].style.underline)
        #expect(!g[link.x - 2, link.y].style.underline, "the words before it are plain")
    }

    @Test func aWrappedLinkIsOneLinkOnEachRow() {
        let url = "https://example.com/" + String(repeating: "abcdefghij", count: 12)
        let g = Screen.render(Self.state("前 \(url) 后"), Self.zh, RenderOptions())
        #expect(Set(g.links.map(\.url)) == [url])
        #expect(Set(g.links.map(\.y)).count >= 2, "wrapped over rows, every row's part is the link")
        #expect(Self.linked(g)[url] == url)
    }

    @Test func anOverlayTakesTheLinksItCovers() {
        var s = Self.state("https://example.com/x")
        s.mode = .help
        #expect(Screen.render(s, Self.zh, RenderOptions()).links.isEmpty)
    }

    @Test func theOSC8BytesCloseEveryLinkTheyOpen() {
        var g = Grid(width: 30, height: 2)
        g.put("see https://a.b/c ok", x: 0, y: 0, style: Style())
        g.links = [GridLink(x: 4, y: 0, columns: 13, url: "https://a.b/c"),
                   GridLink(x: 0, y: 1, columns: 3, url: "https://evil/\u{1B}]8;;x")]
        let out = Hyperlinks.escapes(for: g, rows: [0, 1], cols: 30, lines: 2)
        #expect(out.hasPrefix("\u{1B}7\u{1B}[1;5H\u{1B}]8;;https://a.b/c\u{1B}\\"))
        #expect(out.components(separatedBy: "\u{1B}]8;;").count == 3, "one link opened and closed; the unsafe address is dropped")
        #expect(out.hasSuffix("\u{1B}]8;;\u{1B}\\\u{1B}[0m\u{1B}8"))
        #expect(Hyperlinks.escapes(for: g, rows: [1], cols: 30, lines: 2).isEmpty)
        #expect(!Hyperlinks.wanted(setting: true, environment: ["TMUX": "/tmp/x"]))
        #expect(Hyperlinks.wanted(setting: true, environment: ["TMUX": "/tmp/x", "TONGBAN_HYPERLINKS": "1"]))
        #expect(!Hyperlinks.wanted(setting: false, environment: [:]))
    }

    @Test func oOpensTheOnlyLinkAtOnceAndAsksAmongSeveral() {
        var s = Self.state("https://example.com/one")
        #expect(Update.apply(.key(.char("o")), to: &s, Self.zh) == [.openLink("https://example.com/one")])
        s = Self.state("https://a.example/1 与 https://b.example/2")
        #expect(Update.apply(.key(.char("o")), to: &s, Self.zh).isEmpty)
        guard case .open(let pick) = s.mode else { Issue.record("no picker"); return }
        #expect(pick.items == [.link("https://a.example/1"), .link("https://b.example/2")])
        let frame = Screen.render(s, Self.zh, RenderOptions())
        #expect(Golden.describe(frame).contains("https://b.example/2"))
        _ = Update.apply(.key(.down), to: &s, Self.zh)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.openLink("https://b.example/2")])
        #expect(s.mode == .normal)
        s = Self.state("没有链接")
        #expect(Update.apply(.key(.char("o")), to: &s, Self.zh).isEmpty && s.status == "这条消息没有可以打开的内容")
    }

    @Test func theMenuOffersToOpenALinkAndTheWheelMovesThePicker() throws {
        var s = Self.state("https://a.example/1 与 https://b.example/2")
        let m = try #require(s.selectedMessage)
        #expect(MessageMenu.items(for: m, s, Self.zh).contains { $0.action == .messagesOpen })
        #expect(!MessageMenu.items(for: Self.state("没有链接").selectedMessage!, s, Self.zh).contains { $0.action == .messagesOpen })
        _ = Update.apply(.key(.char("o")), to: &s, Self.zh)
        _ = Update.apply(.key(.mouse(MouseEvent(.wheelDown, x: 50, y: 10))), to: &s, Self.zh)
        guard case .open(let pick) = s.mode else { Issue.record("the picker closed"); return }
        #expect(pick.index == 1)
    }
}
