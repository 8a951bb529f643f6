import ChatCore
import Foundation
import GRDB
import Logging
import Testing
@testable import ChatServer
@testable import ChatServerPostgres

/// Group messages are written once, to the group's timeline, and each
/// member's `/chat/sync` reads it for the time they were in the group.
@Suite struct TimelineTests {
    /// The messages a member's sync from the start holds, by clientMsgID.
    private func synced(_ api: API) async throws -> [String] {
        try await api.syncEvents().compactMap { event in
            if case .message(let m) = event { return m.clientMsgID } else { return nil }
        }
    }

    @Test func eachMemberSyncsOnlyTheTimeTheyWereIn() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3, unique: "windows_\(Int.random(in: 0..<1_000_000))")
        let (owner, kicked, leaver) = (users[0].0, users[1], users[2].0)
        let late = try await server.user()
        let conv = g.conversationId
        #expect(try await owner.sendText(conv, "before", id: "before").status == 200)
        #expect(try await late.0.join(g.uniqueName).status == 200)
        #expect(try await owner.sendText(conv, "while", id: "while").status == 200)
        #expect(try await leaver.leave(g.groupId).status == 204)
        #expect(try await owner.sendText(conv, "after leave", id: "afterLeave").status == 200)
        #expect(try await owner.kick(g.groupId, kicked.1).status == 204)
        #expect(try await owner.sendText(conv, "after kick", id: "afterKick").status == 200)

        let mine = ["before", "while", "afterLeave", "afterKick"]
        #expect(try await synced(owner).filter(mine.contains) == mine)
        #expect(try await synced(late.0).filter(mine.contains) == ["while", "afterLeave", "afterKick"],
                "nothing from before the join")
        #expect(try await synced(leaver).filter(mine.contains) == ["before", "while"], "nothing after leaving")
        let kickedSees = try await kicked.0.syncEvents()
        let kickedMessages = kickedSees.compactMap { e -> WireMessage? in if case .message(let m) = e { m } else { nil } }
        #expect(kickedMessages.map(\.clientMsgID).filter(mine.contains) == ["before", "while", "afterLeave"])
        #expect(kickedMessages.last?.contentType == ContentType.memberKicked, "their sync stops at the kick")

        // Deleted for me: gone from the deleter's sync, kept in everyone else's.
        #expect(try await late.0.post("/chat/message/delete",
                                      DeleteMessagesRequest(conversationId: conv, clientMsgIds: ["while"])).status == 204)
        #expect(try await !synced(late.0).contains("while"))
        #expect(try await synced(owner).contains("while"))
        // A reaction to it afterwards is not theirs either, nor is its cursor the end `hello` names.
        #expect(try await owner.post("/chat/message/react", ReactRequest(conversationId: conv, clientMsgId: "while", emoji: "👍",
                                                                         on: true)).status == 200)
        let page = try await late.0.get("/chat/sync?since=0&limit=1000").decode(SyncResponse.self)
        #expect(try server.running.service.syncLog.currentCursor(uid: late.1.uid) == page.cursor)
    }

    @Test func aMemberWhoComesBackMissesOnlyTheTimeAway() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 2, unique: "back_\(Int.random(in: 0..<1_000_000))")
        let (owner, member) = (users[0].0, users[1].0)
        #expect(try await owner.sendText(g.conversationId, "first", id: "first").status == 200)
        #expect(try await member.leave(g.groupId).status == 204)
        #expect(try await owner.sendText(g.conversationId, "gap", id: "gap").status == 200)
        #expect(try await member.join(g.uniqueName).status == 200)
        #expect(try await owner.sendText(g.conversationId, "back", id: "back").status == 200)
        #expect(try await synced(member).filter(["first", "gap", "back"].contains) == ["first", "back"])
    }

    @Test func aGroupMessageIsOneEntryAtOneCursorForEveryMember() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 5)
        let before = try await users.asyncMap { try await $0.0.get("/chat/sync?since=0&limit=1000").decode(SyncResponse.self).cursor }
        #expect(try await users[2].0.sendText(g.conversationId, "one for all", id: "one").status == 200)
        var cursors: Set<Int> = []
        for ((api, _), since) in zip(users, before) {
            let page = try await api.get("/chat/sync?since=\(since)&limit=1000").decode(SyncResponse.self)
            #expect(page.events.count == 1)
            cursors.insert(page.cursor)
        }
        #expect(cursors.count == 1, "the members page to the same entry")

        // Paging a page at a time yields what one page does, cursors rising.
        let whole = try await users[0].0.syncEvents()
        var paged: [SyncEvent] = []
        var since = 0
        while true {
            let page = try await users[0].0.get("/chat/sync?since=\(since)&limit=2").decode(SyncResponse.self)
            paged += page.events
            #expect(page.cursor >= since)
            since = page.cursor
            if !page.hasMore { break }
        }
        #expect(paged == whole)
    }

    /// While members send, join and leave at once, each member's sync holds
    /// the group's seqs without a hole for the time they were in it.
    @Test func syncHasNoHolesWhileMembersSendJoinAndLeave() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let unique = "busy_sync_\(Int.random(in: 0..<1_000_000))"
        let (g, users) = try await makeGroup(server, size: 4, unique: unique)
        var newcomers: [(API, AuthResponse)] = []
        for _ in 0..<3 { newcomers.append(try await server.user()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, (api, _)) in users.dropLast().enumerated() {
                group.addTask { for n in 0..<12 { _ = try await api.sendText(g.conversationId, "\(i)-\(n)") } }
            }
            for (api, _) in newcomers {
                group.addTask {
                    _ = try await api.join(unique)
                    _ = try await api.sendText(g.conversationId, "hi")
                }
            }
            group.addTask { _ = try await users[3].0.leave(g.groupId) }
            try await group.waitForAll()
        }
        func seqs(_ api: API) async throws -> [Int] {
            try await api.syncEvents().compactMap { e -> Int? in
                if case .message(let m) = e, m.conversationId == g.conversationId { return m.seq } else { return nil }
            }
        }
        let maxSeq = try await users[0].0.history(g.conversationId, query: "&limit=1").messages.last?.seq ?? 0
        #expect(try await seqs(users[0].0) == Array(1...maxSeq), "a member throughout has every seq, in order")
        for (api, _) in newcomers {
            let mine = try await seqs(api)
            #expect(!mine.isEmpty && mine == Array((mine.first ?? 1)...maxSeq), "from the join on, without a hole")
        }
        let leaver = try await seqs(users[3].0)
        #expect(leaver.first == 1 && leaver == Array(1...(leaver.last ?? 0)), "up to the leave, without a hole")
    }

    /// Entries logged to each member before timelines existed stay where
    /// they are: a cursor from then still pages on, into the timeline.
    @Test func aCursorFromBeforeTimelinesStillPagesOn() throws {
        let logger = Logger(label: "timeline-test")
        let storage: any ChatStorage
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Two members' copies of two group messages, as servers before timelines logged them.
        let old: [(uid: Int, body: String)] = [(1, #"{"n":1}"#), (2, #"{"n":1}"#), (1, #"{"n":2}"#), (2, #"{"n":2}"#)]
        if let url = try TestServer.freshDatabase() {
            let pool = PostgresPool(configuration: try PostgresURL.parse(url), size: 1, logger: logger)
            defer { pool.shutdown() }
            try pool.withConnection { conn in
                try PostgresMigrations.migrate(conn, upTo: "v4-people")
                try conn.run("INSERT INTO conversation(id, uid_low, uid_high, max_seq, created_at) VALUES ('sg_1', 0, 0, 2, 0)")
                try conn.run("INSERT INTO member(conversation_id, uid) VALUES ('sg_1', 1), ('sg_1', 2)")
                for entry in old {
                    try conn.execute("INSERT INTO event(uid, body, created_at) VALUES (\(entry.uid), \(entry.body), 0)")
                }
                try conn.flush()
            }
            storage = try PostgresStorage.open(url: url, logger: logger)
        } else {
            let pool = try DatabasePool(path: dir.appendingPathComponent("server.sqlite").path)
            try SQLiteMigrations.migrator.migrate(pool, upTo: "v6-people")
            try pool.write { db in
                try db.execute(sql: "INSERT INTO conversation(id, uidLow, uidHigh, maxSeq, createdAt) VALUES ('sg_1', 0, 0, 2, 0)")
                try db.execute(sql: "INSERT INTO member(conversationId, uid) VALUES ('sg_1', 1), ('sg_1', 2)")
                for entry in old {
                    try db.execute(sql: "INSERT INTO event(uid, body, createdAt) VALUES (?, ?, 0)", arguments: [entry.uid, entry.body])
                }
            }
            try SQLiteMigrations.migrator.migrate(pool)
            storage = try SQLiteStorage(pool: pool, logger: logger)
        }
        defer { (storage as? PostgresStorage)?.close() }
        let third = try storage.write { tx in
            try tx.syncLog.appendShared(conversationId: "sg_1", messageId: nil, body: #"{"n":3}"#, createdAt: 0)
        }
        func page(_ uid: Int, after cursor: Int) throws -> [(Int, String)] {
            try storage.read { tx in
                var out: [(Int, String)] = []
                _ = try tx.syncLog.entries(of: uid, after: cursor, limit: 100) { out.append(($0, $1)) }
                return out
            }
        }
        let first = try page(2, after: 0)
        #expect(first.map(\.1) == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
        // The cursor a device of user 2 held after the first message.
        #expect(try page(2, after: first[0].0).map(\.1) == [#"{"n":2}"#, #"{"n":3}"#])
        #expect(try page(1, after: 0).map(\.0).last == third)
        #expect(try storage.read { tx in try tx.syncLog.newestCursor(uid: 2) } == third)
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
