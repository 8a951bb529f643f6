import ChatCore
import ChatViewModels
import Testing
@testable import TongbanTUI

/// The message menu and the keys offer what the message's kind allows, and
/// nothing the server would refuse.
@Suite struct MessageCapabilityTests {
    static let zh = Localizer(language: .zhHans)

    func state() -> AppState {
        var s = Fixture.state(width: 100, height: 24)
        s.myImUid = "me"
        var text = Fixture.message("t", .text("你好"), type: .text, me: false, minutesAgo: 5)
        var flash = Fixture.message("f", .flashImage(FlashImagePayload(objectKey: "k")), type: .flashImage, me: false, minutesAgo: 4)
        var mine = Fixture.message("m", .text("我的"), type: .text, me: true, minutesAgo: 3)
        (text.seq, flash.seq, mine.seq) = (1, 2, 3)
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [mine, flash, text], isLoading: false,
                           hasMoreHistory: false, newMessageBannerCount: 0, cachedKeys: [], me: "me")
        s.focus = .messages
        return s
    }

    @Test func aFlashImagesMenuHasNoForwardNorFavourite() {
        let s = state()
        let flash = s.chat!.messages.first { $0.id == "f" }!
        let titles = MessageMenu.items(for: flash, s, Self.zh).map(\.title)
        #expect(titles.contains("回复"))
        #expect(!titles.contains("转发") && !titles.contains("收藏") && !titles.contains("编辑"))
        let mine = s.chat!.messages.first { $0.id == "m" }!
        #expect(MessageMenu.items(for: mine, s, Self.zh).map(\.title).contains("编辑"))
    }

    @Test func markedFavouritesLeaveTheFlashImageOut() {
        var s = state()
        s.marked = ["t", "f", "m"]
        let effects = Update.apply(.key(.char("s")), to: &s, Self.zh)
        #expect(effects == [.addFavorite(messageId: "t"), .addFavorite(messageId: "m")])
        s.marked = ["f"]
        #expect(Update.apply(.key(.char("s")), to: &s, Self.zh).isEmpty)
        #expect(s.status == "这条消息不能收藏")
    }
}
