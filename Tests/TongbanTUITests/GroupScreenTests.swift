import ChatCore
import ChatViewModels
import ChatStore
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// Group chats on screen (golden frames) and their keys (the update alone,
/// no server): mute, leave, make and join, `@` completion, slash commands.
@Suite struct GroupScreenTests {
    static let zh = Localizer(language: .zhHans)

    @Test func listShowsMemberCountsMentionsMuteAndLeftGroups() throws {
        try Golden.check("group-list", GroupFixture.state(width: 100, height: 16), Self.zh)
    }

    @Test func chatNamesSendersAndCentresNotices() throws {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.focus = .input
        s.input = InputLine(text: "@ca")
        try Golden.check("group-chat", s, Self.zh)
    }

    @Test func settingsNewGroupAndLeavePrompts() throws {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.mode = .settings(member: 0)
        try Golden.check("group-settings", s, Self.zh)
        s.chat?.group?.ownerId = "tb_1"
        s.mode = .settings(member: 2)
        try Golden.check("group-settings-owner", s, Self.zh)
        s.mode = .newChat(NewChatDialog(query: "周末群", found: [], index: 1))
        try Golden.check("group-new", s, Self.zh)
        s.mode = .confirm(.leaveGroup(id: "sg_7", name: "周末爬山群"))
        try Golden.check("group-leave-prompt", s, Self.zh)
    }

    @Test func aMemberColourIsStableAndDiffersBetweenMembers() {
        #expect(Theme.sender("tb_2") == Theme.sender("tb_2"))
        let colours = Set((1...12).map { Theme.sender("tb_\($0)").fg })
        #expect(colours.count >= 6, "twelve members get several colours, not one")
    }

    @Test func mKeyMutesAndUnmutes() {
        var s = GroupFixture.state(width: 100, height: 16)
        s.focus = .list
        s.listIndex = 0
        #expect(key(.char("m"), &s) == [.list(.ask(id: "sg_7", .mute(true))), .setTitle("(3) Tongban")])
        #expect(s.list.conversations.first { $0.id == "sg_7" }?.isMuted == true, "shown muted before the server answers")
        s.listIndex = 1
        #expect(key(.char("m"), &s) == [.list(.ask(id: "sg_8", .mute(false))), .setTitle("(233) Tongban")],
                "a muted one is unmuted; its unread counts again, without a ring")
        _ = Update.apply(.list(.settled(id: "sg_7")), to: &s, Self.zh)
        #expect(s.list.conversations.first { $0.id == "sg_7" }?.isMuted == false,
                "once answered, the list is the store's (here, the server refused)")
    }

    @Test func deletingAGroupAsksWhetherToLeaveToo() throws {
        var s = GroupFixture.state(width: 100, height: 16)
        s.focus = .list
        #expect(key(.char("d"), &s).isEmpty)
        #expect(s.mode == .confirm(.leaveGroup(id: "sg_7", name: "周末爬山群")))
        #expect(key(.char("y"), &s) == [.leaveGroup(id: "sg_7", delete: true)])
        _ = key(.char("d"), &s)
        #expect(key(.char("k"), &s) == [.list(.ask(id: "sg_7", .delete)), .setTitle("(3) Tongban")], "k deletes and stays a member")
        #expect(!s.list.conversations.contains { $0.id == "sg_7" }, "gone from the list at once")
        _ = key(.char("d"), &s)
        #expect(key(.char("x"), &s).isEmpty && s.mode == .normal, "any other key cancels")
        s.listIndex = try #require(s.list.conversations.firstIndex { $0.id == "sg_9" })
        _ = key(.char("d"), &s)
        #expect(s.mode == .confirm(.deleteConversation(id: "sg_9", name: "已经退出的群")), "a group I left is only deleted")
    }

    @Test func newChatOffersMakingAndJoiningAGroupAfterASearch() throws {
        var s = GroupFixture.state(width: 100, height: 16)
        s.focus = .list
        _ = key(.char("n"), &s)
        for c in "hike_2026" { _ = key(.char(c), &s) }
        #expect(key(.enter, &s) == [.searchUsers("hike_2026")], "Enter searches first")
        _ = Update.apply(.usersFound(query: "hike_2026", []), to: &s, Self.zh)
        _ = key(.down, &s)
        #expect(key(.enter, &s) == [.joinGroup(unique: "hike_2026")])

        _ = key(.char("n"), &s)
        for c in "周末群" { _ = key(.char(c), &s) }
        _ = key(.enter, &s)
        _ = Update.apply(.usersFound(query: "周末群", []), to: &s, Self.zh)
        _ = key(.enter, &s)
        #expect(s.mode == .newGroup(AppState.NewGroupForm(name: "周末群")))
        for c in "Week-End_1" { _ = key(.char(c), &s) }
        #expect(form(s)?.unique == "weekend_1", "lower case; characters a unique name cannot hold are left out")
        _ = key(.enter, &s)
        #expect(form(s)?.field == .members, "Enter goes on to the members")

        // Members by search: Enter searches, Enter adds the one selected.
        for c in "ca" { _ = key(.char(c), &s) }
        #expect(key(.enter, &s) == [.searchUsers("ca")])
        let carol = UserBasicInfo(uid: 4, username: "Carol 卡罗尔", account: "carol")
        let cathy = UserBasicInfo(uid: 5, username: "Cathy", account: "cathy")
        _ = Update.apply(.usersFound(query: "ca", [carol, cathy]), to: &s, Self.zh)
        _ = key(.down, &s)
        #expect(key(.enter, &s).isEmpty)
        #expect(form(s)?.members == [cathy] && form(s)?.query == "", "the search clears for the next name")
        for c in "ca" { _ = key(.char(c), &s) }
        _ = key(.enter, &s)
        _ = Update.apply(.usersFound(query: "ca", [carol, cathy]), to: &s, Self.zh)
        try Golden.check("group-new-members", s, Self.zh)
        _ = key(.enter, &s)
        #expect(form(s)?.members == [cathy, carol])
        _ = Update.apply(.usersFound(query: "late", [carol]), to: &s, Self.zh)
        #expect(form(s)?.found == nil, "a search answered after its query changed is dropped")
        _ = key(.backspace, &s)
        #expect(form(s)?.members == [cathy], "Backspace on an empty search drops the last one added")
        #expect(key(.enter, &s) == [.createGroup(name: "周末群", unique: "weekend_1", members: [5])],
                "Enter on an empty search creates the group with its members")
        #expect(s.mode == .normal)
    }

    private func form(_ s: AppState) -> AppState.NewGroupForm? {
        if case .newGroup(let f) = s.mode { return f }
        return nil
    }

    @Test func theOwnersMenuInSettings() {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.mode = .settings(member: 0)
        #expect(key(.char("r"), &s).isEmpty && s.mode == .normal && s.input.text.isEmpty,
                "r is the owner's; for a member it only closes the settings")
        s.mode = .settings(member: 0)
        _ = key(.char("i"), &s)
        #expect(s.input.text == "/invite " && s.focus == .input, "anyone in the group may invite")
        s.chat?.group?.ownerId = "tb_1"
        s.input = InputLine(text: "还没发的草稿")
        s.mode = .settings(member: 0)
        _ = key(.char("r"), &s)
        #expect(s.input.text == "还没发的草稿" && s.status == "输入框里还有未发送的文字：先发送或清空", "a draft is not thrown away")
        s.input = InputLine()
        s.mode = .settings(member: 0)
        _ = key(.char("r"), &s)
        #expect(s.input.text == "/rename 周末爬山群" && s.focus == .input, "r starts a rename in the input bar")
        s.input = InputLine()
        s.chat?.group?.notice = "周六早上八点\n香山东门集合"
        s.mode = .settings(member: 0)
        _ = key(.char("n"), &s)
        #expect(s.input.text == "/notice 周六早上八点\n香山东门集合", "the notice keeps its lines")
        s.mode = .settings(member: 0)
        #expect(key(.char("j"), &s) == [.group(.joinable(false))], "j closes an open group")
        s.mode = .settings(member: 0)
        _ = key(.down, &s)
        _ = key(.down, &s)
        #expect(s.mode == .settings(member: 2))
        _ = key(.char("x"), &s)
        #expect(s.mode == .confirm(.kick(uid: GroupFixture.members[2].uid, name: GroupFixture.members[2].username)))
        #expect(key(.char("y"), &s) == [.group(.kickMember(uid: GroupFixture.members[2].uid))])
        s.mode = .settings(member: 0)
        _ = key(.char("x"), &s)
        #expect(s.mode == .settings(member: 0), "the owner cannot remove themself")
    }

    /// Tab after a media command asks the runner to list the directory
    /// (update does no I/O); its answer completes the input unless the user
    /// typed on meanwhile.
    @Test func tabCompletionIsAnEffectAndItsAnswerAnIntent() {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.focus = .input
        for c in "/image ph" { _ = key(.char(c), &s) }
        #expect(key(.tab, &s) == [.completePath("/image ph")])
        #expect(s.input.text == "/image ph", "nothing changes until the listing answers")
        let answer = PathCompletion.Result(text: "/image photos/", choices: [])
        _ = Update.apply(.pathCompleted(for: "/image ph", answer), to: &s, Self.zh)
        #expect(s.input.text == "/image photos/")
        _ = key(.char("x"), &s)
        _ = Update.apply(.pathCompleted(for: "/image photos/", PathCompletion.Result(text: "/image photos/dog.png ", choices: [])),
                         to: &s, Self.zh)
        #expect(s.input.text == "/image photos/x", "a late answer does not overwrite what was typed")
    }

    @Test func atCompletesAMemberAndTheSendCarriesTheMention() {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.focus = .input
        for c in "周六 @ca" { _ = key(.char(c), &s) }
        #expect(Update.mentionCandidates(s) == [.member(GroupFixture.members[3])])
        #expect(key(.tab, &s).isEmpty)
        #expect(s.input.text == "周六 @Carol 卡罗尔 ")
        #expect(s.mentions == ["tb_4"])
        for c in "见" { _ = key(.char(c), &s) }
        let effects = key(.enter, &s)
        #expect(effects.first == .sendMention("周六 @Carol 卡罗尔 见", mentioned: ["tb_4"], all: false))
        #expect(s.mentions.isEmpty, "the next message starts with no mentions")
    }

    @Test func onlyTheOwnerIsOfferedAllAndAnEmailIsNotAMention() {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.focus = .input
        s.input = InputLine(text: "@")
        #expect(!Update.mentionCandidates(s).contains(.all), "I am not the owner")
        #expect(!Update.mentionCandidates(s).contains(.member(GroupFixture.members[0])), "nor do I mention myself")
        s.chat?.group?.ownerId = "tb_1"
        #expect(Update.mentionCandidates(s).first == .all)
        s.input = InputLine(text: "mail me at a@b")
        #expect(Update.mentionQuery(s) == nil)
        s.chat?.conversation.isMember = false
        s.input = InputLine(text: "@")
        #expect(Update.mentionCandidates(s).isEmpty, "no mentions in a group I left")
    }

    @Test func slashCommandsChangeTheGroup() {
        var s = GroupFixture.chatState(width: 100, height: 26)
        func submit(_ text: String) -> [Effect] { Update.submit(text, &s, Localizer(language: .zhHans)) }
        #expect(submit("/invite alice bob").first == .group(.invite(["alice", "bob"])))
        #expect(submit("/kick carol").first == .group(.kick("carol")))
        #expect(submit("/rename 新名字 🏔").first == .group(.rename("新名字 🏔")))
        #expect(submit("/notice 带伞").first == .group(.notice("带伞")))
        #expect(submit("/joinable off").first == .group(.joinable(false)))
        #expect(submit("/leave").first == .group(.leave))
        #expect(submit("/joinable maybe").isEmpty && s.status == "/joinable on|off")
        #expect(submit("/rename").isEmpty && s.status == "/rename NAME")
        s.chat = GroupFixture.singleChat
        #expect(submit("/leave") == [.sendText("/leave"), .saveDraft(nil)], "in a single chat it is text")
    }

    @Test func newMessagesNotifyUnlessMutedOrOnScreen() {
        var s = GroupFixture.chatState(width: 100, height: 26)
        s.myImUid = GroupFixture.me
        func wire(_ conv: String, _ type: Int, _ content: String, at: Int) -> WireMessage {
            WireMessage(serverMsgID: "s", clientMsgID: "c-\(conv)-\(at)", conversationId: conv, seq: at, sendID: "tb_9", recvID: conv,
                        contentType: type, content: content, sendTime: at)
        }
        var changes = AppliedChanges()
        changes.newestIncoming = [
            "sg_7": wire("sg_7", 101, "open on screen", at: 5),
            "sg_8": wire("sg_8", 101, "muted", at: 4),
            "c2": wire("c2", 110, #"{"type":"flash_image","objectKey":"k","url":"","expireAt":0}"#, at: 3),
        ]
        #expect(Update.apply(.sync(.applied(changes)), to: &s, Self.zh) == [.notify(title: "Bob 鲍勃", body: "[闪照]")],
                "the open chat and a muted one stay quiet; a flash image shows only its tag")
        changes.mentioned = ["sg_8"]
        changes.newestIncoming["sg_8"] = wire("sg_8", 106, MentionPayload(text: "@我 开会", atUserIDs: ["tb_1"]).jsonText, at: 6)
        let effects = Update.apply(.sync(.applied(changes)), to: &s, Self.zh)
        #expect(effects.first == .notify(title: "公司大群", body: "[有人@我] @我 开会"), "a mention gets through mute")
        #expect(effects.count == 3 && effects.last == .ring, "and rings, though a muted group's unread does not")
        var rows = GroupFixture.conversations.map { c -> Conversation in
            var c = c
            c.unreadCount = 0
            return c
        }
        s.list = ListState(conversations: rows)
        rows[0].unreadCount = 3
        #expect(!Update.apply(.list(.stored(rows)), to: &s, Self.zh).contains(.ring), "the same moment's unread does not ring again")
        s.now += 2
        rows[0].unreadCount = 4
        #expect(Update.apply(.list(.stored(rows)), to: &s, Self.zh).contains(.ring), "a second later it does")
    }

    func key(_ k: Key, _ s: inout AppState) -> [Effect] { Update.apply(.key(k), to: &s, Self.zh) }
}

enum GroupFixture {
    static let me = "tb_1"
    static let members = [
        GroupMember(uid: 1, username: "我", role: "member", joinedAt: 1, account: "me"),
        GroupMember(uid: 2, username: "Alice 爱丽丝", role: "owner", joinedAt: 0, account: "alice"),
        GroupMember(uid: 3, username: "Bob 鲍勃", role: "member", joinedAt: 2, account: "bob"),
        GroupMember(uid: 4, username: "Carol 卡罗尔", role: "member", joinedAt: 3, account: "carol"),
    ]

    static let conversations: [Conversation] = [
        Conversation(id: "sg_7", targetUid: 0, nickname: "周末爬山群", unreadCount: 5, lastMessagePreview: "@我 你能开车吗？",
                     lastMessageTime: Fixture.now - 60_000, readSeq: 3, mentionSeq: 6, groupId: 7, memberCount: 4),
        Conversation(id: "sg_8", targetUid: 0, nickname: "公司大群", unreadCount: 230, lastMessagePreview: "下午三点开会",
                     lastMessageTime: Fixture.now - 3_600_000, isMuted: true, groupId: 8, memberCount: 500),
        Conversation(id: "sg_9", targetUid: 0, nickname: "已经退出的群", lastMessagePreview: "你 退出了群聊",
                     lastMessageTime: Fixture.now - 86_400_000, groupId: 9, memberCount: 2, isMember: false),
        Fixture.conversations[1],
    ]

    static var singleChat: ChatState { ChatState(conversation: Fixture.conversations[0], me: me) }

    static func state(width: Int, height: Int) -> AppState {
        var s = Fixture.state(width: width, height: height)
        s.list = ListState(conversations: conversations)
        s.allMentionLabel = "所有人"
        return s
    }

    static func message(_ id: String, from: String, _ content: MessageContent, type: ChatMessageType, minutesAgo: Int) -> ChatMessage {
        ChatMessage(id: id, senderId: from, receiverId: "sg_7", conversationId: "sg_7", type: type, content: content,
                    createTime: Fixture.now - minutesAgo * 60_000, isRead: true, isMe: from == me)
    }

    static var messages: [ChatMessage] {
        let names = Dictionary(uniqueKeysWithValues: members.map { (ConversationIDHelper.imUid($0.uid), $0.username) })
        let oldest = [
            message("n1", from: "tb_2", .groupNotice(GroupNoticePayload(contentType: ContentType.groupCreated, opUser: "tb_2",
                                                                        users: ["tb_1", "tb_3"], userNames: names)),
                    type: .groupNotice, minutesAgo: 50),
            message("n2", from: "tb_3", .groupNotice(GroupNoticePayload(contentType: ContentType.memberInvited, opUser: "tb_3",
                                                                        users: ["tb_4"], userNames: names)),
                    type: .groupNotice, minutesAgo: 48),
            message("g1", from: "tb_2", .text("大家好，这周六去爬香山 ⛰️"), type: .text, minutesAgo: 45),
            message("g2", from: "tb_3", .text("好啊，我带水和零食"), type: .text, minutesAgo: 40),
            message("g3", from: "tb_2", .mention(MentionPayload(text: "@我 你能开车吗？", atUserIDs: ["tb_1"])), type: .mention,
                    minutesAgo: 30),
            message("g4", from: "tb_1", .text("可以，我开车 🚗"), type: .text, minutesAgo: 20),
            message("n3", from: "tb_4", .groupNotice(GroupNoticePayload(contentType: ContentType.memberLeft, opUser: "tb_4",
                                                                        users: ["tb_4"], userNames: names)),
                    type: .groupNotice, minutesAgo: 10),
        ]
        return oldest.reversed()
    }

    static func chatState(width: Int, height: Int) -> AppState {
        var s = state(width: width, height: height)
        s.chat = ChatState(
            conversation: conversations[0], messages: messages, hasMoreHistory: false,
            senderNames: Dictionary(uniqueKeysWithValues: members.map { (ConversationIDHelper.imUid($0.uid), $0.username) }),
            members: members,
            group: GroupInfo(groupId: 7, name: "周末爬山群", uniqueName: "weekend_hike", notice: "周六早上八点，香山东门集合",
                             ownerId: "tb_2", memberCount: 4),
            me: me)
        return s
    }
}
