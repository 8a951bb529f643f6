import ChatCore
import ChatViewModels
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Bubbles kept from one frame for the next (`BubbleMemo`) never show a
/// stale bubble: after any change a frame is the one a fresh layout draws.
@Suite struct BubbleMemoTests {
    static let zh = Localizer(language: .zhHans)

    static func state() -> AppState {
        var s = Fixture.state(width: 100, height: 30)
        var messages: [ChatMessage] = []
        for i in 0..<30 {
            var m = Fixture.message("m\(i)", .text("第 \(i) 条 message https://example.com/\(i) 你好世界"), type: .text,
                                    me: i % 3 == 0, minutesAgo: 30 - i)
            m.seq = 100 - i
            messages.append(m)
        }
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: messages, isLoading: false, hasMoreHistory: false,
                           newMessageBannerCount: 0, cachedKeys: [], me: "me")
        return s
    }

    /// The frame of `s` from the memo as it stands, and after forgetting it.
    static func bothWays(_ s: AppState, _ options: RenderOptions = RenderOptions(), _ L: Localizer = zh) -> (kept: Grid, fresh: Grid) {
        let kept = Screen.render(s, L, options)
        BubbleMemo.reset()
        return (kept, Screen.render(s, L, options))
    }

    @Test func aChangedMessageIsLaidOutAgain() {
        var s = Self.state()
        _ = Screen.render(s, Self.zh, RenderOptions())
        s.chat!.messages[0].content = .text("改过的文字 edited")
        s.chat!.messages[0].editedAt = Fixture.now
        let (kept, fresh) = Self.bothWays(s)
        let same = kept == fresh   // not the grids themselves: a failure would print both whole
        #expect(same, "the frame is the one a fresh layout draws")
        #expect(kept.find("改过的文字 edited") != nil)
        #expect(kept.find("第 0 条") == nil, "the old text is gone")
    }

    @Test func everyPartOfTheContextLaysOutAgain() {
        let base = Self.state()
        var changes: [(String, AppState, RenderOptions, Localizer)] = []
        var narrow = base
        narrow.size = AppState.Size(width: 60, height: 30)
        changes.append(("width", narrow, RenderOptions(), Self.zh))
        var marked = base
        marked.marked = ["m1", "m2"]
        changes.append(("marked", marked, RenderOptions(), Self.zh))
        var read = base
        read.chat!.conversation.peerReadSeq = 99
        changes.append(("peer read", read, RenderOptions(), Self.zh))
        changes.append(("palette", base, RenderOptions(palette: .highContrast), Self.zh))
        changes.append(("language", base, RenderOptions(), Localizer(language: .en)))
        var recalled = base
        recalled.chat!.messages[1].isRecalled = true
        changes.append(("revoked", recalled, RenderOptions(), Self.zh))
        for (what, s, options, L) in changes {
            _ = Screen.render(base, Self.zh, RenderOptions())
            let (kept, fresh) = Self.bothWays(s, options, L)
            let same = kept == fresh, changed = kept != Screen.render(base, Self.zh, RenderOptions())
            #expect(same, "after a change of \(what), the frame is the one a fresh layout draws")
            #expect(changed, "\(what) changes the frame")
        }
    }

    /// A key in the message pane lays the chat out in the update (default
    /// palette) and in the frame (the user's): both are kept, and neither
    /// outlives a change of the message.
    @Test func twoContextsInTurnStayRight() {
        var s = Self.state()
        let light = RenderOptions(palette: .light)
        _ = Screen.render(s, Self.zh, light)
        _ = Screen.render(s, Self.zh, RenderOptions())
        s.chat!.messages[0].content = .text("第二次改过")
        let (kept, fresh) = Self.bothWays(s, light)
        let same = kept == fresh
        #expect(same, "the frame is the one a fresh layout draws")
        #expect(kept.find("第二次改过") != nil)
    }
}
