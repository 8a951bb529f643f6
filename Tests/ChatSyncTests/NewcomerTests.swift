import ChatCore
import ChatServer
@testable import ChatStore
import Foundation
import ChatTesting
import Testing
@testable import ChatSync

/// What a newcomer meets first: strangers who write to them, peers they
/// address while offline, an account they create.
@Suite(.serialized) struct NewcomerTests {
    /// A user never talked to starts a chat: the conversation arrives
    /// through sync with ids only, and must still show the stranger's name.
    @Test func strangersConversationShowsTheirName() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let me = try await makeSession(server.baseURL, "nina")
        _ = try await APIClient(baseURL: server.baseURL).register(account: "bob_x", password: "password-bob_x", username: "Bob 鲍勃")
        let bob = try await makeSession(server.baseURL, "bob_x")
        let conv = try await bob.conversation(with: "nina")
        try await bob.sendQueue.sendText("你好，我是 Bob", to: conv)
        #expect(await bob.sendQueue.drain() == .empty)

        _ = try await me.sync.pull()
        let row = try #require(try me.store.conversationList().first { $0.id == conv })
        #expect(row.nickname == "Bob 鲍勃")
        #expect(try me.store.profile(account: "bob_x")?.uid == bob.credentials.uid)

        // Offline, the peer is found by account, display name, uid and IM id.
        await server.stop()
        for name in ["bob_x", "Bob 鲍勃", String(bob.credentials.uid), bob.credentials.imUid] {
            #expect(try me.localConversation(with: name) == conv, "\(name)")
        }
        #expect(try me.localConversation(with: "nobody_here") == nil)
    }

    /// Profiles cached before accounts were kept (or for a renamed peer) are
    /// fetched again once; a peer's new name from the server reaches the list.
    @Test func cachedProfilesWithoutAccountAreRefreshed() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let me = try await makeSession(server.baseURL, "olga")
        let peer = try await makeSession(server.baseURL, "pavel")
        let conv = try await me.conversation(with: "pavel")
        try me.store.saveProfiles([UserBasicInfo(uid: peer.credentials.uid, username: "old name")])
        try await me.store.dbPool.write { db in try db.execute(sql: "UPDATE profile SET account = NULL") }
        #expect(try me.store.peersLackingProfile() == [peer.credentials.uid])
        await me.sync.fillProfiles(for: nil)
        #expect(try me.store.profile(account: "pavel")?.username == "pavel")
        #expect(try me.store.conversationList().first { $0.id == conv }?.nickname == "pavel")
        #expect(try me.store.peersLackingProfile().isEmpty)
    }

    @Test func registerRefusesClearly() async throws {
        let port = try ReservedPort()
        let server = try await startServer(dir: tempURL("srv"), port: port.port)
        let root = tempURL("reg")
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("d"), cacheDirectory: root.appendingPathComponent("c"),
                               configDirectory: root.appendingPathComponent("k"))
        func register(_ account: String, _ password: String) async throws {
            _ = try await Session.register(server: server.baseURL, account: account, password: password, username: nil, paths: paths)
        }
        await #expect(throws: AccountRules.Problem.badAccount) { try await register("No Spaces", "password-1") }
        await #expect(throws: AccountRules.Problem.badAccount) { try await register("ab", "password-1") }
        await #expect(throws: AccountRules.Problem.shortPassword) { try await register("quinn", "1234567") }
        let creds = try await Session.register(server: server.baseURL, account: "quinn", password: "password-1",
                                               username: "  昆恩  ", paths: paths)
        #expect(creds.username == "昆恩")
        #expect(try Session.saved(paths: paths) == creds)
        await #expect(throws: AccountRules.Problem.accountTaken("quinn")) { try await register("quinn", "password-2") }
        await server.stop()
        let last = await failureOnceStopped { try await register("rosa", "password-1") }
        guard let refused = last as? APIError, case .cannotConnect = refused else { Issue.record("\(String(describing: last))"); return }
        #expect(refused.description.hasPrefix("cannot reach the server"))
    }
}

@Suite(.serialized) struct RenameTests {
    /// A peer renames themselves: the next sync carries the new name into
    /// the list (and the cached profile), with no restart and no refresh.
    @Test func aPeersNewNameReachesTheList() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let me = try await makeSession(server.baseURL, "sonja")
        let peer = try await makeSession(server.baseURL, "timo")
        let conv = try await me.conversation(with: "timo")
        _ = try await me.sync.pull()
        #expect(try me.store.conversationList().first { $0.id == conv }?.nickname == "timo")

        let renamed = try await peer.api.rename(to: "  Timo 提莫  ")
        #expect(renamed.username == "Timo 提莫" && renamed.account == "timo")
        _ = try await me.sync.pull()
        #expect(try me.store.conversationList().first { $0.id == conv }?.nickname == "Timo 提莫")
        #expect(try me.store.profile(account: "timo")?.username == "Timo 提莫")
        #expect(try me.localConversation(with: "Timo 提莫") == conv)
        await #expect(throws: APIError.self) { try await peer.api.rename(to: "   ") }
    }
}
