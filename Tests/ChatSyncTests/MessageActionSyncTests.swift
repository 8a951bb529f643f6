import ChatCore
import ChatServer
@testable import ChatStore
import Foundation
import Testing
@testable import ChatSync

/// PROTOCOL.md v3 "Acting on a message" between real sessions: what one
/// device does reaches the peer and the user's other device through sync.
@Suite(.serialized) struct MessageActionSyncTests {
    @Test func reactionsEditsAndDeletesReachEveryDevice() async throws {
        let server = try await startServer(dir: tempURL("srv"))
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "actor")
        let laptop = try await makeSession(server.baseURL, "actor")  // the same user, another device
        let b = try await makeSession(server.baseURL, "watcher")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        try await a.sendQueue.sendText("九点开会", to: conv, clientMsgID: "t1")
        try await b.sendQueue.sendText("收到", to: conv, clientMsgID: "t2")
        #expect(await a.sendQueue.drain() == .empty)
        #expect(await b.sendQueue.drain() == .empty)
        for s in [a, laptop, b] { try await s.sync.pull() }

        try await b.react(to: "t1", in: conv, emoji: "👍", on: true)
        #expect(try b.store.message(clientMsgID: "t1")?.reactions.users(of: "👍") == [b.credentials.imUid], "at once where it was done")
        try await a.edit("t1", in: conv, to: "十点开会")
        #expect(try a.store.message(clientMsgID: "t1")?.content == "十点开会")
        try await a.deleteForMe(["t2"], in: conv)
        #expect(try a.store.message(clientMsgID: "t2") == nil)
        #expect(try a.store.missingRanges(conversationId: conv).isEmpty, "the deleted seq is no gap to fetch")

        for s in [a, laptop, b] { try await s.sync.pull() }
        for s in [a, laptop, b] {
            let t1 = try #require(try s.store.message(clientMsgID: "t1"))
            #expect(t1.content == "十点开会" && t1.editedAt != nil && t1.reactions.users(of: "👍") == [b.credentials.imUid])
        }
        for s in [a, laptop] {
            // With the newer message deleted here, the edited one is the list's preview.
            #expect(try s.reader.conversation(id: conv, localizer: Localizer(language: .zhHans))?.lastMessagePreview == "十点开会")
        }
        #expect(try laptop.store.message(clientMsgID: "t2") == nil, "deleted on my other device too")
        #expect(try b.store.message(clientMsgID: "t2")?.content == "收到", "the peer keeps it")
        // Taken back, the reaction is gone everywhere.
        try await b.react(to: "t1", in: conv, emoji: "👍", on: false)
        for s in [a, laptop] { try await s.sync.pull() }
        #expect(try laptop.store.message(clientMsgID: "t1")?.reactions.isEmpty == true)
    }

    @Test func aLateEditIsRefusedAndChangesNothing() async throws {
        let clock = ManualClock(ms: 1_800_000_000_000)
        let server = try await startServer(dir: tempURL("srv")) { $0.editWindowSeconds = 60; $0.clock = clock.clock }
        defer { Task { await server.stop() } }
        let a = try await makeSession(server.baseURL, "late1")
        let b = try await makeSession(server.baseURL, "late2")
        let conv = ConversationIDHelper.make(myUid: a.credentials.uid, targetUid: b.credentials.uid)
        try await a.sendQueue.sendText("原话", to: conv, clientMsgID: "old")
        #expect(await a.sendQueue.drain() == .empty)
        clock.advance(ms: 61_000)
        await #expect { try await a.edit("old", in: conv, to: "改了") } throws: { ($0 as? APIError)?.code == .editWindowPassed }
        #expect(try a.store.message(clientMsgID: "old")?.content == "原话")
        #expect(try a.store.message(clientMsgID: "old")?.editedAt == nil)
    }
}
