import ChatCore
import Foundation
import Logging
import PostgresNIO
import Testing
@testable import ChatServer
@testable import ChatServerPostgres

/// One group-commit batch holding every case a single-chat send can be. On
/// PostgreSQL the plain sends are written together (`writeSendBatch`) and
/// the rest one by one; on SQLite all one by one. Nothing a user sees may
/// tell the two apart.
@Suite struct SendBatchTests {
    @Test func aMixedBatchEndsAsTheSameSendsOneByOneWould() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (b, ub) = try await server.user()
        let (c, uc) = try await server.user()
        let ac = conversationId(ua, uc), ab = conversationId(ua, ub)
        #expect(try await a.sendText(ac, "earlier", id: "a-earlier").status == 200)
        #expect(try await c.sendText(ac, "c's", id: "c-owned").status == 200)
        #expect(try await c.post("/chat/conversation/delete", ConversationIDRequest(conversationId: ac)).status == 204)

        let messages = server.running.service.messages
        func job(_ conversation: String, _ text: String, id: String) throws -> MessageService.SendJob {
            try messages.prepareSend(caller: ua.uid, request: SendMessageRequest(recvID: conversation, content: text,
                                                                                contentType: 101, clientMsgId: id))
        }
        let jobs = [
            try job(ac, "one", id: "n1"),
            try job(ab, "first to b", id: "n2"),  // no conversation yet: it is made
            try job(ac, "two", id: "n3"),
            try job(ac, "again", id: "a-earlier"),  // a retry: the stored message
            try job(ac, "taken", id: "c-owned"),  // the peer's id: refused
            try job(ac, "three", id: "n4"),
            try job(ac, "three again", id: "n4"),  // twice in one batch: stored once
            try job(ab, "second to b", id: "n5"),
        ]
        var inBatch: [Int] = []
        let results = try server.storage.writeGroup(jobs, bulk: { jobs, tx in
                                                        let outputs = try messages.writeSendBatch(jobs, in: tx)
                                                        inBatch = outputs.indices.filter { outputs[$0] != nil }
                                                        return outputs
                                                    }, { try messages.writeSend($0, in: $1) })
        let writes = results.map { try? $0.get() }
        let postgres = server.storage as? PostgresStorage
        #expect(postgres?.bulkFallbacks ?? 0 == 0, "the batch was written together")
        // The chat with b is made in the batch; the peer's id and the id's second use are left to writeSend.
        if postgres != nil { #expect(inBatch == [0, 1, 2, 3, 5, 7], "\(inBatch)") }
        var together: [Int] = []
        _ = try server.storage.writeGroup([try job(ac, "four", id: "n6"), try job(ab, "third to b", id: "n7")],
                                          bulk: { jobs, tx in
                                              let outputs = try messages.writeSendBatch(jobs, in: tx)
                                              together = outputs.indices.filter { outputs[$0] != nil }
                                              return outputs
                                          }, { try messages.writeSend($0, in: $1) })
        if postgres != nil { #expect(together == [0, 1], "both chats exist now: both sends went together") }
        #expect(writes.map { $0?.row.seq } == [3, 1, 4, 1, nil, 5, 5, 2])
        #expect(writes.map { $0?.isNew } == [true, true, true, false, nil, true, false, true])
        #expect(writes[6]?.row.serverMsgID == writes[5]?.row.serverMsgID)
        #expect(writes[3]?.row.content == "earlier")
        if case .failure(let error) = results[4] {
            #expect((error as? APIFailure)?.code == .conflict)
        } else {
            Issue.record("the peer's clientMsgId was taken over")
        }
        #expect(Set(writes[0]?.cursors.keys.map { $0 } ?? []) == [ua.uid, uc.uid], "logged to both")

        #expect(try await a.history(ac).messages.map(\.content) == ["earlier", "c's", "one", "two", "three", "four"])
        #expect(try await b.history(ab).messages.map(\.content) == ["first to b", "second to b", "third to b"])
        // Each new message is in the peer's log once, and the deleted chat is back with them unread.
        let logged = try await c.syncEvents().compactMap { event -> Int? in
            if case .message(let m) = event, m.conversationId == ac { return m.seq } else { return nil }
        }
        #expect(logged == [1, 2, 3, 4, 5, 6])
        let cSummary = try await c.summary(ac)
        #expect(cSummary?.unreadCount == 4 && cSummary?.maxSeq == 6)
        #expect(try await a.summary(ac)?.unreadCount == 0, "the sender has read what they sent")
        #expect(try await b.summary(ab)?.unreadCount == 3)
    }

    /// A batch's retry lookup goes along the indexes even while the message
    /// table is small enough that the planner would rather hash all of it:
    /// a fresh server's every batch then read the whole table (1-9 ms each,
    /// growing with it). On PostgreSQL only; `make test` runs the suite there.
    @Test func theRetryLookUpGoesAlongTheIndexesOnASmallTable() throws {
        guard let url = try TestServer.freshDatabase() else { return }
        let pool = PostgresPool(configuration: try PostgresURL.parse(url), size: 1, logger: Logger(label: "plan-test"))
        defer { pool.shutdown() }
        let plan = try pool.withConnection { conn -> String in
            try PostgresMigrations.migrate(conn)
            // 3,000 messages in 100 chats: the plain join hashed a table of this size.
            try conn.run("""
                INSERT INTO message(server_msg_id, client_msg_id, sender_uid, conversation_id, seq, send_id, recv_id,
                                    content_type, content, send_time)
                SELECT 's' || n, 'c' || n, n % 200, 'si_' || (n % 100), n, '', '', 101, 'text', 0
                FROM generate_series(1, 3000) AS n
                """)
            let keys = (0..<120).map { (clientMsgID: "new-\($0)", sender: $0 % 200, conversationId: "si_\($0 % 100)") }
            let lookup = PostgresSendBatchRepository.matching(keys)
            return try conn.query(PostgresQuery(unsafeSQL: "EXPLAIN " + lookup.sql, binds: lookup.binds))
                .map { try $0.decode(String.self) }.joined(separator: "\n")
        }
        #expect(!plan.contains("Seq Scan on message"), "\(plan)")
        #expect(plan.contains("Index Scan using message_sender_uid_client_msg_id_key"), "\(plan)")
        #expect(plan.contains("Index Scan using message_conversation_client"), "\(plan)")
    }

    /// A text PostgreSQL cannot store (U+0000) fails the batch's statement;
    /// then each send goes alone and only that one is refused (SQLite stores it).
    @Test func aSendTheDatabaseRefusesFailsAloneInABatch() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ua) = try await server.user()
        let (_, ub) = try await server.user()
        let ab = conversationId(ua, ub)
        #expect(try await a.sendText(ab, "hello", id: "h").status == 200)
        let messages = server.running.service.messages
        let jobs = try ["before", "nul \u{0}", "after"].enumerated().map { i, text in
            try messages.prepareSend(caller: ua.uid, request: SendMessageRequest(recvID: ab, content: text,
                                                                                contentType: 101, clientMsgId: "x\(i)"))
        }
        let results = try server.storage.writeGroup(jobs, bulk: { try messages.writeSendBatch($0, in: $1) },
                                                    { try messages.writeSend($0, in: $1) })
        if let postgres = server.storage as? PostgresStorage { #expect(postgres.bulkFallbacks == 1) }
        let stored = try await a.history(ab).messages
        #expect(stored.map(\.seq) == Array(1...stored.count), "no holes")
        #expect(stored.map(\.content).filter { !$0.hasPrefix("nul") } == ["hello", "before", "after"])
        if TestServer.postgresAdminURL != nil {
            #expect((try? results[1].get()) == nil && stored.count == 3)
        } else {
            #expect(stored.count == 4)
        }
    }

    /// Group sends in one batch: on PostgreSQL written together, each once
    /// to the group's timeline; a sender who is not in the group is
    /// refused alone; a member who had deleted the chat and sends in the
    /// batch sees it again, with their own send read.
    @Test func groupSendsInABatchGoOnceToTheTimeline() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (g, users) = try await makeGroup(server, size: 3)
        let (owner, member, hider) = (users[0], users[1], users[2])
        let outsider = try await server.user()
        let conv = g.conversationId
        #expect(try await hider.0.post("/chat/conversation/delete", ConversationIDRequest(conversationId: conv)).status == 204)
        let messages = server.running.service.messages
        func job(_ who: AuthResponse, _ text: String) throws -> MessageService.SendJob {
            try messages.prepareSend(caller: who.uid, request: SendMessageRequest(recvID: conv, content: text, contentType: 101,
                                                                                 clientMsgId: UUID().uuidString))
        }
        var together: [Int] = []
        let results = try server.storage.writeGroup(
            [try job(owner.1, "one"), try job(outsider.1, "not a member"), try job(member.1, "two"), try job(hider.1, "three")],
            bulk: { jobs, tx in
                let outputs = try messages.writeSendBatch(jobs, in: tx)
                together = outputs.indices.filter { outputs[$0] != nil }
                return outputs
            }, { try messages.writeSend($0, in: $1) })
        if server.storage is PostgresStorage {
            #expect(together == [0, 2, 3], "the members' sends went together")
            #expect((server.storage as? PostgresStorage)?.bulkFallbacks == 0)
        }
        let writes = results.map { try? $0.get() }
        #expect(writes.map { $0?.row.seq } == [2, nil, 3, 4])
        if case .failure(let error) = results[1] {
            #expect((error as? APIFailure)?.code == .forbidden)
        } else {
            Issue.record("an outsider's send went into the group")
        }
        #expect(Set(writes[0]?.cursors.keys.map { $0 } ?? []) == Set(users.map(\.1.uid)), "every member is told")
        #expect(Set(writes[0]?.cursors.values.map { $0 } ?? []).count == 1, "of one entry")
        for (api, _) in users {
            let texts = try await api.syncEvents().compactMap { e -> String? in
                if case .message(let m) = e, m.conversationId == conv, m.contentType == 101 { return m.content } else { return nil }
            }
            #expect(texts == ["one", "two", "three"])
        }
        // The one who had deleted the chat sent from another device: it is back, and read up to their own send.
        let back = try await hider.0.conversations().first { $0.conversationId == conv }
        #expect(back != nil && back?.unreadCount == 0)
        #expect(try await owner.0.summary(conv)?.unreadCount == 2, "the owner has the two later ones to read")
        #expect(try await member.0.summary(conv)?.unreadCount == 1)
    }
}
