import ChatCore
import ChatStore
import ChatSync
import ChatTesting
import ChatViewModels
import Foundation
import Synchronization
import TerminalUI
import Testing
@testable import TongbanTUI

/// PROTOCOL.md v4 "Limits and consent" on screen: another device's sign-in,
/// changing the password in 我的信息, who a group left out, and the words
/// of the new refusals.
@Suite struct AccountSecurityScreenTests {
    static let zh = Localizer(language: .zhHans)
    static let en = Localizer(language: .en)

    static func signedIn(_ agent: String) -> AppliedChanges {
        var changes = AppliedChanges()
        changes.newLogins = [NewLoginSession(sessionId: "s-new", userAgent: agent, createdAt: Fixture.now)]
        return changes
    }

    static func frameText(_ s: AppState, _ L: Localizer) -> String {
        let frame = Screen.render(s, L, RenderOptions())
        return (0..<frame.height).map { frame.rowText($0) }.joined(separator: "\n")
    }

    // MARK: Another device signed in

    @Test func aSignInElsewhereIsSaidWithTheWayToSignItOut() throws {
        var s = Fixture.state(width: 140, height: 24)
        let effects = Update.apply(.sync(.applied(Self.signedIn("tongban-terminal (Linux aarch64; laptop)"))), to: &s, Self.zh)
        let words = "你的账号在新设备上登录（不是你？按 u 打开我的信息，选中它按 x 让它退出）：tongban-terminal (Linux aarch64; laptop)"
        #expect(Screen.render(s, Self.zh, RenderOptions()).find(words) != nil)
        #expect(effects.contains(.notify(title: "Tongban", body: words)), "on the desktop too")

        var e = Fixture.state(width: 120, height: 24)
        _ = Update.apply(.sync(.applied(Self.signedIn("phone"))), to: &e, Self.en)
        #expect(Screen.render(e, Self.en, RenderOptions())
            .find("Your account signed in on a new device (not you? u: My profile, select it, x signs it out): phone") != nil)

        // A key keys.json bound to my page is the one named.
        let dir = tmpDir("keys-me")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("keys.json")
        try Data(#"{"list.me": "M"}"#.utf8).write(to: file)
        var rebound = Fixture.state(width: 140, height: 24)
        rebound.keyMap = try KeyMap.load(from: file)
        _ = Update.apply(.sync(.applied(Self.signedIn("phone"))), to: &rebound, Self.zh)
        #expect(rebound.status?.contains("按 M 打开我的信息") == true)
    }

    @Test func aNarrowStatusLineCutsTheDevicesWordsNotTheWayToSignItOut() {
        var s = Fixture.state(width: 100, height: 24)
        _ = Update.apply(.sync(.applied(Self.signedIn(String(repeating: "very-long-agent ", count: 8)))), to: &s, Self.zh)
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("选中它按 x 让它退出）：very") != nil)
    }

    /// The device names itself: escape sequences, bells and line breaks in
    /// its words never reach the terminal or the desktop.
    @Test func theDevicesWordsAreCleanedOfControlCharacters() throws {
        var s = Fixture.state(width: 140, height: 24)
        let effects = Update.apply(.sync(.applied(Self.signedIn("evil\u{1B}[2J\u{1B}]0;owned\u{07}\nphone\u{9B}31m"))), to: &s,
                                   Self.zh)
        let status = try #require(s.status)
        for text in [status, Self.frameText(s, Self.zh)] {
            #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(text.debugDescription)")
        }
        #expect(status.hasPrefix("你的账号在新设备上登录") && status.contains("evil") && status.contains("phone"))
        for case .notify(_, let body) in effects {
            #expect(!body.unicodeScalars.contains { $0.properties.generalCategory == .control })
        }
        // A device that names itself with nothing printable is still said.
        var blank = Fixture.state(width: 140, height: 24)
        _ = Update.apply(.sync(.applied(Self.signedIn(" \u{1B}[0m "))), to: &blank, Self.zh)
        #expect(blank.status?.hasSuffix("：未知设备") == true)
    }

    @Test func theRestOfTheBatchStillArrivesAndAnOpenPageListsTheDevice() {
        var s = PeopleScreenTests.peopleState()
        s.mode = .me(MyPage())
        var changes = Self.signedIn("tablet")
        changes.peopleChanged = true
        let effects = Update.apply(.sync(.applied(changes)), to: &s, Self.zh)
        #expect(effects.contains(.people(.load)), "the friends' change is followed as before")
        #expect(effects.contains(.people(.loadMine)), "my page, open, lists the new device")
        #expect(s.status?.hasPrefix("你的账号在新设备上登录") == true)
        // A batch without a sign-in says nothing of one.
        var quiet = Fixture.state(width: 100, height: 24)
        #expect(Update.apply(.sync(.applied(AppliedChanges())), to: &quiet, Self.zh).isEmpty && quiet.status == nil)
    }

    // MARK: Changing the password

    static func myPage() -> AppState {
        var s = PeopleScreenTests.peopleState()
        var page = MyPage()
        page.profile = PeopleScreenTests.me
        page.settings = UserSettings(acceptStrangers: true)
        page.devices = [SessionInfo(sessionId: "here", createdAt: 0, lastSeenAt: Fixture.now, userAgent: "desk", current: true),
                        SessionInfo(sessionId: "there", createdAt: 0, lastSeenAt: Fixture.now, userAgent: "laptop", current: false)]
        s.mode = .me(page)
        return s
    }

    static func type(_ text: String, _ s: inout AppState) {
        for c in text { _ = Update.apply(.key(.char(c)), to: &s, zh) }
    }

    /// `p` asks the current password, the new one and the new one again;
    /// only stars show; the new one is asked again when it is too short or
    /// typed differently; then the change is asked of the server.
    @Test func pAsksThreeTimesShowsStarsAndSendsOnlyAMatchingNewPassword() throws {
        var s = Self.myPage()
        #expect(Update.apply(.key(.char("p")), to: &s, Self.zh).isEmpty)
        Self.type("old-secret", &s)
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("当前密码：**********▏") != nil)
        #expect(!Self.frameText(s, Self.zh).contains("old-secret"), "never the password itself")
        _ = Update.apply(.key(.enter), to: &s, Self.zh)

        Self.type("short", &s)
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        #expect(s.status == "密码至少 8 个字符。")
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("新密码（8–128 个字符）：▏") != nil, "asked again, empty")

        Self.type("new-secret-1", &s)
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        Self.type("new-secret-2", &s)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).isEmpty, "different twice: nothing is sent")
        #expect(s.status == "两次输入的新密码不一致，请重新输入")
        guard case .me(let again) = s.mode else { Issue.record("my page closed"); return }
        #expect(again.password?.step == .new && again.password?.new == "", "the new one is asked again")

        Self.type("new-secret-1", &s)
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        Self.type("new-secret-X", &s)
        _ = Update.apply(.key(.backspace), to: &s, Self.zh)
        Self.type("1", &s)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh) == [.people(.changePassword(current: "old-secret", new: "new-secret-1"))])
        guard case .me(let page) = s.mode else { Issue.record("my page closed"); return }
        #expect(page.password == nil, "the form is gone, and the passwords with it")
        #expect(!Self.frameText(s, Self.zh).contains("new-secret"))
    }

    @Test func theRowEnterAndEscWorkAsOnTheRestOfThePage() {
        var s = Self.myPage()
        // 修改密码 is the row above 退出登录: name, signature, picture, three switches, two devices, then it.
        for _ in 0..<8 { _ = Update.apply(.key(.down), to: &s, Self.zh) }
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        guard case .me(let open) = s.mode, open.password != nil else { Issue.record("no password form"); return }
        Self.type("typed", &s)
        // Esc drops the lot and the page stays; an empty answer goes nowhere.
        _ = Update.apply(.key(.escape), to: &s, Self.zh)
        guard case .me(let closed) = s.mode else { Issue.record("my page closed"); return }
        #expect(closed.password == nil)
        _ = Update.apply(.key(.char("p")), to: &s, Self.zh)
        #expect(Update.apply(.key(.enter), to: &s, Self.zh).isEmpty, "nothing typed: Enter waits")
        guard case .me(let waiting) = s.mode else { Issue.record("my page closed"); return }
        #expect(waiting.password?.step == .current)
    }

    @Test func thePasswordFormsFrame() throws {
        var s = Self.myPage()
        _ = Update.apply(.key(.char("p")), to: &s, Self.zh)
        Self.type("old-secret", &s)
        _ = Update.apply(.key(.enter), to: &s, Self.zh)
        Self.type("new", &s)
        try Golden.check("people-password", s, Self.zh)
    }

    // MARK: Who a group left out, the refusals' words

    @Test func whoWasNotAddedIsSaidOnTheStatusLine() {
        var s = Fixture.state(width: 100, height: 24)
        _ = Update.apply(.list(.told(.notAdded(["Bob", "Carol"]))), to: &s, Self.zh)
        #expect(Screen.render(s, Self.zh, RenderOptions()).find("Bob、Carol 未能加入") != nil)
    }

    @Test func aSendOverTheUploadQuotaSaysSoInItsBubble() {
        var s = Fixture.state(width: 120, height: 20)
        var m = Fixture.message("q1", .text("一张大图"), type: .text, me: true, minutesAgo: 1)
        m.status = .failed
        m.errorReason = MessageStatus.quotaReason
        var held = Fixture.message("q2", .text("限流中"), type: .text, me: true, minutesAgo: 0)
        held.status = .sending
        held.errorReason = MessageStatus.rateLimitedReason
        s.chat = ChatState(conversation: Fixture.conversations[0], messages: [held, m], isLoading: false, hasMoreHistory: false,
                           newMessageBannerCount: 0, cachedKeys: [], me: "me")
        let frame = Screen.render(s, Self.zh, RenderOptions())
        #expect(frame.find("✗ 发送失败：今天的上传额度已用完，Enter 重试") != nil)
        #expect(frame.find("等待发送：操作太频繁，请稍后再试") != nil)
        let english = Screen.render(s, Self.en, RenderOptions())
        #expect(english.find("Not sent: today's upload quota is spent; Enter retries") != nil)
    }
}

/// The same against the server in this process (`FakeChatAPI`): keys in,
/// cells out.
@MainActor @Suite struct AccountSecuritySessionTests {
    func started(_ account: String) async throws -> (FakeChatAPI, Session, ChatApp) {
        let fake = try FakeChatAPI(account: account)
        let session = try fake.makeSession(sendPolicy: .retriesQuickly)
        fake.pushNotices(to: session.sync)
        session.sync.start()
        await session.sendQueue.start()
        return (fake, session, await app(session))
    }

    func stop(_ session: Session) async {
        session.sync.stop()
        await session.sendQueue.stop()
    }

    @Test func aSignInElsewhereShowsOnTheStatusLineAndTheDesktop() async throws {
        let (fake, session, app) = try await started("nl_screen")
        let notified = Mutex<[DesktopNotification]>([])
        app.notify = { n in notified.withLock { $0.append(n) } }
        _ = try await fake.api.login(account: "nl_screen", password: "password-nl_screen")
        #expect(await waitFor(app, width: 160, height: 30, "你的账号在新设备上登录（不是你？按 u 打开我的信息，选中它按 x 让它退出）：tongban-terminal"))
        #expect(await until { notified.withLock { $0 }.contains { $0.body.hasPrefix("你的账号在新设备上登录") } }, "on the desktop too")
        // The next key clears the line; the list still works.
        await app.handle(.char("j"))
        #expect(await waitForGone(app, width: 160, height: 30, "你的账号在新设备上登录"))
        await stop(session)
    }

    /// Signed in over HTTP as `tongban start` does: this device's own
    /// sign-in, in the account's log too, is never announced; the next one is.
    @Test func thisDevicesOwnSignInIsNotAnnouncedAnotherOneIs() async throws {
        let (server, session) = try await demoSession()
        defer { Task { await server.stop() } }
        let app = await app(session)
        let log = try await APIClient(baseURL: server.baseURL, token: session.credentials.token).sync(since: 0)
        #expect(log.events.contains { if case .newLogin(let s) = $0 { s.sessionId == session.credentials.sessionId } else { false } },
                "the account's log holds this device's own sign-in")
        #expect(try await session.sync.pull().newLogins.isEmpty)
        try await Task.sleep(for: .milliseconds(200))
        #expect(app.frame(width: 160, height: 30).find("你的账号在新设备上登录") == nil)

        session.sync.start()
        defer { session.sync.stop() }
        #expect(await until { session.sync.state == .online })
        _ = try await APIClient(baseURL: server.baseURL).login(account: "me", password: "tongban-demo")
        #expect(await waitFor(app, width: 160, height: 30, "你的账号在新设备上登录"))
    }

    @Test func changingThePasswordFromMyPage() async throws {
        let (fake, session, app) = try await started("pw_screen")
        // Another device of mine, which the change signs out.
        _ = try await fake.api.login(account: "pw_screen", password: "password-pw_screen")
        await app.handle(.char("u"))
        #expect(await waitFor(app, width: 120, height: 40, "修改密码"))
        await app.handle(.char("p"))
        await type(app, "password-pw_screen")
        await app.handle(.enter)
        await type(app, "brand-new-pw")
        await app.handle(.enter)
        await type(app, "brand-new-pw")
        #expect(app.frame(width: 120, height: 40).find("brand-new-pw") == nil, "never on screen")
        await app.handle(.enter)
        #expect(await waitFor(app, width: 120, height: 40, "密码已修改，其他设备已退出登录"))
        #expect(try await fake.api.sessions().count == 1, "only this device is left")

        // A wrong current password says so, and this login goes on.
        await app.handle(.char("p"))
        await type(app, "not-the-password")
        await app.handle(.enter)
        await type(app, "another-new-pw")
        await app.handle(.enter)
        await type(app, "another-new-pw")
        await app.handle(.enter)
        #expect(await waitFor(app, width: 120, height: 40, "修改密码失败：当前密码不正确"))
        #expect(!app.signedOut)
        await stop(session)
    }

    @Test func aRateLimitSaysHowLongToWait() async throws {
        let (fake, session, app) = try await started("rl_screen")
        _ = try fake.addPeer("rl_ann", username: "Ann")
        _ = try await session.conversation(with: "rl_ann")
        app.loadListFromStore()
        #expect(await waitFor(app, width: 100, height: 30, "Ann"))
        fake.failNext(.pin, with: .server(status: 429, code: .rateLimited, rawCode: "rate_limited", message: "slow down",
                                          retryAfter: 30))
        await app.handle(.char("p"))
        #expect(await waitFor(app, width: 100, height: 30, "操作太频繁，请 30 秒后再试"))
        await stop(session)
    }

    /// Who blocked me is left out of the group I make, and who takes
    /// friends only out of my invitation: each is named, never why.
    @Test func whoWasNotAddedToAGroupIsNamed() async throws {
        let (fake, session, app) = try await started("na_screen")
        let bob = try fake.addPeer("na_sbob", username: "Bob")
        let carol = try fake.addPeer("na_scarol", username: "Carol")
        let dave = try fake.addPeer("na_sdave", username: "Dave")
        try await fake.peer(bob.uid).api.block(userId: fake.uid)
        _ = try await fake.peer(dave.uid).api.setSettings(SettingsChange(acceptStrangers: false))

        // What the new-group form asks for on its last Enter.
        await app.runner.run(.createGroup(name: "登山队", unique: "na_shikers", members: [bob.uid, carol.uid]))
        #expect(await waitFor(app, width: 100, height: 30, "Bob 未能加入"))
        #expect(app.frame(width: 100, height: 30).find("屏蔽") == nil, "never why")
        #expect(app.chat?.conversation.isGroup == true, "the group is open")

        await type(app, "/invite na_sdave")
        await app.handle(.enter)
        #expect(await waitFor(app, width: 100, height: 30, "Dave 未能加入"))
        await stop(session)
    }
}
