import ChatCore
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// The mouse does what the keyboard would, where the pointer is.
@Suite struct MouseTests {
    static let zh = Localizer(language: .zhHans)

    static func press(_ x: Int, _ y: Int, _ s: inout AppState) -> [Effect] {
        Update.apply(.key(.mouse(MouseEvent(.press, x: x, y: y))), to: &s, zh)
    }

    /// The screen row a conversation's name is drawn on.
    static func listRow(of index: Int, _ s: AppState) throws -> Int {
        let list = try #require(ScreenLayout(s).list)
        return try #require(ConversationListWidget.placed(s, zh, list).first { $0.item.row == index }?.y)
    }

    @Test func aClickSelectsAConversationAndADoubleClickOpensIt() throws {
        var s = Fixture.state(width: 100, height: 24)
        s.focus = .messages
        let y = try Self.listRow(of: 2, s)
        #expect(Self.press(5, y, &s).isEmpty)
        #expect(s.listIndex == 2 && s.focus == .list && s.chat == nil, "one click selects, opens nothing")
        s.now += 0.2
        _ = Self.press(6, y + 0, &s)
        #expect(s.chat?.conversation.id == Fixture.conversations[2].id, "a second click soon after on the row opens it")
    }

    @Test func twoSlowClicksAreTwoClicks() throws {
        var s = Fixture.state(width: 100, height: 24)
        let y = try Self.listRow(of: 1, s)
        _ = Self.press(5, y, &s)
        s.now += 1
        _ = Self.press(5, y, &s)
        #expect(s.chat == nil && s.listIndex == 1)
        // A click on another row between two does not make a double click either.
        let other = try Self.listRow(of: 0, s)
        _ = Self.press(5, other, &s)
        s.now += 0.1
        _ = Self.press(5, y, &s)
        #expect(s.chat == nil && s.listIndex == 1)
    }

    @Test func theWheelScrollsThePaneUnderThePointer() throws {
        var s = Fixture.chatState(width: 120, height: 48)
        s.focus = .input
        let list = try #require(ScreenLayout(s).list)
        _ = Update.apply(.key(.mouse(MouseEvent(.wheelDown, x: list.x + 2, y: list.y + 5))), to: &s, Self.zh)
        #expect(s.focus == .list && s.listIndex == 1)
        _ = Update.apply(.key(.mouse(MouseEvent(.wheelUp, x: list.x + 2, y: list.y + 5))), to: &s, Self.zh)
        #expect(s.listIndex == 0)
        let pane = ScreenLayout(s).messages
        _ = Update.apply(.key(.mouse(MouseEvent(.wheelUp, x: pane.x + 5, y: pane.y + 3))), to: &s, Self.zh)
        #expect(s.focus == .messages)
        let newest = try #require(s.selected)
        _ = Update.apply(.key(.mouse(MouseEvent(.wheelUp, x: pane.x + 5, y: pane.y + 3))), to: &s, Self.zh)
        #expect(s.selected == newest + 1, "up the history by one message")
    }

    @Test func aClickSelectsTheMessageUnderItAndTheInputBarTakesFocus() throws {
        var s = Fixture.chatState(width: 120, height: 48)
        let pane = ScreenLayout(s).messages
        let hits = (pane.y..<pane.maxY).compactMap { y in MessageListWidget.bubble(at: y, s, Self.zh, pane).map { (y, $0) } }
        let (y, bubble) = try #require(hits.first { $0.1 > 0 })
        _ = Self.press(pane.x + 3, y, &s)
        #expect(s.focus == .messages && s.selected == bubble)
        // The frame shows that message selected (reversed) on the row clicked.
        let grid = Screen.render(s, Self.zh, RenderOptions())
        #expect((pane.x..<pane.maxX).contains { grid[$0, y].style.reverse })
        let input = ScreenLayout(s).input
        _ = Self.press(input.x + 4, input.y, &s)
        #expect(s.focus == .input)
    }

    @Test func overlaysKeepClicksAndTakeTheWheel() throws {
        var s = Fixture.state(width: 100, height: 24)
        s.mode = .help
        let y = try Self.listRow(of: 2, s)
        _ = Self.press(5, y, &s)
        #expect(s.mode == .help && s.listIndex == 0, "a click does not reach the list under the help")
        s.mode = .newChat(NewChatDialog())
        _ = Update.apply(.key(.mouse(MouseEvent(.wheelDown, x: 50, y: 10))), to: &s, Self.zh)
        guard case .newChat = s.mode else { Issue.record("the wheel closed the dialog"); return }
    }

    @Test func theDecoderPassesMouseReportsThrough() {
        var d = KeyDecoder()
        let keys = d.decode([.char(0x61), .mouse(MouseEvent(.press, x: 3, y: 4)), .char(0x62)])
        #expect(keys == [.char("a"), .mouse(MouseEvent(.press, x: 3, y: 4)), .char("b")])
    }
}
