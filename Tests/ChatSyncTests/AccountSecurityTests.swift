import ChatCore
import ChatServer
@testable import ChatStore
import ChatTesting
import Foundation
import Synchronization
import Testing
@testable import ChatSync

/// PROTOCOL.md v4 "Limits and consent" on the client: the new refusals in
/// the user's words, changing the password, other devices' sign-ins, and
/// who a group left out.
@Suite struct AccountSecurityTests {
    static let zh = Localizer(language: .zhHans)
    static let en = Localizer(language: .en)

    static func refusal(_ code: APIErrorCode, retryAfter: Int? = nil) -> APIError {
        .server(status: code.httpStatus, code: code, rawCode: code.rawValue, message: "the server's English", retryAfter: retryAfter)
    }

    // MARK: The words of the new refusals

    @Test func aRateLimitSaysToWaitAndForHowLongWhenTheServerSaid() {
        #expect(ServerWords.describe(Self.refusal(.rateLimited, retryAfter: 30), Self.zh) == "操作太频繁，请 30 秒后再试")
        #expect(ServerWords.describe(Self.refusal(.rateLimited, retryAfter: 30), Self.en) == "too many requests; try again in 30 s")
        #expect(ServerWords.describe(Self.refusal(.rateLimited, retryAfter: 3600), Self.zh) == "操作太频繁，请 60 分钟后再试")
        #expect(ServerWords.describe(Self.refusal(.rateLimited, retryAfter: 91), Self.en) == "too many requests; try again in 2 min")
        #expect(ServerWords.describe(Self.refusal(.rateLimited), Self.zh) == "操作太频繁，请稍后再试")
        #expect(ServerWords.failed("people.requestFailed", Self.refusal(.rateLimited, retryAfter: 5), Self.zh)
            == "添加好友失败：操作太频繁，请 5 秒后再试")
    }

    @Test func aSpentUploadQuotaSaysSoInBothLanguages() {
        #expect(ServerWords.describe(Self.refusal(.quota), Self.zh) == "今天的上传额度已用完，请明天再试")
        #expect(ServerWords.describe(Self.refusal(.quota), Self.en) == "today's upload quota is spent; try again tomorrow")
        // A send refused for it keeps a marker, read in the user's words wherever it is shown.
        #expect(SendQueue.refusalReason(Self.refusal(.quota)) == MessageStatus.quotaReason)
        #expect(MessageStatus.words(forReason: MessageStatus.quotaReason, Self.zh) == "今天的上传额度已用完，请明天再试")
        #expect(MessageStatus.words(forReason: MessageStatus.rateLimitedReason, Self.en) == "too many requests; try again shortly")
        #expect(MessageStatus.words(forReason: "cannot reach the server", Self.zh) == "cannot reach the server")
    }

    @Test func signingInTooOftenIsNotAWrongPassword() {
        let server = "http://127.0.0.1:8080"
        #expect(AccountRules.describe(Self.refusal(.rateLimited, retryAfter: 60), server: server, localizer: Self.zh)
            == "尝试太频繁，请 60 秒后再试。")
        #expect(AccountRules.describe(Self.refusal(.rateLimited, retryAfter: 1800), server: server, localizer: Self.en)
            == "Too many attempts; try again in 30 min.")
        #expect(AccountRules.describe(Self.refusal(.rateLimited), server: server, localizer: Self.zh) == "尝试太频繁，请稍后再试。")
        #expect(AccountRules.describe(Self.refusal(.unauthorized), server: server, localizer: Self.zh) == "账号或密码错误。")
    }

    // MARK: Other devices signing in

    @Test func onlyOtherDevicesSignInsSinceMineAreNews() {
        let earlier = NewLoginSession(sessionId: "old", userAgent: "phone", createdAt: 1_000)
        let mine = NewLoginSession(sessionId: "me", userAgent: "this laptop", createdAt: 2_000)
        let later = NewLoginSession(sessionId: "new", userAgent: "tablet", createdAt: 3_000)
        let own = OwnLogin(sessionId: "me", signedInAt: 2_000)
        #expect(own.news([earlier, mine, later]) == [later])
        #expect(OwnLogin(sessionId: "me").news([earlier, mine, later]) == [earlier, later], "no time known: only mine is left out")
        #expect(OwnLogin().news([earlier, mine, later]) == [earlier, mine, later], "a login saved before v4 hears of every one")
    }

    /// On the in-process server: a second sign-in reaches this device's
    /// sync as news; its own, and one before it, do not.
    @Test func anotherDevicesSignInReachesThisOneAndItsOwnDoesNot() async throws {
        let fake = try FakeChatAPI(account: "nl_owner")
        let password = "password-nl_owner"
        _ = try await fake.api.login(account: "nl_owner", password: password)
        fake.advanceClock(by: .seconds(1))
        let mine = try await fake.api.login(account: "nl_owner", password: password)
        let signedInAt = try await fake.api.sessions().first { $0.sessionId == mine.sessionId }?.createdAt
        #expect(signedInAt != nil, "the server lists this sign-in by the id it answered")
        var creds = fake.credentials
        (creds.sessionId, creds.signedInAt) = (mine.sessionId, signedInAt)
        let root = tempURL("nl")
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                               configDirectory: root.appendingPathComponent("k"))
        let session = try Session(credentials: creds, paths: paths, api: fake.api)
        let heard = Mutex<[NewLoginSession]>([])
        session.sync.observe { update in
            if case .applied(let changes) = update { heard.withLock { $0 += changes.newLogins } }
        }

        #expect(try await session.sync.pull().newLogins.isEmpty, "the earlier sign-in and this device's own are no news")
        fake.advanceClock(by: .seconds(1))
        let other = try await fake.api.login(account: "nl_owner", password: password)
        let pulled = try await session.sync.pull().newLogins
        #expect(pulled.map(\.sessionId) == [other.sessionId])
        #expect(pulled.first?.userAgent.hasPrefix("tongban-terminal") == true, "the device as it named itself")
        #expect(heard.withLock { $0 }.map(\.sessionId) == [other.sessionId], "told to whoever follows the sync")
    }

    // MARK: Changing the password

    @Test func aNewPasswordOfTheWrongLengthIsRefusedBeforeAnyRequest() async throws {
        let fake = try FakeChatAPI(account: "pw_local")
        let session = try fake.makeSession()
        await #expect(throws: AccountRules.Problem.shortPassword) {
            try await session.changePassword(current: "password-pw_local", new: "1234567")
        }
        await #expect(throws: AccountRules.Problem.longPassword) {
            try await session.changePassword(current: "password-pw_local", new: String(repeating: "密", count: 129))
        }
        #expect(fake.calls(.changePassword) == 0)
        #expect(ServerWords.failed("password.failed", AccountRules.Problem.shortPassword, Self.zh) == "修改密码失败：密码至少 8 个字符。")
    }

    // MARK: Who a group left out

    @Test func whoWasNotAddedIsNamedNeverWhy() async throws {
        let fake = try FakeChatAPI(account: "na_owner")
        let bob = try fake.addPeer("na_bob", username: "Bob")
        let carol = try fake.addPeer("na_carol", username: "Carol")
        let eve = try fake.addPeer("na_eve", username: "Eve\u{1B}[2J")
        let session = try fake.makeSession()
        var info = GroupInfo(groupId: 1, name: "登山队", uniqueName: "na_hikers", ownerId: fake.imUid, memberCount: 1)
        #expect(await session.notAddedNotice(info, localizer: Self.zh) == nil)
        info.notAdded = []
        #expect(await session.notAddedNotice(info, localizer: Self.zh) == nil)
        info.notAdded = [NotAdded(userId: ConversationIDHelper.imUid(bob.uid))]
        #expect(await session.notAddedNotice(info, localizer: Self.zh) == "Bob 未能加入")
        #expect(await session.notAddedNotice(info, localizer: Self.en) == "Bob could not be added")
        info.notAdded = [bob, carol].map { NotAdded(userId: ConversationIDHelper.imUid($0.uid)) }
        #expect(await session.notAddedNotice(info, localizer: Self.zh) == "Bob、Carol 未能加入")
        #expect(await session.notAddedNotice(info, localizer: Self.en) == "Bob, Carol could not be added")
        // A name is someone's own words: one line, no escape sequences.
        info.notAdded = [NotAdded(userId: ConversationIDHelper.imUid(eve.uid))]
        let eveWords = try #require(await session.notAddedNotice(info, localizer: Self.zh))
        #expect(!eveWords.unicodeScalars.contains("\u{1B}") && eveWords.hasPrefix("Eve") && eveWords.hasSuffix("未能加入"))
        // Someone the server does not know is named by the id it gave.
        info.notAdded = [NotAdded(userId: "tb_999999")]
        #expect(await session.notAddedNotice(info, localizer: Self.zh) == "tb_999999 未能加入")
    }

    /// On the in-process server: who blocked me, or takes friends only, is
    /// left out of a group I make or invite them to, and named.
    @Test func theServerLeavesOutWhoDoesNotTakeMeAndTheNoticeNamesThem() async throws {
        let fake = try FakeChatAPI(account: "na_maker")
        let bob = try fake.addPeer("na_bob2", username: "Bob")
        let carol = try fake.addPeer("na_carol2", username: "Carol")
        let dave = try fake.addPeer("na_dave2", username: "Dave")
        try await fake.peer(bob.uid).api.block(userId: fake.uid)
        _ = try await fake.peer(dave.uid).api.setSettings(SettingsChange(acceptStrangers: false))
        let session = try fake.makeSession()

        let made = try await session.createGroup(CreateGroupRequest(name: "登山队", uniqueName: "na_hikers2",
                                                                   memberIds: [bob.uid, carol.uid]))
        #expect(made.notAdded?.map(\.userId) == [ConversationIDHelper.imUid(bob.uid)])
        #expect(await session.notAddedNotice(made, localizer: Self.zh) == "Bob 未能加入")
        let invited = try await session.invite([dave.uid], to: made.groupId)
        #expect(await session.notAddedNotice(invited, localizer: Self.en) == "Dave could not be added")
        #expect(invited.notAdded?.allSatisfy { $0.reason == NotAdded.notAccepted } == true, "the reason never says which rule")
    }
}

/// The same against the server over HTTP, as `tongban` reaches it: a login
/// keeps its session, and a 401 to a password change is told apart from a
/// login that ended.
@Suite(.serialized) struct AccountSecurityServerTests {
    static let zh = Localizer(language: .zhHans)

    /// Over HTTP, as `tongban` signs in: the login keeps its session and
    /// time, so a device new to the account hears of no earlier sign-in.
    @Test func aLoginKeepsItsSessionSoEarlierSignInsAreNoNews() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let phone = try await makeSession(server.baseURL, "nl_http")
        let root = tempURL("nl-laptop")
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                               configDirectory: root.appendingPathComponent("k"))
        try await Task.sleep(for: .milliseconds(5))
        let creds = try await Session.login(server: server.baseURL, account: "nl_http", password: "password-nl_http", paths: paths)
        #expect(creds.sessionId != nil && creds.signedInAt != nil)
        #expect(try Session.saved(paths: paths)?.sessionId == creds.sessionId, "kept for the next run")
        let laptop = try Session(credentials: creds, paths: paths)
        #expect(try await laptop.sync.pull().newLogins.isEmpty)
        let news = try await phone.sync.pull().newLogins
        #expect(news.map(\.sessionId) == [creds.sessionId], "the phone hears of the laptop")
    }

    /// A wrong current password is a 401, like a dead token: it is said as
    /// such and the login goes on; the right one signs the other devices out.
    @Test func aWrongCurrentPasswordKeepsTheLoginAndTheRightOneSignsTheOthersOut() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let laptop = try await makeSession(server.baseURL, "pw_owner")
        let phone = try await makeSession(server.baseURL, "pw_owner")

        await #expect(throws: AccountRules.Problem.wrongCurrentPassword) {
            try await laptop.changePassword(current: "not-my-password", new: "a-new-password")
        }
        #expect(!laptop.sync.isSignedOut, "a wrong current password does not end this login")
        #expect(ServerWords.failed("password.failed", AccountRules.Problem.wrongCurrentPassword, Self.zh)
            == "修改密码失败：当前密码不正确")

        try await laptop.changePassword(current: "password-pw_owner", new: "a-new-password")
        #expect(try await laptop.devices().count == 1, "this login stays")
        let phoneRefused = await #expect(throws: APIError.self) { try await phone.devices() }
        #expect(phoneRefused?.code == .unauthorized, "the other device is signed out")
        let api = APIClient(baseURL: server.baseURL)
        #expect(try await api.login(account: "pw_owner", password: "a-new-password").uid == laptop.credentials.uid)
        let old = await #expect(throws: APIError.self) { try await api.login(account: "pw_owner", password: "password-pw_owner") }
        #expect(old?.code == .unauthorized)
    }

    @Test func changingThePasswordOfALoginThatEndedEndsItHere() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let laptop = try await makeSession(server.baseURL, "pw_ended")
        let phone = try await makeSession(server.baseURL, "pw_ended")
        let other = try #require(try await phone.devices().first { !$0.current })
        try await phone.signOut(device: other.sessionId)

        let refused = await #expect(throws: APIError.self) {
            try await laptop.changePassword(current: "password-pw_ended", new: "a-new-password")
        }
        #expect(refused?.code == .unauthorized)
        #expect(laptop.sync.isSignedOut, "the login is over, as at any 401 of its token")
    }
}
