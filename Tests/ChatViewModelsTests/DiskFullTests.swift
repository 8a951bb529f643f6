import ChatCore
import ChatServer
@testable import ChatStore
@testable import ChatSync
import Foundation
import Synchronization
import Testing
@testable import ChatViewModels

/// The local store as on a full disk, deterministically: its size is capped
/// where it stands and a filler takes every free page, so the next write
/// that needs a new page fails with SQLITE_FULL. (A small row may still fit
/// in the slack of a page it shares with others, so the tests write rows
/// longer than a page.)
func fillDisk(_ store: ChatStore) async throws {
    try await store.dbPool.writeWithoutTransaction { db in
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
        try db.execute(sql: "PRAGMA max_page_count = \(pages + 4)")
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS disk_filler(x BLOB)")
        for size in [4096, 512, 64, 8, 1] {
            while (try? db.execute(sql: "INSERT INTO disk_filler VALUES (randomblob(?))", arguments: [size])) != nil {}
        }
    }
}

func freeDisk(_ store: ChatStore) async throws {
    try await store.dbPool.write { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
}

@Suite(.serialized) @MainActor struct DiskFullTests {
    /// A full disk costs nothing: pulled messages wait on the server (the
    /// cursor stays) and arrive once there is room; a message typed meanwhile
    /// is refused whole, with words that say so, and never half-queued.
    @Test func aFullDiskLosesNothing() async throws {
        let srv = try await server()
        defer { Task { await srv.stop() } }
        let me = try await session(srv.baseURL, "fullme")
        let peer = try await session(srv.baseURL, "fullpeer")
        let conv = try await me.conversation(with: "fullpeer")
        let vm = ConversationViewModel(conversation: try #require(try me.store.conversation(id: conv)), session: me,
                                       localizer: Localizer(language: .zhHans))
        await vm.onAppear()
        let seen = Mutex<[Bool]>([])
        _ = me.sync.observe { update in if case .storage(let full) = update { seen.withLock { $0.append(full) } } }

        let cursor = try me.store.syncCursor()
        for i in 0..<30 { try await peer.sendQueue.sendText("第\(i)条：" + String(repeating: "长", count: 1_500), to: conv) }
        #expect(await peer.sendQueue.drain() == .empty)
        try await fillDisk(me.store)

        await #expect(throws: (any Error).self) { try await me.sync.pull() }
        #expect(seen.withLock { $0 } == [true])
        #expect(try me.store.syncCursor() == cursor, "the cursor stays, so the events are pulled again")
        let typed = "磁盘满时打的字" + String(repeating: "字", count: 1_500)
        #expect(await vm.sendText(typed) == false)
        #expect(vm.errorMessage == "磁盘已满：消息未保存也未发送，仍在输入框中")
        #expect(try me.store.outbox().isEmpty, "nothing half-queued")

        try await freeDisk(me.store)
        _ = try await me.sync.pull()
        #expect(seen.withLock { $0 } == [true, false])
        let texts = try me.store.newestPage(conversationId: conv, limit: 100).messages
            .compactMap { $0.chatMessage(myImUid: me.credentials.imUid).text }
        #expect(texts.count == 30 && texts.first?.hasPrefix("第0条") == true && texts.last?.hasPrefix("第29条") == true)
        #expect(await vm.sendText(typed))
    }
}
