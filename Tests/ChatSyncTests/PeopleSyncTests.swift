import ChatCore
import ChatServer
@testable import ChatStore
import Foundation
import Synchronization
import Testing
@testable import ChatSync

/// PROTOCOL.md v3 "People" between real sessions: friends and requests
/// reach every device's store, a refused send fails with its reason, and a
/// login ended elsewhere stops the engine.
@Suite(.serialized) struct PeopleSyncTests {
    @Test func friendsAndRequestsReachTheStoreOfEveryDevice() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "ppl_asker")
        let b = try await makeSession(server.baseURL, "ppl_taker")
        let bLaptop = try await makeSession(server.baseURL, "ppl_taker")
        let bInfo = try #require(try await a.user(account: "ppl_taker"))
        #expect(try await a.user(account: "nobody_here") == nil)

        _ = try await a.requestFriend(bInfo, message: "你好")
        try await b.sync.pull()
        try await bLaptop.sync.pull()
        for s in [b, bLaptop] {
            let pending = try s.reader.friendRequests()
            #expect(pending.map(\.message) == ["你好"] && pending.first?.from.account == "ppl_asker")
        }
        let request = try #require(try b.reader.friendRequests().first)
        _ = try await b.respondFriend(request.requestId, accept: true)
        #expect(try b.reader.friendRequests().isEmpty, "answered here: gone at once")
        #expect(try b.reader.contacts().map(\.account) == ["ppl_asker"])
        try await a.sync.pull()
        try await bLaptop.sync.pull()
        #expect(try a.reader.contacts().map(\.account) == ["ppl_taker"])
        #expect(try bLaptop.reader.contacts().map(\.account) == ["ppl_asker"], "and on the other device")
        #expect(try bLaptop.reader.friendRequests().isEmpty)

        _ = try await a.setRemark("小塔", for: bInfo.uid)
        #expect(try a.reader.contacts().first?.shownName == "小塔")
        try await b.removeFriend(try #require(try b.reader.contacts().first))
        try await a.sync.pull()
        #expect(try a.reader.contacts().isEmpty && b.reader.contacts().isEmpty)
    }

    @Test func aSendToSomeoneWhoBlockedMeFailsWithTheReasonAndCanBeRetried() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "blk_sender")
        let b = try await makeSession(server.baseURL, "blk_owner")
        try await b.block(a.credentials.uid)
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        try await a.sendQueue.sendText("你在吗", to: conv, clientMsgID: "refused")
        _ = await a.sendQueue.drain()
        let m = try #require(try a.store.message(clientMsgID: "refused"))
        #expect(m.status == MessageStatus.failed.rawValue && m.errorReason == MessageStatus.blockedReason)

        try await b.unblock(a.credentials.uid)
        try await a.sendQueue.retry(clientMsgID: "refused")
        #expect(await a.sendQueue.drain() == .empty)
        #expect(try a.store.message(clientMsgID: "refused")?.status == MessageStatus.success.rawValue)
    }

    @Test func aDeviceSignedOutElsewhereStopsAndSaysSoByItsSocket() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let phone = try await makeSession(server.baseURL, "two_places")
        let laptop = try await makeSession(server.baseURL, "two_places")
        let heard = Mutex<[String]>([])
        laptop.sync.observe { update in
            if case .signedOut = update { heard.withLock { $0.append("signedOut") } }
        }
        laptop.sync.start()
        defer { laptop.sync.stop() }
        #expect(await eventually { laptop.sync.state == .online })

        let other = try #require(try await phone.devices().first { !$0.current })
        try await phone.signOut(device: other.sessionId)
        // The poll waits 30 s while online: only the socket's 4001 can say it this soon.
        #expect(await eventually { heard.withLock { $0 } == ["signedOut"] })
        #expect(laptop.sync.isSignedOut)
        #expect(try laptop.store.syncCursor() >= 0, "the store is kept for the next login")
    }

    @Test func aPullRefusedWith401SaysTheLoginEnded() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let phone = try await makeSession(server.baseURL, "gone_token")
        let laptop = try await makeSession(server.baseURL, "gone_token")
        let heard = Mutex(0)
        laptop.sync.observe { if case .signedOut = $0 { heard.withLock { $0 += 1 } } }
        let other = try #require(try await phone.devices().first { !$0.current })
        try await phone.signOut(device: other.sessionId)
        await #expect { try await laptop.sync.pull() } throws: { ($0 as? APIError)?.code == .unauthorized }
        await #expect { try await laptop.sync.pull() } throws: { _ in true }
        #expect(heard.withLock { $0 } == 1, "said once")
    }

    @Test func anyCallRefusedWith401EndsTheLogin() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let phone = try await makeSession(server.baseURL, "any_call")
        let laptop = try await makeSession(server.baseURL, "any_call")
        let heard = Mutex(0)
        laptop.sync.observe { if case .signedOut = $0 { heard.withLock { $0 += 1 } } }
        let other = try #require(try await phone.devices().first { !$0.current })
        try await phone.signOut(device: other.sessionId)
        await #expect { try await laptop.myProfile() } throws: { ($0 as? APIError)?.code == .unauthorized }
        #expect(heard.withLock { $0 } == 1 && laptop.sync.isSignedOut, "an action, not only a pull")
        // A wrong password at sign-in is no login ending (no token was sent).
        await #expect { try await Session.login(server: server.baseURL, account: "any_call", password: "wrong-password",
                                                paths: laptop.paths) } throws: { ($0 as? APIError)?.code == .unauthorized }
    }
}
