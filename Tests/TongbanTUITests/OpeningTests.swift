import ChatCore
import ChatStore
import ChatViewModels
import Foundation
import Testing
@testable import TongbanTUI

/// Opening, reopening and closing chats in the app's update alone.
@MainActor @Suite struct OpeningTests {
    static let zh = Localizer(language: .zhHans)

    func read(_ s: AppState, draft: String?) -> Event {
        var c = s.chat!.conversation
        c.draftText = draft
        return .chat(.windowRead(WindowRead(conversationId: c.id, window: s.chat!.window,
                                            page: MessagePage(messages: [], lowestSeq: nil), conversation: c,
                                            cachedKeys: [], group: nil)), s.chat!.ref)
    }

    @Test func answersForAnEarlierOpeningOfTheSameChatAreDropped() {
        var s = Fixture.state(width: 100, height: 26)
        s.focus = .list
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        let first = s.chat!.ref
        _ = Update.apply(.key(.tab), to: &s, Self.zh)   // away and back to the list: open the same chat again
        s.focus = .list
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(s.chat?.id == first.id && s.chat?.ref != first, "the same chat, opened again")
        #expect(s.chat?.isLoading == true)
        _ = Update.apply(.chat(.filled(hasMoreHistory: false), first), to: &s, Self.zh)
        _ = Update.apply(.chat(.told(.failed(Failure(CancellationError()))), first), to: &s, Self.zh)
        #expect(s.chat?.isLoading == true, "the first opening's fill does not end the second's")
        #expect(s.status == nil, "nor does its failure reach the status line")
    }

    @Test func theInputShowsTheDraftTheStoreHas() {
        var s = Fixture.state(width: 100, height: 26)
        s.focus = .list
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(s.input.text == (s.chat?.conversation.draftText ?? ""))
        _ = Update.apply(read(s, draft: "上次没写完的"), to: &s, Self.zh)
        #expect(s.input.text == "上次没写完的", "the list's row may be behind the store")
        _ = Update.apply(.key(.char("!")), to: &s, Self.zh)
        _ = Update.apply(read(s, draft: "上次没写完的"), to: &s, Self.zh)
        #expect(s.input.text == "上次没写完的!", "later reads leave what is typed alone")
    }
}
