import ChatCore
import ChatViewModels
import ChatMedia
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Whole frames drawn from a fixed state, compared with the files in
/// `Golden/`: every cell's text, and its style as a letter per cell with a
/// legend. `make golden` rewrites the files; review them with `git diff`.
@Suite struct GoldenFrameTests {
    static let zh = Localizer(language: .zhHans)
    static let en = Localizer(language: .en)

    @Test func conversationList() throws {
        var s = Fixture.state(width: 100, height: 24)
        s.listIndex = 1
        try Golden.check("list", s, Self.zh)
    }

    @Test func conversationListInEnglish() throws {
        try Golden.check("list-en", Fixture.state(width: 100, height: 24), Self.en)
    }

    @Test func anEmptyListExplainsWhereChatsComeFrom() throws {
        var s = Fixture.state(width: 90, height: 20)
        s.list = ListState()
        try Golden.check("list-empty", s, Self.zh)
    }

    @Test func chatWithEveryBubbleKind() throws {
        var s = Fixture.chatState(width: 120, height: 48)
        s.focus = .messages
        s.selectedId = "m-text-cjk"
        try Golden.check("chat-bubbles", s, Self.zh)
    }

    /// v3: reactions under the bubbles (mine highlighted), an edited
    /// message, and the input bar while one is being edited.
    @Test func reactionsAndAnEdit() throws {
        var s = Fixture.state(width: 100, height: 20)
        s.myImUid = "me"
        var question = Fixture.message("r-q", .text("周六去爬山吗？"), type: .text, me: false, minutesAgo: 30)
        var r = Reactions()
        r.set("👍", by: "alice", on: true)
        r.set("👍", by: "me", on: true)
        r.set("😂", by: "alice", on: true)
        question.reactions = r
        var answer = Fixture.message("r-a", .text("去！八点山脚下见"), type: .text, me: true, minutesAgo: 20)
        answer.editedAt = Fixture.now - 10 * 60_000
        var mine = Reactions()
        mine.set("❤️", by: "alice", on: true)
        answer.reactions = mine
        var plain = Fixture.message("r-b", .text("好的"), type: .text, me: false, minutesAgo: 5)
        (question.seq, answer.seq, plain.seq) = (1, 2, 3)
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [plain, answer, question], isLoading: false,
                           hasMoreHistory: false, newMessageBannerCount: 0, cachedKeys: [], me: "me")
        s.focus = .messages
        s.selectedId = "r-q"
        try Golden.check("chat-reactions", s, Self.zh)
        // `e` on my message: its words in the bar, what was typed kept aside.
        s.input = InputLine(text: "还没写完的草稿")
        s.selectedId = "r-a"
        _ = Update.handle(.char("e"), &s, Self.zh)
        #expect(s.input.text == "去！八点山脚下见" && s.editing?.stashed.text == "还没写完的草稿")
        try Golden.check("chat-editing", s, Self.zh)
        // `e` again (from the message pane, on the same message): the draft set aside stays the draft.
        s.focus = .messages
        _ = Update.handle(.char("e"), &s, Self.zh)
        #expect(s.editing?.stashed.text == "还没写完的草稿")
        _ = Update.handle(.escape, &s, Self.zh)
        #expect(s.input.text == "还没写完的草稿" && s.editing == nil)
    }

    /// v3: reply bubbles (a quoted text, a quoted picture, a quote of a
    /// revoked message) and the note above the input while replying.
    @Test func replies() throws {
        var s = Fixture.state(width: 100, height: 20)
        s.myImUid = "me"
        var asked = Fixture.message("q-1", .text("周六几点出发？\n还要带什么"), type: .text, me: false, minutesAgo: 30)
        asked.seq = 1
        func reply(_ id: String, _ text: String, _ q: QuotePayload.Quoted, me: Bool, _ ago: Int) -> ChatMessage {
            var m = Fixture.message(id, .quote(QuotePayload(text: text, quote: q)), type: .quote, me: me, minutesAgo: ago)
            m.seq = 2
            return m
        }
        let messages = [
            reply("q-4", "这条引用的已经撤回了", .init(clientMsgID: "gone", seq: 1, sendID: "alice", revoked: true), me: false, 5),
            reply("q-3", "这张图真好看", .init(clientMsgID: "pic", seq: 1, sendID: "alice", contentType: 110, type: "image"), me: true, 10),
            reply("q-2", "八点，带水", .init(clientMsgID: "q-1", seq: 1, sendID: "alice", contentType: 101, text: "周六几点出发？\n还要带什么"),
                  me: true, 20),
            asked,
        ]
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: messages, isLoading: false,
                           hasMoreHistory: false, newMessageBannerCount: 0, cachedKeys: [], me: "me")
        s.focus = .messages
        s.selectedId = "q-1"
        _ = Update.handle(.char("r"), &s, Self.zh)
        #expect(s.replying?.messageId == "q-1" && s.focus == .input)
        try Golden.check("chat-reply", s, Self.zh)
        // Enter on a reply jumps to what it quotes.
        s.focus = .messages
        s.selectedId = "q-2"
        #expect(Update.handle(.enter, &s, Self.zh).contains { if case .reveal(1, "q-1") = $0 { true } else { false } })
    }

    /// Seed 004's long-press menu: `.` lists what the selected message
    /// allows with each key; the keys work in it, and Enter runs the highlighted one.
    @Test func messageMenu() throws {
        var s = Fixture.state(width: 100, height: 24)
        s.myImUid = "me"
        var mine = Fixture.message("m-mine", .text("八点见"), type: .text, me: true, minutesAgo: 3)
        var picture = Fixture.message("m-pic", .image(ImagePayload(objectKey: "k", w: 10, h: 10)), type: .image, me: false, minutesAgo: 5)
        (mine.seq, picture.seq) = (2, 1)
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [mine, picture], isLoading: false,
                           hasMoreHistory: false, newMessageBannerCount: 0, cachedKeys: [], me: "me")
        s.focus = .messages
        s.selectedId = "m-mine"
        _ = Update.handle(.char("."), &s, Self.zh)
        try Golden.check("chat-menu", s, Self.zh)
        guard case .actions(let menu) = s.mode else { Issue.record("no menu"); return }
        #expect(menu.items.map(\.key) == ["r", "R", "f", "v", "s", "c", "e", "x", "1-6"], "my text: seed 004's order, no view, no open")
        // An item's key runs it: `e` starts editing.
        _ = Update.handle(.char("e"), &s, Self.zh)
        #expect(s.mode == .normal && s.editing?.messageId == "m-mine")
        _ = Update.handle(.escape, &s, Self.zh)
        // Someone's picture: Enter views it first; `2` reacts ❤️ from the menu.
        s.focus = .messages
        s.selectedId = "m-pic"
        _ = Update.handle(.char("."), &s, Self.zh)
        guard case .actions(let pictureMenu) = s.mode else { Issue.record("no menu"); return }
        #expect(pictureMenu.items.prefix(2).map(\.key) == ["Enter", "o"] && !pictureMenu.items.contains { $0.key == "e" || $0.key == "R" })
        let reacted = Update.handle(.char("2"), &s, Self.zh)
        #expect(reacted.contains { if case .react("m-pic", "❤️", true) = $0 { true } else { false } })
        _ = Update.handle(.char("."), &s, Self.zh)
        let viewed = Update.handle(.enter, &s, Self.zh)
        #expect(viewed.contains { if case .showPicture = $0 { true } else { false } })
    }

    /// v3: `/` in the list: conversations by name, then messages of every
    /// conversation with their chat, time and the match highlighted.
    @Test func searchEverywhere() throws {
        var s = Fixture.state(width: 100, height: 16)
        s.now = Date(timeIntervalSince1970: Double(Fixture.now) / 1000)
        s.utcOffsetSeconds = 8 * 3600
        s.mode = .listSearch("Alice")
        s.listHits = [
            .init(conversationId: "c2", conversationName: "Bob 鲍勃", clientMsgId: "h1", seq: 3, sendTime: Fixture.now - 3_600_000,
                  text: "我问了 Alice，她说周六早上八点最好，别迟到"),
            .init(conversationId: "c3", conversationName: "周末爬山群", clientMsgId: "h2", seq: 9, sendTime: Fixture.now - 86_400_000,
                  text: "很长很长很长很长很长很长很长很长很长很长很长很长很长的铺垫之后才提到 alice 的名字"),
        ]
        s.listIndex = 1
        try Golden.check("list-search-everywhere", s, Self.zh)
    }

    /// v3: a merged forward's bubble (title, first three lines, how many in
    /// all), and messages marked for a forward.
    @Test func mergedForwardAndMarkedMessages() throws {
        var s = Fixture.state(width: 100, height: 24)
        s.myImUid = "me"
        func item(_ n: Int, _ who: String, _ type: Int, _ content: String) -> MergedPayload.Item {
            .init(conversationId: "c9", clientMsgID: "i\(n)", sendID: who == "Alice" ? "alice" : "bob", senderName: who,
                  contentType: type, content: content, sendTime: Fixture.now - n * 60_000)
        }
        let record = MergedPayload(title: "Alice 和 Bob 的聊天记录", items: [
            item(1, "Alice", 101, "周六去哪？"), item(2, "Bob", 101, "香山\n东门"),
            item(3, "Alice", 110, #"{"type":"image","objectKey":"k"}"#), item(4, "Bob", 101, "好"),
        ])
        var merged = Fixture.message("g-merged", .merged(record), type: .merged, me: false, minutesAgo: 10)
        var a = Fixture.message("g-a", .text("第一条"), type: .text, me: true, minutesAgo: 5)
        var b = Fixture.message("g-b", .text("第二条"), type: .text, me: false, minutesAgo: 4)
        (merged.seq, a.seq, b.seq) = (1, 2, 3)
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [b, a, merged], isLoading: false,
                           hasMoreHistory: false, newMessageBannerCount: 0, cachedKeys: [], me: "me")
        s.focus = .messages
        s.selectedId = "g-b"
        s.marked = ["g-a", "g-b"]
        try Golden.check("chat-merged-marked", s, Self.zh)
        #expect(MessageMenu.forwardable(s) == ["g-a", "g-b"], "in the order they were sent")
        s.selectedId = "g-merged"
        s.marked = nil
        _ = Update.handle(.enter, &s, Self.zh)
        guard case .record(let shown, 0) = s.mode else { Issue.record("no record"); return }
        #expect(shown.items.count == 4)
        try Golden.check("chat-merged-record", s, Self.zh)
    }

    /// v3: the favourites view from the list, newest first.
    @Test func favourites() throws {
        var s = Fixture.state(width: 100, height: 20)
        s.now = Date(timeIntervalSince1970: Double(Fixture.now) / 1000)
        s.utcOffsetSeconds = 8 * 3600
        func kept(_ id: Int, _ name: String, _ type: Int, _ content: String, daysAgo: Int) -> Favorite {
            Favorite(favoriteId: id, conversationId: "c\(id)", conversationName: name,
                     message: WireMessage(serverMsgID: "s\(id)", clientMsgID: "m\(id)", conversationId: "c\(id)", seq: id,
                                          sendID: "alice", recvID: "me", contentType: type, content: content,
                                          sendTime: Fixture.now - daysAgo * 86_400_000),
                     createdAt: Fixture.now - daysAgo * 86_400_000)
        }
        s.mode = .favorites(Pick([
            kept(3, "周末爬山群", 101, "集合地点：香山东门\n带好水", daysAgo: 0),
            kept(2, "Alice 爱丽丝", 110, #"{"type":"image","objectKey":"k"}"#, daysAgo: 1),
            kept(1, "Bob 鲍勃", 101, "\u{1B}[31m会议纪要\u{7}", daysAgo: 40),
        ], index: 1))
        try Golden.check("favorites", s, Self.zh)
        // Enter: the favourite's page; Esc: back to the list where it was.
        guard case .favorites(let list) = s.mode else { return }
        s.mode = .favorites(Pick(list.items, index: 0))
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        try Golden.check("favorite-page", s, Self.zh)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh)
                == [.openMessage(conversationId: "c3", name: "周末爬山群", seq: 3, messageId: "m3")])
        s.mode = .favorite(FavoritePage(list: Pick(list.items, index: 0)))
        _ = Update.apply(.key(.escape), to: &s, Self.zh)
        #expect(s.mode == .favorites(Pick(list.items, index: 0)))
    }

    @Test func chatWhileTypingWithANewMessageBanner() throws {
        var s = Fixture.chatState(width: 100, height: 24)
        s.focus = .input
        s.input = InputLine(text: "第一行\n第二行 with emoji 🎉")
        s.chat?.newMessageBannerCount = 3
        s.scroll = 4
        try Golden.check("chat-typing", s, Self.zh)
    }

    @Test func narrowScreenShowsOnePane() throws {
        var s = Fixture.chatState(width: 60, height: 20)
        s.narrowShowsMessages = true
        s.focus = .input
        try Golden.check("narrow-chat", s, Self.zh)
        s.narrowShowsMessages = false
        s.focus = .list
        try Golden.check("narrow-list", s, Self.zh)
    }

    @Test func tooSmall() throws {
        try Golden.check("too-small", Fixture.state(width: 30, height: 8), Self.zh)
    }

    @Test func prompts() throws {
        var s = Fixture.state(width: 100, height: 24)
        s.mode = .confirm(.deleteConversation(id: "c2", name: "Bob 鲍勃"))
        try Golden.check("prompt-delete", s, Self.zh)
        s = Fixture.chatState(width: 100, height: 24)
        s.focus = .messages
        s.mode = .recording(file: URL(fileURLWithPath: "/nonexistent.wav"), since: s.now.addingTimeInterval(-65))
        try Golden.check("prompt-recording", s, Self.zh)
    }

    @Test func help() throws {
        var s = Fixture.state(width: 120, height: 40)
        s.mode = .help
        try Golden.check("help-wide", s, Self.zh)
        s.size = AppState.Size(width: 70, height: 60)
        try Golden.check("help-narrow", s, Self.zh)
    }

    @Test func overlays() throws {
        var s = Fixture.chatState(width: 100, height: 24)
        s.mode = .messageSearch(MessageSearch(query: "周末", hits: [
            AppState.SearchHit(clientMsgId: "h1", seq: 3, sendTime: Fixture.now - 3_600_000, isMine: false, text: "周末去爬山吗"),
            AppState.SearchHit(clientMsgId: "h2", seq: 5, sendTime: Fixture.now - 60_000, isMine: true, text: "周末见 👋"),
        ], index: 1))
        try Golden.check("overlay-search", s, Self.zh)
        s.mode = .newChat(NewChatDialog(query: "ali", found: [UserBasicInfo(uid: 7, username: "Alice 爱丽丝", account: "alice")]))
        try Golden.check("overlay-new-chat", s, Self.zh)
        s.mode = .signals(SignalsView(tab: .inbox, inbox: [SignalInboxItem(
            receiveId: "r1", signalId: 1, signalContent: "今晚有人看电影吗", replyContent: "我！",
            from: UserBasicInfo(uid: 8, username: "Carol 卡罗尔", account: "carol"), isImOpened: false)]))
        try Golden.check("overlay-signals", s, Self.zh)
        s.mode = .settings(member: 0)
        try Golden.check("overlay-settings", s, Self.zh)
    }

    @Test func fullScreenPictureInColourAndWithout() throws {
        var s = Fixture.chatState(width: 60, height: 16)
        s.mode = .picture(Fixture.imageMessage, index: 0, Fixture.picture(width: 24, height: 16))
        try Golden.check("picture", s, Self.zh)
        try Golden.check("picture-no-color", s, Self.zh, RenderOptions(monochrome: true))
    }
}

/// Fixed states: a list with pinned, online, unread, draft and CJK/emoji
/// rows, and a chat holding one bubble of every kind.
enum Fixture {
    /// 2026-11-25 10:00 in UTC+8, as milliseconds.
    static let now = 1_795_572_000_000
    static let offset = 8 * 3600

    static func state(width: Int, height: Int) -> AppState {
        var s = AppState()
        s.size = AppState.Size(width: width, height: height)
        s.now = Date(timeIntervalSince1970: Double(now) / 1000)
        s.utcOffsetSeconds = offset
        s.connection = .online
        s.myName = "我"
        s.list = ListState(conversations: conversations)
        return s
    }

    static let conversations: [Conversation] = [
        Conversation(id: "c1", targetUid: 7, nickname: "Alice 爱丽丝", isOnline: true, isPinned: true,
                     lastMessagePreview: "周六早上八点，山脚下见 ⛰️", lastMessageTime: now - 5 * 60_000, pinnedAt: 1),
        Conversation(id: "c2", targetUid: 8, nickname: "Bob 鲍勃", unreadCount: 3,
                     lastMessagePreview: "[图片]", lastMessageTime: now - 26 * 3_600_000),
        Conversation(id: "c3", targetUid: 9, nickname: "一个名字特别特别特别长的群友，长到放不下", draftText: "还没写完的话\n第二行",
                     lastMessagePreview: "好的", lastMessageTime: now - 5 * 86_400_000),
        Conversation(id: "c4", targetUid: 10, nickname: "Dave 🐶", unreadCount: 120,
                     lastMessagePreview: "消息很多很多很多很多很多很多很多很多很多很多很多很多很多很多", lastMessageTime: now - 40 * 86_400_000),
    ]

    static func message(_ id: String, _ content: MessageContent, type: ChatMessageType, me: Bool, minutesAgo: Int) -> ChatMessage {
        var m = ChatMessage(id: id, senderId: me ? "me" : "alice", receiverId: me ? "alice" : "me", conversationId: "c1",
                            type: type, content: content, createTime: now - minutesAgo * 60_000, isRead: true, isMe: me)
        IMMessageMapper.applyMediaFields(&m)
        return m
    }

    static let imageMessage = message("m-image", .image(ImagePayload(objectKey: "k-img", w: 96, h: 64)), type: .image, me: false, minutesAgo: 50)

    /// Newest first, with a time marker, as the view model publishes them.
    static var messages: [ChatMessage] {
        var pending = message("m-image-pending", .image(ImagePayload(objectKey: "k-pending", w: 40, h: 30)), type: .image, me: true,
                              minutesAgo: 2)
        pending.status = .sending
        pending.uploadProgress = 0.4
        var failed = message("m-failed", .text("没发出去的消息"), type: .text, me: true, minutesAgo: 1)
        failed.status = .failed
        var sending = message("m-sending", .text("正在发送"), type: .text, me: true, minutesAgo: 1)
        sending.status = .sending
        var revoked = message("m-revoked", .text("撤回的内容"), type: .text, me: false, minutesAgo: 3)
        revoked.isRecalled = true
        var viewed = message("m-flash-viewed", .flashImage(FlashImagePayload(objectKey: "k-f2")), type: .flashImage, me: true,
                             minutesAgo: 4)
        viewed.isDestroyed = true
        let oldest: [ChatMessage] = [
            message("m-text-cjk", .text("你好！这是一段很长的中文消息，用来看换行是否按显示宽度计算，emoji 👍🏽 也算两格。第二句也在这里。"),
                    type: .text, me: false, minutesAgo: 60),
            imageMessage,
            message("m-multi", .multiImage(MultiImagePayload(multiObjectKeys: ["a", "b", "c"])), type: .multiImage, me: false,
                    minutesAgo: 45),
            message("m-flash", .flashImage(FlashImagePayload(objectKey: "k-f1")), type: .flashImage, me: false, minutesAgo: 40),
            message("m-voice", .audio(AudioPayload(objectKey: "k-v", durationSec: 7)), type: .voice, me: false, minutesAgo: 30),
            message("m-file", .file(FilePayload(objectKey: "k-file", name: "会议纪要 final.pdf", size: 1_234_567, mime: "application/pdf")),
                    type: .file, me: false, minutesAgo: 20),
            message("m-quote", .signalQuote(SignalQuotePayload(signalId: 1, replyContent: "我也想去！", signalContent: "周末有人爬山吗？")),
                    type: .signalQuote, me: true, minutesAgo: 10),
            message("m-unknown", .unknown(UnknownPayload(contentType: 999, raw: "{}", msgDesc: "[投票] 新版本发布")), type: .unknown,
                    me: false, minutesAgo: 6),
            viewed, revoked, pending, sending, failed,
        ]
        var withMarker = oldest
        withMarker.insert(ChatMessage(id: "time_1", senderId: "", receiverId: "", conversationId: "c1", type: .time,
                                      content: .timeMarker("11-25 09:00"), createTime: now - 60 * 60_000, isRead: true, isMe: false),
                          at: 0)
        return withMarker.reversed()
    }

    static func chatState(width: Int, height: Int) -> AppState {
        var s = state(width: width, height: height)
        s.chat = ChatState(conversation: conversations[0], messages: messages, isLoading: false, hasMoreHistory: true,
                                       newMessageBannerCount: 0, cachedKeys: ["k-img"], me: "")
        s.thumbnails["k-img"] = .ready(picture(width: 16, height: 11))
        s.playingId = "m-voice"
        return s
    }

    /// A gradient picture (no decoder involved).
    static func picture(width: Int, height: Int) -> RGBImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { pixels += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), 128] }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}

enum Golden {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// The frame as text: the cells' text in a box, then their styles.
    static func describe(_ g: Grid) -> String {
        var out = "+" + String(repeating: "-", count: g.width) + "+\n"
        for y in 0..<g.height {
            // Every cell, blanks included; a wide character's second cell is
            // its continuation, so a monospace editor keeps the columns.
            var row = ""
            for x in 0..<g.width where !g[x, y].isContinuation { row += g[x, y].text }
            out += "|" + row + "|\n"
        }
        out += "+" + String(repeating: "-", count: g.width) + "+\n\nstyles (one letter per cell; . is the default style):\n"
        var letters: [Style: Character] = [Style(): "."]
        var legend: [(Character, Style)] = []
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for y in 0..<g.height {
            var row = ""
            for x in 0..<g.width {
                let style = g[x, y].style
                if letters[style] == nil {
                    let letter = legend.count < alphabet.count ? alphabet[legend.count] : "?"
                    letters[style] = letter
                    legend.append((letter, style))
                }
                row.append(letters[style]!)
            }
            let number = String(y)
            out += String(repeating: " ", count: max(0, 3 - number.count)) + number + " " + row + "\n"
        }
        out += "\nlegend:\n"
        for (letter, style) in legend { out += "  \(letter) = \(name(style))\n" }
        return out
    }

    static func name(_ s: Style) -> String {
        var parts: [String] = []
        if s.fg != .default { parts.append("fg \(s.fg)") }
        if s.bg != .default { parts.append("bg \(s.bg)") }
        if s.bold { parts.append("bold") }
        if s.reverse { parts.append("reverse") }
        if s.underline { parts.append("underline") }
        if s.dim { parts.append("dim") }
        return parts.isEmpty ? "default" : parts.joined(separator: ", ")
    }

    /// Compares `text` (escape sequences made visible: ESC as `⎋`) with
    /// `Golden/<name>.txt`; with `TONGBAN_UPDATE_GOLDEN=1` writes it instead.
    static func checkText(_ name: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let actual = text.replacingOccurrences(of: "\u{1B}", with: "⎋")
        let file = folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["TONGBAN_UPDATE_GOLDEN"] == "1" {
            try Data(actual.utf8).write(to: file)
            return
        }
        let expected = try? String(contentsOf: file, encoding: .utf8)
        #expect(actual == expected, "\(name): differs from Golden/\(name).txt; run `make golden` and review `git diff`",
                sourceLocation: sourceLocation)
    }

    /// Compares the frame with `Golden/<name>.txt`; with
    /// `TONGBAN_UPDATE_GOLDEN=1` writes it instead.
    static func check(_ name: String, _ s: AppState, _ L: Localizer, _ options: RenderOptions = RenderOptions(),
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let actual = describe(Screen.render(s, L, options))
        let file = folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["TONGBAN_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("no golden frame \(file.path): run `make golden` and review it", sourceLocation: sourceLocation)
            return
        }
        if actual != expected {
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let line = zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, e.count)
            let got = line < a.count ? String(a[line]) : "(end)", want = line < e.count ? String(e[line]) : "(end)"
            let message: String = "\(name): the frame differs from Golden/\(name).txt at line \(line + 1)\n  got:  \(got)\n  want: \(want)\n"
                + "If the change is intended, run `make golden` and review `git diff`."
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
    }
}
