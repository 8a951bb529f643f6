import ChatCore
import ChatViewModels
import ChatMedia
import ChatServer
@testable import ChatStore
@testable import ChatSync
import Foundation
import Logging
import TerminalUI
import ChatTesting
import Testing
@testable import TongbanTUI

// Drafts, the selection, long histories, redraws, a dead server and full-screen pictures.

extension ChatAppScreenTests {
    @Test func quittingKeepsWhatWasTypedAsTheDraft() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        #expect(await waitFor(app, "好的，发消息给我试试"))
        for ch in "还没写完" { await app.handle(.char(ch)) }
        await app.handle(.ctrl("c"))
        #expect(app.wantsQuit)
        app.willQuit()
        let alice = try #require(try session.store.conversationList().first { $0.nickname == "Alice 爱丽丝" })
        #expect(alice.draftText == "还没写完")
    }

    @Test func theSelectionStaysOnItsMessageWhenOthersArrive() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        #expect(await waitFor(app, "好的，发消息给我试试"))
        await app.handle(.escape)
        await app.handle(.char("k"))
        await app.handle(.char("k"))
        let picked = try #require(app.selectedMessage)
        // Two messages arrive from Alice while it is selected.
        let chat = try #require(app.chat)
        let maxSeq = try #require(try session.store.conversation(id: chat.conversation.id)?.maxSeq)
        let alice = ConversationIDHelper.imUid(chat.conversation.targetUid)
        try session.store.apply(events: (1...2).map { i in
            .message(WireMessage(serverMsgID: "x\(i)", clientMsgID: "arrived-\(i)", conversationId: chat.conversation.id, seq: maxSeq + i,
                                 sendID: alice, recvID: session.credentials.imUid, contentType: 101, content: "又来一条 \(i)",
                                 sendTime: Int(Date().timeIntervalSince1970 * 1000)))
        }, cursor: 10_000)
        await app.chatEvent(.storeChanged)
        #expect(await waitFor(app, "又来一条 2"))
        #expect(app.selectedMessage?.id == picked.id, "R or Enter now would act on the message the user picked")
    }

    @Test func aLongLoadedHistoryScrollsAndSelectsToItsOldestMessage() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        #expect(await waitFor(app, "好的，发消息给我试试"))
        // Opening the chat asks the server beside the keys (isLoading meanwhile).
        await app.appearing?.value
        let chat = try #require(app.chat)
        let maxSeq = try #require(try session.store.conversation(id: chat.conversation.id)?.maxSeq)
        let alice = ConversationIDHelper.imUid(chat.conversation.targetUid)
        let now = Int(Date().timeIntervalSince1970 * 1000)
        // 300 more, every third long enough to wrap over several rows.
        try session.store.apply(events: (1...300).map { i in
            .message(WireMessage(serverMsgID: "h\(i)", clientMsgID: "history-\(i)", conversationId: chat.conversation.id,
                                 seq: maxSeq + i, sendID: alice, recvID: session.credentials.imUid, contentType: 101,
                                 content: "长历史 #\(i)# " + (i % 3 == 0 ? String(repeating: "很长的一段话，", count: 20) : ""),
                                 sendTime: now - (300 - i) * 1000))
        }, cursor: 10_000)
        await app.chatEvent(.storeChanged)
        // Bounded: paging back while a load is out returns at once, and on
        // the main actor an unbounded loop would starve that load for ever.
        for _ in 0..<100 where app.chat?.hasMoreHistory == true { await app.chatEvent(.loadMore) }
        #expect(app.chat?.hasMoreHistory == false)
        #expect((app.chat?.messages.count ?? 0) > 300)
        await app.handle(.escape)   // to the messages
        await app.handle(.char("G"))
        #expect(app.frame(width: 120, height: 40).find("#300#") != nil)

        // PageUp passes every message on its way to the top (from the
        // bottom's own frame on), and stops there.
        var seen = Set<Int>()
        func look() {
            let text = app.frame(width: 120, height: 40).text()
            for i in [1, 2, 99, 150, 299] where text.contains("#\(i)#") { seen.insert(i) }
        }
        look()
        var lastScroll = -1
        for _ in 0..<1_000 {
            await app.handle(.pageUp)
            look()
            if app.scroll == lastScroll { break }
            lastScroll = app.scroll
        }
        #expect(seen == [1, 2, 99, 150, 299])
        #expect(app.scroll == app.maxScroll, "the top of the history is reachable and the scroll stops there")
        // The last row is the oldest message's time marker; the message is just below it.
        let oldest = try #require(chat.messages.last { $0.content.text != nil }?.content.text)
        #expect(app.frame(width: 120, height: 40).find(String(oldest.prefix(6))) != nil, "the oldest message is on screen at the top")

        // A selection far up the history is scrolled to and highlighted.
        await app.handle(.char("G"))
        for _ in 0..<250 { await app.handle(.char("k")) }
        let picked = try #require(app.selectedMessage?.content.text, "a text is selected")
        let marker = try #require(picked.split(separator: " ").dropFirst().first.map(String.init))
        let f = app.frame(width: 120, height: 40)
        let at = try #require(f.find(marker), "the selected message \(marker) is on screen")
        #expect(f[at.x, at.y].style.reverse)
    }

    @Test func anIdleClientDrawsOnlyWhenTheMinuteChanges() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        _ = await app.tick()
        let before = Int(Date().timeIntervalSince1970 / 60)
        let again = await app.tick()
        let after = Int(Date().timeIntervalSince1970 / 60)
        #expect(!again || before != after, "nothing on screen depends on the second")
        // So the run loop sleeps until just after the next minute…
        let fifteenPast = Date(timeIntervalSince1970: 1_800_000_000 + 15)
        #expect(app.nextTickDelay(now: fifteenPast) == .milliseconds(45_050))
        #expect(!app.needsSecondTicks)
        // …until a recording's clock needs every second, and says so at once.
        var woken = 0
        app.onSecondTicksNeeded = { woken += 1 }
        let none = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString).wav")
        await app.dispatch(.recordingStarted(none))
        #expect(woken == 1)
        await app.dispatch(.recordingStarted(none))
        #expect(woken == 1, "only the start of counting restarts the ticks")
        #expect(app.nextTickDelay(now: fifteenPast) == .seconds(1))
        #expect(await app.tick())
        await app.handle(.escape)
        #expect(!app.needsSecondTicks)
        #expect(woken == 1)
    }

    @Test func aResizeAnswersNoPrompt() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.char("d"))
        #expect(app.frame(width: 120, height: 40).find("(y/N)") != nil)
        await app.handle(.resize)
        #expect(app.frame(width: 100, height: 30).find("(y/N)") != nil, "the delete prompt is still asking")
        let before = app.visibleConversations.count
        await app.handle(.char("n"))
        #expect(app.frame(width: 100, height: 30).find("(y/N)") == nil)
        #expect(app.visibleConversations.count == before, "nothing deleted")
    }

    /// Opening a chat shows what the store has and answers the next key at
    /// once; asking the server for history runs beside the keys. With the
    /// server gone, Escape right after Enter used to wait ~2 s for the HTTP
    /// client to give up.
    @Test func aDeadServerDoesNotHoldUpTheNextKey() async throws {
        let port = try ReservedPort()
        let (server, session) = try await demoSession(port: port)
        let app = await app(session)
        await server.stop()
        await app.handle(.enter)  // Alice: her older history is asked of a server that is gone
        let chat = try #require(app.chat)
        #expect(chat.isLoading, "the key was answered before the server's part ended")
        #expect(app.frame(width: 120, height: 40).find("好的，发消息给我试试") != nil, "the stored messages are on screen")
        await app.handle(.escape)
        #expect(app.focus == .messages, "the next key was handled")
        await app.appearing?.value
        #expect(app.chat?.isLoading == false)
        #expect(app.chat?.id == chat.id, "still the same chat")
    }

    @Test func enterShowsAnImageFullScreenInTrueColour() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        app.trueColor = true
        await app.handle(.enter)  // Alice, pinned on top
        await app.appearing?.value  // her older history (the picture) comes from the server
        #expect(await waitFor(app, "好的，发消息给我试试"))
        await app.handle(.escape)
        for _ in 0..<10 where app.selectedMessage?.type != .image { await app.handle(.char("k")) }
        #expect(app.selectedMessage?.type == .image)
        await app.handle(.enter)
        let frame = app.frame(width: 120, height: 40)
        #expect(frame.find("图片（o：用查看器打开，其他键关闭）") != nil)
        // The demo picture's top-left pixel is (40, 120, 200), in 24-bit colour.
        var exact = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width where frame[x, y].text == "▀" {
                if case .rgb = frame[x, y].style.fg { exact += 1 }
            }
        }
        #expect(exact >= 96 * 30, "a 96×64 picture is 96×32 cells of 24-bit half blocks, got \(exact)")
        #expect((0..<frame.height).contains { y in (0..<frame.width).contains { frame[$0, y].style.fg == .rgb(40, 120, 200) } })
        // Shrinking the terminal keeps the picture open, fitted to the new size.
        app.terminalSize = { (width: 40, height: 20) }
        await app.handle(.resize)
        guard case .picture(_, _, let fitted) = app.mode else {
            Issue.record("a resize closed the picture")
            return
        }
        #expect(fitted.width <= 40 && fitted.height <= 34 && fitted.width >= 30, "\(fitted.width)×\(fitted.height)")
        app.terminalSize = nil
        await app.handle(.char(" "))
        #expect(app.frame(width: 120, height: 40).find("图片（o：") == nil, "any key closes it")
        app.trueColor = false
        await app.handle(.enter)
        let palette = app.frame(width: 120, height: 40)
        await app.handle(.char(" "))
        #expect(!(0..<palette.height).contains { y in (0..<palette.width).contains {
            if case .rgb = palette[$0, y].style.fg { return true }
            return false
        } }, "without COLORTERM the palette is used")
    }
}
