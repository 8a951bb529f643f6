import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation
import TerminalUI
import Testing
@testable import TongbanTUI

/// People (PROTOCOL.md v3) on screen: golden frames of the contacts view,
/// a friend request's card, my page, a peer's page and a group's page with
/// its picture, and what their keys do.
@Suite struct PeopleScreenTests {
    static let zh = Localizer(language: .zhHans)

    static func user(_ uid: Int, _ name: String, _ account: String, signature: String? = nil, avatar: String = "") -> UserBasicInfo {
        UserBasicInfo(uid: uid, username: name, avatar: avatar, account: account, signature: signature)
    }

    static let me = user(1, "我", "me", signature: "今天也要加油", avatar: "chat/image/me.jpg")
    static let zhang = user(3, "张伟", "zhangwei", signature: "爬山去")
    static let alice = user(7, "Alice 爱丽丝", "alice", signature: "周末见 ⛰️", avatar: "chat/image/alice.jpg")

    /// A state with friends in every section: a request to me with its
    /// words, one of mine waiting, friends (one with a remark, Chinese names
    /// in pinyin order, a name that starts with a digit), groups, a blocked user.
    static func peopleState(width: Int = 100, height: Int = 34) -> AppState {
        var s = GroupFixture.state(width: width, height: height)
        s.people.myUid = 1
        s.people.requests = [
            FriendRequest(requestId: 11, from: user(9, "Dave 🐶", "dave"), to: me, message: "我是戴夫，上次一起爬山的", status: .pending,
                          createdAt: Fixture.now - 3_600_000),
            FriendRequest(requestId: 12, from: me, to: user(10, "Eve", "eve"), message: "", status: .pending, createdAt: Fixture.now),
        ]
        s.people.contacts = [
            Contact(user: alice, remark: "", since: 1),
            Contact(user: zhang, remark: "", since: 2),
            Contact(user: user(4, "李娜", "lina"), remark: "", since: 3),
            Contact(user: user(5, "bob", "bob"), remark: "阿宝", since: 4),
            Contact(user: user(6, "8号球", "ball8"), remark: "", since: 5),
        ]
        s.people.blocked = [user(13, "推销员", "sales")]
        return s
    }

    @Test func contactsWithEverySection() throws {
        var s = Self.peopleState()
        var view = ContactsView()
        view.index = ContactsView.settle(0, in: ContactsView.rows(s.people, groups: s.list.conversations, query: view.query, Self.zh))
        s.mode = .contacts(view)
        try Golden.check("people-contacts", s, Self.zh)
        // Friends by pinyin: 阿宝 (a), Alice, 李娜 (li), 张伟 (zhang); a digit last.
        let rows = ContactsView.rows(s.people, groups: s.list.conversations, query: view.query, Self.zh).compactMap { if case .friend(let c) = $0 { c.shownName } else { nil } }
        #expect(rows == ["阿宝", "Alice 爱丽丝", "李娜", "张伟", "8号球"])
    }

    @Test func aFilterNarrowsEverySectionByNameAccountOrPinyin() {
        let s = Self.peopleState()
        func friends(_ q: String) -> [String] {
            ContactsView.rows(s.people, groups: s.list.conversations, query: q, Self.zh).compactMap { if case .friend(let c) = $0 { c.shownName } else { nil } }
        }
        #expect(friends("zhang") == ["张伟"], "by pinyin")
        #expect(friends("zhangwei") == ["张伟"], "without the spaces between syllables")
        #expect(friends("李") == ["李娜"])
        #expect(friends("BOB") == ["阿宝"], "by the name under a remark, case-blind")
        #expect(friends("nobody").isEmpty)
    }

    @Test func aRequestsCardAndMyPageAndAPeersPage() throws {
        var s = Self.peopleState()
        s.thumbnails["chat/image/alice.jpg"] = .ready(Fixture.picture(width: 12, height: 12))
        s.mode = .addFriend(AddFriendForm(query: "ali", found: [Self.alice], index: 0, card: Self.alice, message: "你好，我是同事"))
        try Golden.check("people-card", s, Self.zh)

        var page = MyPage()
        page.profile = Self.me
        page.settings = UserSettings(acceptStrangers: false)
        page.devices = [
            SessionInfo(sessionId: "a1", createdAt: 0, lastSeenAt: Fixture.now - 60_000, userAgent: "tongban-terminal (Linux x86_64; desk)",
                        current: true),
            SessionInfo(sessionId: "b2", createdAt: 0, lastSeenAt: Fixture.now - 86_400_000 * 3,
                        userAgent: "tongban-terminal (Linux aarch64; laptop)", current: false),
        ]
        page.index = 5
        s.mode = .me(page)
        try Golden.check("people-me", s, Self.zh)

        s.mode = .peer(PeerPage(user: Self.alice, sharedGroups: ["周末爬山群", "公司大群"]))
        try Golden.check("people-peer", s, Self.zh)

        // With a secret chat: its timer, and the safety number in two rows of six groups, verified.
        var secret = PeerPage(user: Self.alice)
        secret.secretChat = "ss_tb_1_tb_2"
        secret.timer = 300
        secret.safetyNumber = "303160142946352625697947311633429611874280169487170891082586"
        secret.verified = true
        s.mode = .peer(secret)
        try Golden.check("people-peer-secret", s, Self.zh)
    }

    @Test func aGroupsPageShowsItsPicture() throws {
        var s = GroupFixture.chatState(width: 100, height: 30)
        s.chat?.group?.avatar = "chat/image/group.jpg"
        s.thumbnails["chat/image/group.jpg"] = .ready(Fixture.picture(width: 12, height: 12))
        s.focus = .messages
        s.mode = .settings(member: 0)
        try Golden.check("people-group", s, Self.zh)
    }

    @Test func aGroupsPictureIsFetchedForTheHeaderOnceItsInfoIsRead() {
        var s = GroupFixture.chatState(width: 100, height: 30)
        s.chat?.group?.avatar = "chat/image/group.jpg"
        guard let ref = s.chat?.ref else { Issue.record("no chat"); return }
        let effects = Update.apply(.chat(.filled(hasMoreHistory: false), ref), to: &s, Self.zh)
        #expect(effects.contains(.decodeAvatar(key: "chat/image/group.jpg")), "without opening the group's page first")
        let again = Update.apply(.chat(.filled(hasMoreHistory: false), ref), to: &s, Self.zh)
        #expect(!again.contains(.decodeAvatar(key: "chat/image/group.jpg")), "asked for once")
    }

    // MARK: Keys

    @Test func enterAcceptsARequestXDeclinesItAndTypingFilters() {
        var s = Self.peopleState()
        _ = Update.openContacts(&s, Self.zh)
        guard case .contacts(let view) = s.mode else { Issue.record("no contacts view"); return }
        // The view's own update, on its own value.
        var page = view
        #expect(page.update(.enter, s.people, groups: s.list.conversations, Self.zh) == .effects([.people(.respond(requestId: 11, accept: true))]))
        #expect(page.update(.char("x"), s.people, groups: s.list.conversations, Self.zh) == .effects([.people(.respond(requestId: 11, accept: false))]))
        #expect(page == view, "acting on a row leaves the view as it was")
        _ = Update.apply(.key(.char("l")), to: &s, Self.zh)
        _ = Update.apply(.key(.char("i")), to: &s, Self.zh)
        _ = Update.apply(.key(.char("n")), to: &s, Self.zh)
        guard case .contacts(let typed) = s.mode else { Issue.record("closed"); return }
        #expect(typed.query == "lin")
        // The first selectable row under the filter is 李娜: Enter opens her chat.
        let effects = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(effects == [.startConversation(Self.user(4, "李娜", "lina"))])
        #expect(s.mode == .normal)
    }

    /// What arrives after the view opened (the store, the server) keeps the
    /// selection on the first row until the user moves it.
    @Test func theSelectionFollowsTheFirstRowUntilMoved() {
        var s = Self.peopleState()
        let requests = s.people.requests
        s.people.requests = []
        _ = Update.openContacts(&s, Self.zh)
        _ = Update.apply(.people(.loaded(contacts: s.people.contacts, requests: requests, blocked: nil)), to: &s, Self.zh)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.respond(requestId: 11, accept: true))])
        _ = Update.apply(.key(.down), to: &s, Self.zh)
        guard case .contacts(let moved) = s.mode else { Issue.record("closed"); return }
        _ = Update.apply(.people(.loaded(contacts: s.people.contacts, requests: requests, blocked: nil)), to: &s, Self.zh)
        guard case .contacts(let after) = s.mode else { Issue.record("closed"); return }
        #expect(after.index == moved.index, "moved: it stays where the user put it")
    }

    @Test func addingAFriendGoesFromTheSearchToTheCardToTheRequest() {
        var s = Self.peopleState()
        s.mode = .newChat(NewChatDialog(query: "alice", found: [Self.alice], index: 3))  // the 添加好友 row, after create and join
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(s.mode == .addFriend(AddFriendForm(query: "alice", found: [Self.alice])))
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        for c in "你好" { _ = Update.apply(.key(.char(c)), to: &s, Self.zh) }
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.request(Self.alice, message: "你好"))])
        #expect(s.mode == .normal)

        // Nothing found says so.
        s.mode = .addFriend(AddFriendForm(query: "nobody"))
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.search("nobody"))])
        _ = Update.apply(.people(.found(query: "nobody", [])), to: &s, Self.zh)
        let frame = Screen.render(s, Self.zh, RenderOptions())
        #expect(frame.find("用户不存在") != nil)
    }

    @Test func myPageEditsInPlaceAndAsksBeforeSigningOut() {
        var s = Self.peopleState()
        #expect(Update.apply(.key(.char("u")), to: &s, Self.zh) == [.people(.loadMine)])
        let devices = [SessionInfo(sessionId: "here", createdAt: 0, lastSeenAt: 0, userAgent: "a", current: true),
                       SessionInfo(sessionId: "there", createdAt: 0, lastSeenAt: 0, userAgent: "b", current: false)]
        _ = Update.apply(.people(.mine(Self.me, UserSettings(acceptStrangers: true), devices)), to: &s, Self.zh)
        // Name: Enter edits, the old name is there to change, Enter saves.
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        _ = Update.apply(.key(.backspace), to: &s, Self.zh)
        for c in "小明" { _ = Update.apply(.key(.char(c)), to: &s, Self.zh) }
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.updateProfile(name: "小明", signature: nil))])
        // The switch flips at once.
        for _ in 0..<3 { _ = Update.apply(.key(.down), to: &s, Self.zh) }
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.settings(SettingsChange(acceptStrangers: false)))])
        // The typing and reads switches flip the same way.
        _ = Update.apply(.key(.down), to: &s, Self.zh)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.settings(SettingsChange(shareTyping: false)))])
        _ = Update.apply(.key(.down), to: &s, Self.zh)
        #expect(Update.apply(.key(.char(" ")), to: &s, Self.zh) == [.people(.settings(SettingsChange(shareRead: false)))])
        // The other device: x asks, n keeps it, y signs it out.
        for _ in 0..<2 { _ = Update.apply(.key(.down), to: &s, Self.zh) }
        #expect(Update.apply(.key(.char("x")), to: &s, Self.zh).isEmpty)
        #expect(Update.apply(.key(.char("n")), to: &s, Self.zh).isEmpty)
        _ = Update.apply(.key(.char("x")), to: &s, Self.zh)
        #expect(Update.apply(.key(.char("y")), to: &s, Self.zh) == [.people(.signOutDevice("there"))])
        // 退出登录 (below 修改密码) asks too; y gives the login up.
        for _ in 0..<2 { _ = Update.apply(.key(.down), to: &s, Self.zh) }
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(Update.apply(.key(.char("y")), to: &s, Self.zh) == [.people(.logout)])
        _ = Update.apply(.people(.loggedOut), to: &s, Self.zh)
        #expect(s.wantsQuit && s.signedOut)
    }

    @Test func aPeersPageActsAndAsksBeforeBlockingOrRemoving() {
        var s = Self.peopleState()
        s.mode = .peer(PeerPage(user: Self.alice))
        #expect(Update.apply(.key(.char("b")), to: &s, Self.zh).isEmpty, "asks first")
        #expect(Update.apply(.key(.char("y")), to: &s, Self.zh) == [.people(.block(uid: 7))])
        _ = Update.apply(.key(.char("d")), to: &s, Self.zh)
        #expect(Update.apply(.key(.char("y")), to: &s, Self.zh) == [.people(.remove(Contact(user: Self.alice, since: 1)))])
        _ = Update.apply(.key(.char("m")), to: &s, Self.zh)
        for c in "阿丽" { _ = Update.apply(.key(.char(c)), to: &s, Self.zh) }
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.remark(uid: 7, "阿丽"))])
        // A stranger can be asked; a blocked user is unblocked with b.
        s.mode = .peer(PeerPage(user: Self.user(20, "路人", "passer")))
        #expect(Update.apply(.key(.char("a")), to: &s, Self.zh) == [.people(.request(Self.user(20, "路人", "passer"), message: ""))])
        s.mode = .peer(PeerPage(user: Self.user(13, "推销员", "sales")))
        #expect(Update.apply(.key(.char("b")), to: &s, Self.zh) == [.people(.unblock(uid: 13))])
    }

    @Test func aBlockedSendersGroupMessagesFoldToOneLineThatEnterOpens() throws {
        var s = GroupFixture.chatState(width: 100, height: 30)
        s.people.blocked = [Self.user(3, "Bob 鲍勃", "bob")]
        s.focus = .messages
        let folded = "已屏蔽 Bob 鲍勃 的一条消息（Enter 展开）"
        #expect(Screen.render(s, Self.zh, RenderOptions()).find(folded) != nil)
        let bobs = try #require(s.bubbles.first { $0.senderId == "tb_3" })
        s.selectedId = bobs.id
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).isEmpty)
        #expect(s.unfolded == [bobs.id])
        let after = Screen.render(s, Self.zh, RenderOptions())
        #expect(after.find(bobs.text ?? "?") != nil, "opened: the message itself")
    }

    @Test func slashAvatarSetsAGroupsPicture() {
        var s = GroupFixture.chatState(width: 100, height: 30)
        s.focus = .input
        s.input = InputLine(text: "/avatar ~/山.png")
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).first == .group(.avatar(path: "~/山.png")))
        s.input = InputLine(text: "/avatar")
        #expect(!Update.apply(.key(.enter), to: &s, Self.zh).contains { if case .group = $0 { true } else { false } })
        #expect(s.status == "/avatar PATH")
    }

    @Test func aSingleChatsCommaOpensThePeersPage() {
        var s = Fixture.chatState(width: 100, height: 30)
        s.focus = .messages
        #expect(Update.apply(.key(.char(",")), to: &s, Self.zh) == [.people(.openPeer(uid: 7))])
    }

    @Test func aLoginTheServerEndedQuitsToSignIn() {
        var s = Fixture.state(width: 80, height: 24)
        _ = Update.apply(.sync(.signedOut), to: &s, Self.zh)
        #expect(s.wantsQuit && s.signedOut)
    }

    @Test func aRefusedSendSaysTheReceiverDoesNotTakeIt() {
        var s = Fixture.state(width: 100, height: 20)
        var m = Fixture.message("b1", .text("在吗"), type: .text, me: true, minutesAgo: 1)
        m.status = .failed
        m.errorReason = MessageStatus.blockedReason
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [m], isLoading: false, hasMoreHistory: false,
                           newMessageBannerCount: 0, cachedKeys: [], me: "me")
        let frame = Screen.render(s, Self.zh, RenderOptions())
        #expect(frame.find("消息未送达：对方不接收你的消息") != nil)
    }
}

/// The people views against a real server: a request to me shows under
/// 新的朋友, Enter accepts it, and the friend is listed.
@Suite(.serialized) @MainActor struct PeopleSessionTests {
    @Test func aRequestToMeIsShownAndEnterAcceptsIt() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let zoe = APIClient(baseURL: server.baseURL)
        let auth = try await zoe.register(account: "zoe_p", password: "password-zoe", username: "佐伊")
        zoe.token = auth.token
        let me = try #require(try await zoe.searchUsers("me").first { $0.account == "me" })
        _ = try await zoe.requestFriend(userId: me.uid, message: "一起爬山吗")
        try await session.sync.pull()

        let app = await app(session)
        await app.handle(.char("c"))
        #expect(await waitFor(app, "佐伊 @zoe_p：一起爬山吗"))
        await app.handle(.enter)
        #expect(await waitFor(app, "你和 佐伊 已是好友"))
        #expect(await waitFor(app, "Z  佐伊 @zoe_p"), "now among the friends, by pinyin")
        #expect(try await zoe.friends().map(\.account) == ["me"])
    }
}
