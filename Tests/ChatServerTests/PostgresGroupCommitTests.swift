import Dispatch
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
@testable import ChatServer
@testable import ChatServerPostgres

/// The group commit on PostgreSQL, where every node's writes take turns at
/// one cluster-wide lock.
@Suite(.serialized, .enabled(if: TestServer.postgresAdminURL != nil, "needs TONGBAN_TEST_DATABASE_URL"))
struct PostgresGroupCommitTests {
    /// While another node commits, a node's sends keep arriving; those that
    /// arrive while its transaction waits for the lock go into that
    /// transaction, not into one more after it.
    @Test func sendsArrivingWhileAnotherNodeHoldsTheLockJoinTheWaitingTransaction() async throws {
        let url = try #require(try TestServer.freshDatabase())
        let logger = Logger(label: "test.pg-gcw")
        let storage = try PostgresStorage.open(url: url, logger: logger)
        defer { storage.close() }
        let config = try PostgresURL.parse(url)
        let otherNode = PostgresPool(configuration: config, size: 1, logger: logger)
        let observer = PostgresPool(configuration: config, size: 1, logger: logger)
        defer { otherNode.shutdown(); observer.shutdown() }

        let writer = GroupCommitWriter<Int, Int64>(storage: storage, label: "test.pg-gcw")
        writer.configure(body: { _, tx in
            guard let row = try (tx as? PostgresTransaction)?.conn.query("SELECT txid_current()").first else {
                throw PostgresTestFailure(description: "no transaction id")
            }
            return try row.decode(Int64.self)
        }, finish: { _ in })

        // The other node: a write transaction holding the lock until told to commit.
        let commit = DispatchSemaphore(value: 0)
        defer { commit.signal() }  // a failing step must not leave the other node holding the lock
        try await withCheckedThrowingContinuation { (held: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                var told = false
                do {
                    try otherNode.withConnection { conn in
                        try conn.transaction(holding: PostgresStorage.writeLock) {
                            try conn.flush()
                            told = true
                            held.resume()
                            commit.wait()
                        }
                    }
                } catch {
                    if !told { held.resume(throwing: error) }
                }
            }
        }

        let first = Task { try await writer.submit(0) }
        func lockWaiters() throws -> Int64 {
            try observer.withConnection { conn in
                // This test's database only: other tests' nodes take the same lock in theirs.
                try conn.query("""
                    SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """).first?.decode(Int64.self) ?? 0
            }
        }
        for _ in 0..<500 {
            if try lockWaiters() > 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try lockWaiters() == 1, "the first send's transaction waits for the other node's lock")
        let rest = (1...4).map { i in Task { try await writer.submit(i) } }
        for _ in 0..<500 {
            if writer.waiting >= 4 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(writer.waiting == 4, "four more sends arrived while it waited")

        commit.signal()
        var transactions: Set<Int64> = [try await first.value]
        for task in rest { transactions.insert(try await task.value) }
        #expect(transactions.count == 1, "one transaction for all five sends, not one for the first and one for the rest")
    }
}

struct PostgresTestFailure: Error, CustomStringConvertible {
    let description: String
}
