import ChatCore
import ChatSync
import ChatViewModels
import Foundation
import Testing
import TerminalUI
@testable import TongbanTUI

/// Rooms (PROTOCOL.md v3 "Rooms") in the full-screen client: golden frames
/// of the list, a room's chat, the directory and the owner's page, and the
/// update's rules for pushes, gaps, reconnects and the owner's actions.
@Suite struct RoomScreenTests {
    static let zh = Localizer(language: .zhHans)

    // MARK: - Frames

    @Test func roomsHeadTheListAndTheirChatShowsWhoCameAndWent() throws {
        var s = RoomFixture.chatState(width: 100, height: 26)
        try Golden.check("room-chat", s, Self.zh)
        let g = Screen.render(s, Self.zh, RenderOptions())
        // The list: a heading, the rooms (no unread badge), then the conversations under theirs.
        let rooms = try #require(g.find("房间 · 2"))
        #expect(g.rowText(rooms.y + 1).hasPrefix(" # 周末徒步（3人在）") && g.rowText(rooms.y + 3).hasPrefix(" # 安静的房…（1人在）"),
                "how many are here, not how many unread")
        #expect(g.rowText(rooms.y + 5).hasPrefix(" 会话"), "the conversations under their own heading")
        #expect(g[3, rooms.y + 3].style.bold && g[3, rooms.y + 4].style.bold, "something was said there that I have not seen")
        #expect(!g[3, rooms.y + 1].style.bold, "the open room's news is seen")
        // The chat: name, who is here and the topic; who came and went as grey lines.
        #expect(g.find("每周六的徒步路线") != nil, "the topic is in the header")
        #expect(g.find("Bob 鲍勃 进入房间") != nil && g.find("Carol 卡罗尔 离开房间") != nil)
        #expect(g.find("Bob 鲍勃 进入房间").map { g[$0.x, $0.y].style } == Theme.dim)
        #expect(g.find("Alice 爱丽丝") != nil, "senders are named")
        // Narrow and scrolled: the heading scrolls with the rows.
        s.size = AppState.Size(width: 60, height: 12)
        s.focus = .list
        s.listIndex = 4
        let small = Screen.render(s, Self.zh, RenderOptions())
        #expect(small.find("Bob 鲍勃") != nil, "the selected row is in view")
    }

    @Test func directoryNewRoomAndTheOwnersPage() throws {
        var s = RoomFixture.chatState(width: 100, height: 26)
        s.mode = .roomDirectory(RoomDirectory(query: "徒", rooms: RoomFixture.directory, index: 1))
        try Golden.check("room-directory", s, Self.zh)
        s.mode = .newRoom(NewRoomForm(name: "读书会", unique: "books", topic: "每月一本", field: .topic))
        try Golden.check("room-new", s, Self.zh)
        s.mode = .roomPage(RoomPage(selected: 1))
        try Golden.check("room-page-owner", s, Self.zh)
        // Someone else's room: who is here and leaving, none of the owner's keys.
        s.rooms[0].info.ownerId = "tb_2"
        let g = Screen.render(s, Self.zh, RenderOptions())
        #expect(g.find("离开房间") != nil && g.find("解散房间") == nil && g.find("移出所选") == nil)
        s.mode = .confirm(.roomKick(roomId: 5, uid: 3, name: "Bob 鲍勃", ban: true))
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("将 Bob 鲍勃 移出房间并禁止再进入？") != nil)
    }

    // MARK: - Pushes, gaps, reconnects

    @Test func aPushAfterAGapFillsItAndKeepsTheMessage() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        let info = s.rooms[0].info
        #expect(s.rooms[0].lastSeq == 4)
        let next = RoomFixture.wire(5, from: "tb_2", "接着说")
        #expect(Update.apply(.sync(.room(.message(next))), to: &s, Self.zh) == [.room(.keep(next, info))])
        let far = RoomFixture.wire(9, from: "tb_3", "我回来了")
        #expect(Update.apply(.sync(.room(.message(far))), to: &s, Self.zh)
                == [.room(.fill(info, after: 5, before: 9)), .room(.keep(far, info))])
        #expect(s.rooms[0].lastSeq == 9 && s.rooms[0].preview == "我回来了")
        // A push of a room I am not in is nobody's.
        var stray = RoomFixture.wire(1, from: "tb_2", "?")
        stray.conversationId = "sr_99"
        #expect(Update.apply(.sync(.room(.message(stray))), to: &s, Self.zh).isEmpty)
        // Updates go over the kept copy; info renames the row.
        let edited = RoomFixture.wire(5, from: "tb_2", "接着说（改）")
        #expect(Update.apply(.sync(.room(.update(edited))), to: &s, Self.zh) == [.room(.keepUpdate(edited))])
        var renamed = info
        renamed.name = "周六徒步"
        renamed.presentCount = 4
        _ = Update.apply(.sync(.room(.info(renamed))), to: &s, Self.zh)
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("周六徒步（4人在）") != nil)
    }

    @Test func backOnlineEveryRoomIsEnteredAgainAndWhatWasMissedFilled() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        _ = Update.apply(.sync(.connection(.offline("down"))), to: &s, Self.zh)
        let back = Update.apply(.sync(.connection(.online)), to: &s, Self.zh)
        #expect(back == [.room(.enter(unique: "hike", again: true)), .room(.enter(unique: "quiet", again: true))],
                "the send queue waits: a message to a room not entered yet would be refused")
        // The answer starts past what I had: the gap is filled, the room keeps its place.
        let info = s.rooms[0].info
        let again = EnterRoomResponse(room: info, present: RoomFixture.present, messages: [RoomFixture.wire(12, from: "tb_2", "大家好")])
        #expect(Update.apply(.rooms(.entered(again, again: true)), to: &s, Self.zh) == [.room(.fill(info, after: 4, before: 12))])
        #expect(s.rooms.map(\.info.uniqueName) == ["hike", "quiet"] && s.rooms[0].lastSeq == 12)
        #expect(s.chat?.id == "sr_5", "the open chat stays open")
        // A room that could not be entered again goes, with the reason; then the queue goes on.
        #expect(Update.apply(.rooms(.vanished(unique: "quiet")), to: &s, Self.zh) == [.resumeSending])
        #expect(s.rooms.map(\.info.uniqueName) == ["hike"] && s.status?.contains("安静的房间") == true)
        #expect(Update.apply(.sync(.connection(.online)), to: &s, Self.zh) == [.resumeSending], "online twice enters once")
        // Any other failure to enter again takes the room off the list too, saying why.
        _ = Update.apply(.sync(.connection(.connecting)), to: &s, Self.zh)
        #expect(Update.apply(.sync(.connection(.online)), to: &s, Self.zh) == [.room(.enter(unique: "hike", again: true))])
        #expect(Update.apply(.rooms(.reenterFailed(unique: "hike", reason: Failure(APIError.cannotConnect("refused")))), to: &s, Self.zh).last == .resumeSending)
        #expect(s.rooms.isEmpty && s.chat == nil && s.status == "重新连接后没能再进入房间「周末徒步」：无法连接服务器。可以用 n 再进入")
        // No rooms: back online, the queue goes on at once.
        _ = Update.apply(.sync(.connection(.connecting)), to: &s, Self.zh)
        #expect(Update.apply(.sync(.connection(.online)), to: &s, Self.zh) == [.resumeSending])
    }

    @Test func aFilledGapNamesWhoCameAndAsksWhoIsHere() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        let gap = [RoomFixture.notice(5, ContentType.roomEntered, op: "tb_4", users: []), RoomFixture.wire(6, from: "tb_4", "我来晚了")]
        #expect(Update.apply(.rooms(.filled(conversationId: "sr_5", gap)), to: &s, Self.zh) == [.room(.refreshPresent(roomId: 5))])
        #expect(s.chat?.senderNames["tb_4"] == "Carol 卡罗尔" && s.rooms[0].present.map(\.uid) == [1, 2, 3],
                "an old stretch names people but does not say who is here now")
        _ = Update.apply(.rooms(.present(roomId: 5, [RoomFixture.present[0], UserBasicInfo(uid: 4, username: "Carol 卡罗尔")])), to: &s, Self.zh)
        #expect(s.rooms[0].present.map(\.uid) == [1, 4] && s.chat?.members.map(\.uid) == [1, 4])
        // A message older than what the row shows does not become its preview; a revoke is not news.
        _ = Update.apply(.sync(.room(.message(RoomFixture.wire(9, from: "tb_2", "最新的")))), to: &s, Self.zh)
        _ = Update.apply(.rooms(.filled(conversationId: "sr_5", [RoomFixture.wire(8, from: "tb_2", "旧的")])), to: &s, Self.zh)
        #expect(s.rooms[0].preview == "最新的")
        var revoke = RoomFixture.wire(10, from: "tb_2", #"{"clientMsgID":"csr_59"}"#)
        revoke.contentType = ContentType.revokeNotice
        s.chat = nil
        s.rooms[0].unseen = false
        _ = Update.apply(.sync(.room(.message(revoke))), to: &s, Self.zh)
        #expect(!s.rooms[0].unseen && s.rooms[0].preview == "最新的")
    }

    @Test func removedOrDroppedTheRoomGoesAndItsChatCloses() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        let kicked = RoomFixture.notice(5, ContentType.roomKicked, op: "tb_2", users: ["tb_1"])
        let effects = Update.apply(.sync(.room(.message(kicked))), to: &s, Self.zh)
        #expect(effects.contains(.room(.keep(kicked, RoomFixture.hike.info))))
        #expect(s.rooms.map(\.id) == ["sr_6"] && s.chat == nil && s.status == "你被移出了房间「周末徒步」")
        let dropped = RoomFixture.notice(3, ContentType.roomDropped, op: "tb_2", users: [], room: "sr_6")
        _ = Update.apply(.sync(.room(.message(dropped))), to: &s, Self.zh)
        #expect(s.rooms.isEmpty && s.status == "房间「安静的房间」已被房主解散")
    }

    @Test func whoIsHereFollowsTheNoticesAndCompletesMentions() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        #expect(s.rooms[0].present.map(\.uid) == [1, 2, 3])
        _ = Update.apply(.sync(.room(.message(RoomFixture.notice(5, ContentType.roomEntered, op: "tb_4", users: [])))), to: &s, Self.zh)
        _ = Update.apply(.sync(.room(.message(RoomFixture.notice(6, ContentType.roomLeft, op: "tb_3", users: [])))), to: &s, Self.zh)
        #expect(s.rooms[0].present.map(\.uid) == [1, 2, 4])
        s.focus = .input
        s.input = InputLine(text: "@ca")
        #expect(Update.mentionCandidates(s) == [.member(GroupMember(uid: 4, username: "Carol 卡罗尔", role: "member", joinedAt: 0))])
        _ = Update.handle(.tab, &s, Self.zh)
        #expect(s.input.text == "@Carol 卡罗尔 " && s.mentions == ["tb_4"])
        #expect(Update.submit(s.input.text, &s, Self.zh).first == .sendMention("@Carol 卡罗尔 ", mentioned: ["tb_4"], all: false))
        s.input = InputLine(text: "@")
        #expect(!Update.mentionCandidates(s).contains(.all), "no @all in a room")
    }

    @Test func newsInARoomNotOnScreenMakesItsRowBoldUntilOpened() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        s.rooms[1].unseen = false
        var m = RoomFixture.wire(4, from: "tb_2", "有人吗")
        m.conversationId = "sr_6"
        _ = Update.apply(.sync(.room(.message(m))), to: &s, Self.zh)
        #expect(s.rooms[1].unseen)
        var mine = RoomFixture.wire(5, from: "tb_1", "我在")
        mine.conversationId = "sr_6"
        s.rooms[1].unseen = false
        _ = Update.apply(.sync(.room(.message(mine))), to: &s, Self.zh)
        #expect(!s.rooms[1].unseen, "what I said myself is not news")
        s.rooms[1].unseen = true
        s.focus = .list
        s.listIndex = 1
        _ = Update.handle(.enter, &s, Self.zh)
        #expect(s.chat?.id == "sr_6" && !s.rooms[1].unseen)
    }

    // MARK: - Keys

    @Test func theListLeavesARoomWithYesAndNeverPinsOne() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        s.focus = .list
        s.listIndex = 0
        let hints = Screen.render(s, Self.zh, RenderOptions()).rowText(25)
        #expect(hints.contains("d 离开房间") && !hints.contains("p 置顶"), "the hints say what d does on a room")
        s.listIndex = 3
        #expect(Screen.render(s, Self.zh, RenderOptions()).rowText(25).contains("d 删除"))
        s.listIndex = 0
        _ = Update.handle(.char("p"), &s, Self.zh)
        #expect(s.status == "房间不能置顶或免打扰（离开即退出）")
        _ = Update.handle(.char("d"), &s, Self.zh)
        #expect(s.mode == .confirm(.leaveRoom(roomId: 5, name: "周末徒步")))
        #expect(Update.handle(.char("n"), &s, Self.zh).isEmpty && s.rooms.count == 2, "anything but y keeps the room")
        _ = Update.handle(.char("d"), &s, Self.zh)
        #expect(Update.handle(.char("y"), &s, Self.zh) == [.room(.leave(roomId: 5))])
        s.listIndex = 3
        let selected = s.visibleConversations[3].id
        _ = Update.apply(.rooms(.left(roomId: 5, why: .left)), to: &s, Self.zh)
        #expect(s.rooms.map(\.id) == ["sr_6"] && s.chat == nil && s.status == "已离开房间")
        #expect(s.visibleConversations[s.listIndex].id == selected, "the selection stays on its conversation")
        let made = EnterRoomResponse(room: RoomInfo(roomId: 8, name: "读书会", uniqueName: "books", ownerId: "tb_1", presentCount: 1),
                                     present: [RoomFixture.present[0]], messages: [])
        _ = Update.apply(.rooms(.entered(made, again: true)), to: &s, Self.zh)
        #expect(s.visibleConversations[s.listIndex].id == selected)
    }

    @Test func roomCommandsInTheInputBar() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        #expect(Update.submit("/leave", &s, Self.zh) == [.room(.leave(roomId: 5))])
        #expect(Update.submit("/topic 周日改走西山", &s, Self.zh) == [.room(.update(roomId: 5, name: nil, topic: "周日改走西山"))])
        #expect(Update.submit("/rename 西山行", &s, Self.zh) == [.room(.update(roomId: 5, name: "西山行", topic: nil))])
        #expect(Update.submit("/rename", &s, Self.zh).isEmpty && s.status == "/rename 新名字（1-64 个字）")
        s.rooms[0].info.ownerId = "tb_2"
        #expect(Update.submit("/topic 我来改", &s, Self.zh).isEmpty && s.status == "只有房主可以这样做")
        #expect(Update.submit("/invite bob", &s, Self.zh) == [.sendText("/invite bob"), .saveDraft(nil)], "no group commands in a room")
    }

    @Test func theNewDialogEntersFindsAndMakesRooms() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        s.mode = .newChat(NewChatDialog(query: ""))
        #expect(Update.handle(.enter, &s, Self.zh) == [.room(.directory(""))], "Enter on nothing: the directory")
        #expect(s.mode == .roomDirectory(RoomDirectory()))
        _ = Update.apply(.rooms(.directory(query: "", RoomFixture.directory)), to: &s, Self.zh)
        #expect(Update.handle(.char("山"), &s, Self.zh) == [.room(.directory("山"))], "typing searches again")
        _ = Update.apply(.rooms(.directory(query: "", [])), to: &s, Self.zh)
        #expect(s.mode == .roomDirectory(RoomDirectory(query: "山")), "an answer to an older query is dropped")
        _ = Update.apply(.rooms(.directory(query: "山", RoomFixture.directory)), to: &s, Self.zh)
        _ = Update.handle(.down, &s, Self.zh)
        #expect(Update.handle(.enter, &s, Self.zh) == [.room(.enter(unique: "hills", again: false))])
        // Typed, searched: the room rows under the people found.
        s.mode = .newChat(NewChatDialog(query: "Hills", found: [], index: 3))
        #expect(Update.handle(.enter, &s, Self.zh) == [.room(.enter(unique: "hills", again: false))])
        s.mode = .newChat(NewChatDialog(query: "hike", found: [], index: 3))
        _ = Update.handle(.enter, &s, Self.zh)
        #expect(s.chat?.id == "sr_5", "a room I am in opens")
        s.mode = .newChat(NewChatDialog(query: "读书会", found: [], index: 5))
        _ = Update.handle(.enter, &s, Self.zh)
        #expect(s.mode == .newRoom(NewRoomForm(name: "读书会")))
        for c in "Books!" { _ = Update.handle(.char(c), &s, Self.zh) }
        _ = Update.handle(.enter, &s, Self.zh)
        for c in "每月一本" { _ = Update.handle(.char(c), &s, Self.zh) }
        #expect(Update.handle(.enter, &s, Self.zh) == [.room(.create(name: "读书会", unique: "books", topic: "每月一本"))])
        // A new room opens once entered.
        let made = EnterRoomResponse(room: RoomInfo(roomId: 8, name: "读书会", uniqueName: "books", ownerId: "tb_1", presentCount: 1),
                                     present: [RoomFixture.present[0]], messages: [])
        _ = Update.apply(.rooms(.entered(made, again: false)), to: &s, Self.zh)
        #expect(s.rooms.map(\.info.uniqueName) == ["hike", "quiet", "books"] && s.chat?.id == "sr_8")
    }

    @Test func theOwnersPageRemovesBansAndLetsBack() {
        var s = RoomFixture.chatState(width: 100, height: 26)
        s.mode = .roomPage(RoomPage())
        _ = Update.handle(.char("x"), &s, Self.zh)
        #expect(s.mode == .roomPage(RoomPage()), "not myself")
        _ = Update.handle(.down, &s, Self.zh)
        _ = Update.handle(.down, &s, Self.zh)
        _ = Update.handle(.char("b"), &s, Self.zh)
        #expect(s.mode == .confirm(.roomKick(roomId: 5, uid: 3, name: "Bob 鲍勃", ban: true)))
        #expect(Update.handle(.char("y"), &s, Self.zh) == [.room(.kick(roomId: 5, uid: 3, ban: true))])
        s.mode = .roomPage(RoomPage())
        #expect(Update.handle(.char("u"), &s, Self.zh) == [.room(.loadBans(roomId: 5))])
        _ = Update.apply(.rooms(.bans(roomId: 5, [UserBasicInfo(uid: 3, username: "Bob 鲍勃")])), to: &s, Self.zh)
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("被禁止进入的人（1）") != nil)
        #expect(Update.handle(.enter, &s, Self.zh) == [.room(.unban(roomId: 5, uid: 3))])
        s.mode = .roomPage(RoomPage())
        _ = Update.handle(.char("D"), &s, Self.zh)
        #expect(Update.handle(.char("y"), &s, Self.zh) == [.room(.drop(roomId: 5))])
        // Not the owner: only leaving.
        s.rooms[0].info.ownerId = "tb_2"
        s.mode = .roomPage(RoomPage())
        #expect(Update.handle(.char("D"), &s, Self.zh).isEmpty && s.mode == .normal)
        s.mode = .roomPage(RoomPage())
        _ = Update.handle(.char("l"), &s, Self.zh)
        #expect(s.mode == .confirm(.leaveRoom(roomId: 5, name: "周末徒步")))
    }
}

enum RoomFixture {
    static let present = [
        UserBasicInfo(uid: 1, username: "我", account: "me"),
        UserBasicInfo(uid: 2, username: "Alice 爱丽丝", account: "alice"),
        UserBasicInfo(uid: 3, username: "Bob 鲍勃", account: "bob"),
    ]
    static let names = ["tb_1": "我", "tb_2": "Alice 爱丽丝", "tb_3": "Bob 鲍勃", "tb_4": "Carol 卡罗尔"]

    static func wire(_ seq: Int, from: String, _ text: String, room: String = "sr_5", minutesAgo: Int = 1) -> WireMessage {
        WireMessage(serverMsgID: "s\(room)\(seq)", clientMsgID: "c\(room)\(seq)", conversationId: room, seq: seq, sendID: from,
                    recvID: room, contentType: ContentType.text, content: text, sendTime: Fixture.now - minutesAgo * 60_000)
    }

    static func notice(_ seq: Int, _ type: Int, op: String, users: [String], room: String = "sr_5", minutesAgo: Int = 1) -> WireMessage {
        let p = GroupNoticePayload(contentType: type, opUser: op, users: users, userNames: names)
        return WireMessage(serverMsgID: "s\(room)\(seq)", clientMsgID: "c\(room)\(seq)", conversationId: room, seq: seq, sendID: op,
                           recvID: room, contentType: type, content: p.jsonText, sendTime: Fixture.now - minutesAgo * 60_000)
    }

    static let backlog = [
        notice(1, ContentType.roomEntered, op: "tb_4", users: [], minutesAgo: 30),
        notice(2, ContentType.roomEntered, op: "tb_3", users: [], minutesAgo: 20),
        wire(3, from: "tb_2", "这周六走香山，八点东门 ⛰️", minutesAgo: 12),
        notice(4, ContentType.roomLeft, op: "tb_4", users: [], minutesAgo: 10),
    ]

    static var hike: RoomEntry {
        RoomEntry(EnterRoomResponse(room: RoomInfo(roomId: 5, name: "周末徒步", uniqueName: "hike", topic: "每周六的徒步路线，欢迎新人",
                                                   ownerId: "tb_1", presentCount: 3),
                                    present: present, messages: backlog), me: "tb_1", RoomScreenTests.zh)
    }

    static var quiet: RoomEntry {
        var r = RoomEntry(EnterRoomResponse(room: RoomInfo(roomId: 6, name: "安静的房间", uniqueName: "quiet", ownerId: "tb_9", presentCount: 1),
                                            present: [present[0]], messages: [wire(3, from: "tb_9", "有人在吗？", room: "sr_6", minutesAgo: 3)]),
                          me: "tb_1", RoomScreenTests.zh)
        r.unseen = true
        return r
    }

    static let directory = [
        RoomInfo(roomId: 5, name: "周末徒步", uniqueName: "hike", topic: "每周六的徒步路线，欢迎新人", ownerId: "tb_1", presentCount: 3),
        RoomInfo(roomId: 7, name: "西山 Hills 🏔", uniqueName: "hills", ownerId: "tb_2", presentCount: 12),
    ]

    /// In two rooms, the first one's chat open, its backlog on screen.
    static func chatState(width: Int, height: Int) -> AppState {
        var s = Fixture.state(width: width, height: height)
        s.myImUid = "tb_1"
        s.rooms = [hike, quiet]
        let chat = backlog.reversed().map { IMMessageMapper.map($0, currentUID: "tb_1") }
        s.chat = ChatState(conversation: hike.conversation, messages: ChatState.insertTimeMarkers(into: chat, utcOffsetSeconds: Fixture.offset),
                           hasMoreHistory: false, me: "tb_1")
        Update.refreshRoomChat(&s)
        s.focus = .input
        return s
    }
}
