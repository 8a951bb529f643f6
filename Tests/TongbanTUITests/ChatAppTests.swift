import ChatCore
import ChatMedia
import ChatServer
@testable import ChatStore
@testable import ChatSync
import Foundation
import Logging
import Synchronization
import TerminalUI
import Testing
@testable import TongbanTUI

@MainActor @Suite(.serialized) struct ChatAppScreenTests {
    @Test func listPaneShowsTheDemoConversations() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let g = app.frame(width: 120, height: 40)
        // Bob's 3 and the demo group's 4 (its created notice is not unread).
        #expect(g.rowText(0).contains("消息 (7)"), "title with total unread")
        #expect(g.find("周末爬山群（4人）") != nil, "the demo group with its member count")
        #expect(g.find("[有人@我]") != nil, "Alice mentioned me in it")
        let alice = try #require(g.find("Alice 爱丽丝"))
        let bob = try #require(g.find("Bob 鲍勃"))
        #expect(alice.y < bob.y, "pinned first")
        #expect(g.rowText(alice.y).contains("📌"))
        #expect(g.rowText(bob.y + 1).contains(" 3 "), "unread badge")
        #expect(g.find("周六早上八点") != nil, "preview line")
        #expect(g.rowText(39).contains("j/k"), "key hints on the status line")
        #expect(g.find("在左侧选择一个会话") != nil, "the message pane says how to open a chat, not that there are no messages")
        #expect(g.find("暂无消息") == nil)
        // A preview or hint line too long for a narrower pane ends in "…".
        let narrow = app.frame(width: 100, height: 30)
        let row = try #require(narrow.find("Alice 爱丽丝"))
        let preview = narrow.rowText(row.y + 1).split(separator: "│").first.map(String.init) ?? ""
        #expect(preview.contains("好的") && preview.contains("…") && !preview.contains("我会回复你"),
                "the preview is cut with an ellipsis: \(preview)")
        let hints = app.frame(width: 70, height: 30).rowText(29).trimmingCharacters(in: .whitespaces)
        #expect(hints.hasSuffix("…") && hints.contains("j/k"), "so are the key hints")
    }

    /// `?` shows every key with what it does, in two columns when the
    /// screen is wide and in one when it is not; any key closes it.
    @Test func helpListsKeysWithWhatTheyDo() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.char("?"))
        let wide = app.frame(width: 120, height: 40)
        let move = try #require(wide.find("移动"))
        let select = try #require(wide.find("选择更早 / 更新的消息"))
        #expect(select.y == move.y && select.x > move.x + 20, "two columns side by side")
        for text in ["置顶 / 取消置顶", "/flash 路径", "发送闪照，只能看一次", "下一个 / 上一个窗格", "/rec"] {
            #expect(wide.find(text) != nil, "help mentions \(text)")
        }
        // Keys line up: the descriptions of one section start in one column.
        let pin = try #require(wide.find("置顶 / 取消置顶")), open = try #require(wide.find("打开会话"))
        #expect(pin.x == open.x)
        let narrow = app.frame(width: 70, height: 64)
        let l = try #require(narrow.find("会话列表")), i = try #require(narrow.find("全局"))
        #expect(i.y > l.y && i.x == l.x, "one column on a narrow screen")
        await app.handle(.char("x"))
        #expect(app.frame(width: 120, height: 40).find("会话列表") == nil, "any key closes it")
    }

    /// Keys rebound in keys.json show in the help, in front of the default
    /// key they stand for (which still works).
    @Test func helpShowsReboundKeys() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let file = tmpFile("helpkeys", "json")
        try Data(#"{"list.pin": "P", "quit": "Ctrl-Q", "messages.revoke": "x", "list.new": "\u0007", "help": "?"}"#.utf8).write(to: file)
        app.keyMap = try KeyMap.load(from: file)
        await app.handle(.char("?"))
        let g = app.frame(width: 120, height: 40)
        func row(_ text: String) throws -> String { g.rowText(try #require(g.find(text), "\(text) in the help").y) }
        #expect(try row("置顶 / 取消置顶").contains("P p "))
        #expect(try row("撤回自己刚发的消息").contains("x R "))
        #expect(try row("退出").contains("Ctrl-Q q Ctrl-C "))
        #expect(try row("新会话、群聊、好友、房间").contains("U+7 n "), "a control character by its code point")
        #expect(try row("本帮助").contains(" ? "), "a key bound to itself is not listed twice")
        #expect(!(try row("本帮助").contains("? ?")))
        await app.handle(.escape)
        await app.handle(.char("P"))  // the rebound key still pins
        #expect(try session.store.conversationList().first { $0.nickname == "Alice 爱丽丝" }?.isPinned == false, "Alice (pinned, first row) unpinned by P")
    }

    /// My signal quote is a box on the right: its corner, quote, rule and
    /// reply start in one column instead of each line pushed right alone.
    @Test func myQuoteBoxKeepsOneLeftEdge() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.char("j"))
        await app.handle(.enter)  // Bob
        #expect(await waitFor(app, "算我一个"))
        let g = app.frame(width: 120, height: 40)
        let corner = try #require(g.find("┌ 信号引用"))
        let quote = try #require(g.find("│ 周末有人一起去爬香山吗"))
        let reply = try #require(g.find("│ 算我一个"))
        let rule = try #require(g.find("├────"))
        #expect(quote.x == corner.x && reply.x == corner.x && rule.x == corner.x)
        #expect(corner.x > 60, "still on the right, as my message")
    }

    @Test func openingAChatShowsBubblesMarkersAndSides() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice is first (pinned)
        #expect(await waitFor(app, "早上好！这是同伴终端的演示"))
        let g = app.frame(width: 120, height: 40)
        let theirs = try #require(g.find("早上好！这是同伴终端的演示"))
        let mine = try #require(g.find("早！终端里也能聊天"))
        #expect(mine.x > theirs.x, "mine on the right, theirs on the left")
        #expect(g.find("你撤回了一条消息") != nil, "the revoked message keeps its place")
        #expect(g.find("▶ 12″") != nil, "voice bubble")
        #expect(g.find("[图片] 96×64") != nil, "image bubble with its size")
        #expect(g.text().contains("— "), "time separators")
        #expect(g.find("> ") != nil, "input bar")
        // The image is prefetched into the cache in the background and then
        // shows as a half-block thumbnail.
        #expect(await waitFor(app, "▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀"), "a 16-cell thumbnail row")
    }

    @Test func aThumbnailBeingDecodedKeepsItsRowsSoThePaneDoesNotJump() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let gate = AsyncGate()
        app.pictureDecoder = PictureDecoder { data, w, h in
            await gate.wait()
            return try ImageCodec.decode(data, maxWidth: w, maxHeight: h)
        }
        await app.handle(.enter)
        #expect(await waitFor(app, "[图片] 96×64"))
        // The picture is prefetched in the background; then its decoding starts.
        let deadline = ContinuousClock.now + .seconds(5)
        while !app.thumbnails.values.contains(.pending) && ContinuousClock.now < deadline {
            _ = app.frame(width: 120, height: 40)
            try await Task.sleep(for: .milliseconds(20))
        }
        let pending = app.frame(width: 120, height: 40)
        #expect(!pending.text().contains("▀"), "nothing drawn before it is decoded")
        #expect(pending.find("░░░░░░░░░░░░░░░░") != nil, "a 16×6-cell box holds its place")
        let before = try #require(pending.find("你撤回了一条消息")).y - (try #require(pending.find("[图片] 96×64")).y)
        await gate.open()
        #expect(await waitFor(app, "▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀"))
        let shown = app.frame(width: 120, height: 40)
        let after = try #require(shown.find("你撤回了一条消息")).y - (try #require(shown.find("[图片] 96×64")).y)
        #expect(before == after, "the rows were kept free for the thumbnail")
    }

    @Test func aDecoderThatTimedOutIsAskedAgain() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let calls = Counter()
        app.thumbnailRetry = .milliseconds(100)
        app.pictureDecoder = PictureDecoder { data, w, h in
            if await calls.next() == 1 { throw ImageCodec.Failure(description: "the picture took too long to decode", kind: .timeout) }
            return try ImageCodec.decode(data, maxWidth: w, maxHeight: h)
        }
        await app.handle(.enter)
        #expect(await waitFor(app, "▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀"), "shown on the second try")
        #expect(await calls.value == 2)
    }

    @Test func aPictureThatCrashesTheDecoderLeavesTheChatRunning() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        app.pictureDecoder = .helper(executable: "/bin/sh", arguments: ["-c", "cat >/dev/null; kill -SEGV $$", "crashing-decoder"])
        await app.handle(.enter)
        let deadline = ContinuousClock.now + .seconds(10)
        // Until the decoder has answered (a thumbnail starts as pending).
        while !app.thumbnails.values.contains(where: { $0 != .pending }) && ContinuousClock.now < deadline {
            _ = app.frame(width: 120, height: 40)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(app.thumbnails.count == 1, "the decoder was asked and its crash recorded")
        let g = app.frame(width: 120, height: 40)
        #expect(g.find("[图片] 96×64") != nil, "the bubble still says what it is")
        #expect(!g.text().contains("▀"))
        // Full screen: no picture view, a plain sentence in the status line.
        await app.handle(.escape)
        for _ in 0..<10 where app.selectedMessage?.type != .image { await app.handle(.char("k")) }
        await app.handle(.enter)
        if case .picture = app.mode { Issue.record("a picture view without a picture") }
        #expect(app.frame(width: 120, height: 40).find("图片解码程序在这张图片上异常退出") != nil)
        await app.handle(.char("i"))
        // Still a working chat.
        await type(app, "还在")
        await app.handle(.enter)
        #expect(await waitFor(app, "还在"))
    }

    @Test func typeSendAndGetTheDemoReply() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        session.sync.start()
        await session.sendQueue.start()
        defer { session.sync.stop() }
        let app = await app(session)
        await app.handle(.enter)
        await type(app, "终端里的你好👋")
        #expect(app.frame(width: 120, height: 40).find("> 终端里的你好👋") != nil)
        await app.handle(.altEnter)
        await type(app, "再来一行")
        let twoLines = app.frame(width: 120, height: 40)
        let second = try #require(twoLines.find("再来一行"))
        #expect(second.y == twoLines.find("> 终端里的你好👋")!.y + 1, "the input grows to two lines")
        await app.handle(.enter)
        #expect(await waitFor(app, "收到：终端里的你好👋"), "the demo peer answers")
    }

    @Test func escapeSequencesNeverReachTheScreen() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let alice = APIClient(baseURL: server.baseURL)
        let auth = try await alice.login(account: "alice", password: "tongban-demo")
        alice.token = auth.token
        let conv = ConversationIDHelper.make(myUid: auth.uid, targetUid: session.credentials.uid)
        let evil = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31m红色警告\u{1B}[0m\u{9B}6n\u{202E}abc"
        _ = try await alice.send(SendMessageRequest(recvID: conv, content: evil, contentType: 101, clientMsgId: "evil"))
        try await session.sync.pull()
        let app = await app(session)
        await app.handle(.enter)
        #expect(await waitFor(app, "红色警告"))
        let g = app.frame(width: 120, height: 40)
        for y in 0..<g.height {
            for x in 0..<g.width {
                let scalars = g[x, y].text.unicodeScalars
                #expect(!scalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E },
                        "cell \(x),\(y) holds a control character")
            }
        }
        #expect(!g.text().contains("pwned"), "an OSC title is dropped whole")
    }

    @Test func recordAVoiceMessageAndSendIt() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        // A stand-in recorder: writes a 2-second WAV to its last argument, then waits for SIGINT.
        let dir = tmpDir("rec")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let template = dir.appendingPathComponent("take.wav")
        try SampleMedia.wav(seconds: 2).write(to: template)
        let script = dir.appendingPathComponent("fake-recorder")
        let ready = dir.appendingPathComponent("recording")
        try Data("#!/bin/sh\ncp '\(template.path)' \"$1\"\ntouch '\(ready.path)'\nexec sleep 30\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
        setenv("TONGBAN_RECORDER", script.path, 1)
        defer { unsetenv("TONGBAN_RECORDER") }
        let app = await app(session)
        await app.handle(.enter)
        await type(app, "/rec")
        await app.handle(.enter)
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("● 0:00  录音中"))
        let started = Date()
        app.clock = { started.addingTimeInterval(65) }  // the clock runs while recording
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("● 1:05  录音中"))
        // The recorder has written its take before it is stopped.
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: ready.path) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await app.handle(.enter)
        #expect(await waitFor(app, "▶ 2″"), "the voice bubble with its duration")
        _ = await session.sendQueue.drain()
        let alice = try #require(try session.store.conversationList().first { $0.nickname == "Alice 爱丽丝" })
        let sent = try await session.api.history(conversationId: alice.id).messages.last { $0.sendID == session.credentials.imUid }
        #expect(sent?.content.contains("\"durationSec\":2") == true)
    }

    @Test func narrowAndTooSmall() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let narrow = app.frame(width: 60, height: 20)
        #expect(narrow.find("Alice 爱丽丝") != nil)
        await app.handle(.enter)
        #expect(await waitFor(app, width: 60, height: 20, "发消息给我试试"))
        #expect(app.frame(width: 60, height: 20).find("Bob 鲍勃") == nil, "one pane at a time")
        await app.handle(.escape)  // input -> messages
        await app.handle(.escape)  // messages -> list
        #expect(app.frame(width: 60, height: 20).find("Bob 鲍勃") != nil)
        let tiny = app.frame(width: 30, height: 8)
        #expect(tiny.text().contains("终端太小"))
    }

    @Test func searchFiltersTheList() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.char("/"))
        await type(app, "bob")
        let g = app.frame(width: 120, height: 40)
        #expect(g.find("Bob 鲍勃") != nil)
        #expect(g.find("Alice 爱丽丝") == nil)
        // A filter that matches nobody says so, not "no messages yet".
        await type(app, "zzz")
        let none = app.frame(width: 120, height: 40)
        #expect(none.find("没有找到") != nil)
        #expect(none.find("暂无消息") == nil && none.find("通过信号互动后") == nil)
        await app.handle(.escape)
        #expect(app.frame(width: 120, height: 40).find("Alice 爱丽丝") != nil)
    }

    @Test func revokeOwnMessageAfterConfirmation() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)
        await type(app, "马上撤回这句")
        await app.handle(.enter)
        _ = await session.sendQueue.drain()
        await app.handle(.escape)  // to the message pane, the newest bubble selected
        await app.handle(.char("R"))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("撤回这条消息？(y/N)"))
        await app.handle(.char("y"))
        #expect(await waitFor(app, "你撤回了一条消息"))
        // The list's preview follows its own store observation: wait for it too.
        #expect(await waitForGone(app, "马上撤回这句"))
    }

    /// v3 through the real server: `1` reacts 👍 and takes it back, `e`
    /// edits my message (Esc first keeps the original and gives the draft
    /// back), and the bubble says it was edited.
    @Test func reactToAndEditAMessage() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        await type(app, "八点见")
        await app.handle(.enter)
        _ = await session.sendQueue.drain()  // acknowledged: it has a seq to act on
        #expect(await waitForGone(app, "八点见 …"), "the chat shows it sent")
        await type(app, "草稿")
        await app.handle(.escape)
        #expect(app.selectedMessage?.text == "八点见", "the pane selects the newest as it takes the keyboard")

        await app.handle(.char("1"))
        #expect(await waitFor(app, "👍 1"))
        #expect(try session.reader.message(clientMsgID: try #require(app.selectedMessage?.id))?.reactions.users(of: "👍")
                == [session.credentials.imUid])
        await app.handle(.char("1"))
        #expect(await waitForGone(app, "👍 1"), "the same key takes it back")

        await app.handle(.char("e"))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("编辑消息"))
        await app.handle(.escape)
        #expect(app.state.input.text == "草稿", "Esc keeps the original and gives the draft back")
        await app.handle(.char("e"))
        let edited = try #require(app.selectedMessage?.id)
        await app.handle(.ctrl("u"))
        await type(app, "九点见")
        await app.handle(.enter)
        #expect(await waitFor(app, "九点见 （已编辑）"))
        #expect(app.state.input.text == "草稿")
        #expect(app.frame(width: 120, height: 40).find("八点见 （") == nil)

        // `x` on a delivered message deletes it for me only, after asking.
        await app.handle(.char("x"))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("只删除你这边的"))
        await app.handle(.char("y"))
        #expect(await waitForGone(app, "九点见"))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("已删除（仅自己这边）"))
        #expect(try session.reader.message(clientMsgID: edited) == nil)
    }

    /// `r` quotes the selected message; the reply reaches the server as a
    /// 114 whose quote the server filled in; Enter on it goes back to the quoted one.
    @Test func replyToAMessage() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        await app.handle(.escape)  // her newest message selected
        let quoted = try #require(app.selectedMessage)
        #expect(quoted.text == "好的，发消息给我试试，我会回复你")
        await app.handle(.char("r"))
        #expect(app.frame(width: 120, height: 40).find("回复 Alice 爱丽丝：好的，发消息给我试试") != nil)
        await type(app, "收到，这就试")
        await app.handle(.enter)
        _ = await session.sendQueue.drain()
        #expect(await waitFor(app, "│ Alice 爱丽丝：好的，发消息给我试试，我会回复你"))
        #expect(app.frame(width: 120, height: 40).find("回复 Alice 爱丽丝") == nil, "the note goes with the send")
        let sent = try #require(try session.reader.newestPage(conversationId: quoted.conversationId, limit: 1).messages.last)
        #expect(sent.contentType == ContentType.quote)
        #expect(QuotePayload(jsonText: sent.content)?.quote.clientMsgID == quoted.id)
        // Enter on the reply selects the quoted message.
        #expect(await waitForGone(app, "收到，这就试 …"))
        await app.handle(.escape)  // to the message pane
        await app.handle(.char("G"))
        await app.handle(.char("k"))
        #expect(app.selectedMessage?.content.quote != nil)
        await app.handle(.enter)
        #expect(app.selectedMessage?.id == quoted.id, "the quoted message is selected")
    }

    /// `s` keeps a message; `f` in the list shows the favourites, Enter
    /// opens one in its chat with it selected, `x` removes it.
    @Test func favouritesFromAMessageToTheListAndBack() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        await app.handle(.escape)
        let kept = try #require(app.selectedMessage)
        await app.handle(.char("s"))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("已收藏"))
        await app.handle(.escape)  // to the list
        await app.handle(.char("f"))
        let shown = app.frame(width: 120, height: 40)
        #expect(shown.find("收藏") != nil && shown.find("Alice 爱丽丝  ") != nil, "the favourite names its chat")
        await app.handle(.enter)
        #expect(app.frame(width: 120, height: 40).find("来自 Alice 爱丽丝") != nil, "its page: the chat, when it was kept")
        await app.handle(.enter)
        #expect(app.selectedMessage?.id == kept.id, "Enter on its page: opened in its chat, selected")
        // Back to the list (Esc steps out of the input, the selection, the pane).
        for _ in 0..<4 where app.focus != .list { await app.handle(.escape) }
        #expect(app.focus == .list)
        await app.handle(.char("f"))
        await app.handle(.char("x"))
        #expect(app.frame(width: 120, height: 40).find("还没有收藏") != nil)
        #expect(try await session.favorites().isEmpty)
    }

    /// `c` puts the selected message's text on the clipboard and says how.
    @Test func copyAMessagesText() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let copied = Mutex<[String]>([])
        app.copy = { text in copied.withLock { $0.append(text) }; return "OSC 52" }
        await app.handle(.enter)
        await app.handle(.escape)
        await app.handle(.char("c"))
        #expect(copied.withLock { $0 } == ["好的，发消息给我试试，我会回复你"])
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("已复制到剪贴板（OSC 52）"))
        app.copy = nil
        await app.handle(.char("c"))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("这个终端没有剪贴板"))
    }

    /// Ctrl-X Ctrl-E hands the draft to the editor; what it saved is in
    /// the input bar, unsent; Ctrl-E alone still goes to the line's end.
    @Test func composeInTheEditor() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let given = Mutex<[String]>([])
        app.compose = { text in given.withLock { $0.append(text) }; return text + "\n编辑器里写的第二行" }
        await app.handle(.enter)
        await type(app, "草稿")
        await app.handle(.ctrl("x"))
        await app.handle(.ctrl("e"))
        #expect(given.withLock { $0 } == ["草稿"])
        #expect(app.state.input.text == "草稿\n编辑器里写的第二行")
        #expect(try session.reader.outboxEntries().isEmpty, "nothing was sent")
        await app.handle(.home)
        await app.handle(.ctrl("e"))
        #expect(given.withLock { $0.count } == 1, "Ctrl-E alone moves the cursor")
        app.compose = { _ in nil }
        await app.handle(.ctrl("x"))
        await app.handle(.ctrl("e"))
        #expect(app.state.input.text == "草稿\n编辑器里写的第二行")
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("草稿未变"))
    }

    /// `/` in the list finds conversations by name and, below them,
    /// messages of every conversation (Chinese without spaces); Enter on
    /// a message opens its chat with it selected.
    @Test func searchEverywhereFromTheList() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.char("/"))
        await type(app, "香山东门")
        let f = app.frame(width: 120, height: 40)
        let hit = try #require(f.find("🔍 Bob 鲍勃"), "the message's conversation")
        // The row below it: the text around the match, the match highlighted.
        let snippet = f.rowText(hit.y + 1)
        let column = try #require(snippet.range(of: "香山东门")).lowerBound
        let x = DisplayWidth.of(String(snippet[..<column]))
        #expect(f[x, hit.y + 1].style.underline && !f[x - 1, hit.y + 1].style.underline, "the match is highlighted")
        await app.handle(.enter)
        #expect(app.chat?.conversation.nickname == "Bob 鲍勃")
        #expect(app.selectedMessage?.text?.contains("香山东门") == true)
        // A name matches first; the messages follow.
        for _ in 0..<4 where app.focus != .list { await app.handle(.escape) }
        await app.handle(.char("/"))
        await type(app, "Bob")
        #expect(app.state.visibleConversations.first?.nickname == "Bob 鲍勃")
        await app.handle(.escape)
        #expect(app.state.listHits.isEmpty, "closing the search forgets its hits")
    }

    /// `v` marks messages with Space, `f` forwards them, oldest first, to
    /// the conversations chosen in the picker; a picture keeps its object,
    /// which the new chat may read.
    @Test func markAndForwardMessages() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.enter)  // Alice
        await app.appearing?.value  // her history, from the server
        await app.handle(.escape)  // her newest text selected
        await app.handle(.char("v"))
        await app.handle(.char(" "))
        // Up to her picture: walk until it is selected.
        for _ in 0..<6 where app.selectedMessage?.type != .image { await app.handle(.char("k")) }
        #expect(app.selectedMessage?.type == .image)
        await app.handle(.char(" "))
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("已选 2 条"))
        #expect(app.frame(width: 120, height: 40).find("✓ 已选") != nil)
        await app.handle(.char("f"))
        #expect(app.frame(width: 120, height: 40).find("转发 2 条消息到：") != nil)
        await type(app, "Bob")
        await app.handle(.enter)
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("已转发 2 条到 1 个会话"))
        #expect(await session.sendQueue.drain() == .empty, "the server took both, the picture included")
        let bob = try #require(try session.reader.conversationList(localizer: Localizer(language: .zhHans), useCache: false).first { $0.nickname == "Bob 鲍勃" })
        let sent = try session.reader.newestPage(conversationId: bob.id, limit: 2).messages
        #expect(sent.map { $0.contentType } == [ContentType.custom, ContentType.text], "in the order they were sent")
        #expect(sent.last?.content == "好的，发消息给我试试，我会回复你")
        #expect(app.frame(width: 120, height: 40).find("✓ 已选") == nil, "marking ends with the forward")

        // The same two as one chat history (F): Bob's chat shows its title and
        // first lines; Enter there shows the whole record.
        await app.handle(.char("v"))
        await app.handle(.char(" "))  // the picture, still selected
        await app.handle(.char("j"))
        for _ in 0..<6 where app.selectedMessage?.text != "好的，发消息给我试试，我会回复你" { await app.handle(.char("j")) }
        await app.handle(.char(" "))
        await app.handle(.char("F"))
        #expect(app.frame(width: 120, height: 40).find("把 2 条消息合并转发到：") != nil)
        await type(app, "Bob")
        await app.handle(.enter)
        #expect(await session.sendQueue.drain() == .empty)
        let record = try #require(try session.reader.newestPage(conversationId: bob.id, limit: 1).messages.last)
        #expect(record.contentType == ContentType.merged)
        #expect(MergedPayload(jsonText: record.content)?.items.count == 2)
        for _ in 0..<4 where app.focus != .list { await app.handle(.escape) }
        await app.handle(.char("/"))
        await type(app, "Bob")
        await app.handle(.enter)
        #expect(await waitFor(app, "[聊天记录] 我 和 Alice 爱丽丝 的聊天记录"))
        #expect(app.frame(width: 120, height: 40).find("│ Alice 爱丽丝：[图片]") != nil)
        await app.handle(.escape)
        await app.handle(.enter)
        #expect(app.frame(width: 120, height: 40).find("好的，发消息给我试试，我会回复你") != nil)
    }

    @Test func flashImageIsViewedOnceAfterThePrompt() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        await app.handle(.char("j"))  // Bob
        await app.handle(.enter)
        #expect(await waitFor(app, "[闪照] Enter 查看"))
        await app.handle(.escape)
        // Select the flash image: walk up until it is selected.
        for _ in 0..<2 { await app.handle(.char("k")) }
        await app.handle(.enter)
        #expect(app.frame(width: 120, height: 40).rowText(39).contains("查看后将销毁，确定查看？(y/N)"))
        var secondTicks = 0
        app.onSecondTicksNeeded = { secondTicks += 1 }
        await app.handle(.char("y"))
        #expect(app.frame(width: 120, height: 40).find("秒后销毁") != nil)
        #expect(secondTicks == 1 && app.nextTickDelay() == .seconds(1), "the countdown needs a tick every second")
        #expect(app.frame(width: 120, height: 40).text().contains("▀▀▀▀▀▀▀▀"), "the picture itself, in half blocks")
        let bobConv = try #require(try session.store.conversationList().first { $0.nickname == "Bob 鲍勃" }).id
        let shown = try #require(try session.store.newestPage(conversationId: bobConv).messages.first { $0.content.contains("flash_image") })
        #expect(shown.flashViewed, "destroyed the moment it is shown: quitting now cannot keep it viewable")
        await app.handle(.char(" "))
        #expect(await waitFor(app, "闪照已查看"))
        // Never written anywhere under the user's folders.
        let files = FileManager.default.enumerator(atPath: session.paths.cacheDirectory.path)?.allObjects as? [String] ?? []
        let bobId = try #require(try session.store.conversationList().first { $0.nickname == "Bob 鲍勃" }).id
        let keys = try session.store.newestPage(conversationId: bobId).messages.compactMap { r in
            r.chatMessage(myImUid: session.credentials.imUid).content.flashImage?.objectKey
        }
        let flashKey = try #require(keys.first)
        #expect(!files.contains { $0.contains(MediaKeyName.of(flashKey)) }, "the flash image never touched the disk")
        _ = await session.sendQueue.drain()
        let bob = try #require(try session.store.conversationList().first { $0.nickname == "Bob 鲍勃" })
        let history = try await session.api.history(conversationId: bob.id)
        #expect(history.messages.contains { $0.flashViewed }, "destroyed on the server too")
    }
}
