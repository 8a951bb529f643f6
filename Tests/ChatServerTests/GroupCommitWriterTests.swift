import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing
@testable import ChatServer

@Suite struct GroupCommitWriterTests {
    struct Refused: Error {}

    /// Jobs that arrive while a transaction is written share the next one;
    /// a failing job in it rolls back alone and the others commit.
    @Test func waitingJobsShareOneTransactionAndAFailureRollsBackAlone() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gcw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try DatabasePool(path: dir.appendingPathComponent("t.sqlite").path)
        try await db.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL UNIQUE)") }

        let writer = GroupCommitWriter<Int, Int>(db: db, label: "test.gcw")
        let release = DispatchSemaphore(value: 0)
        let batches = Mutex<[[Int]]>([])
        let firstRunning = Mutex(false)
        writer.configure(body: { job, db in
            if job == 0 {  // holds the first transaction open
                firstRunning.withLock { $0 = true }
                release.wait()
            }
            try db.execute(sql: "INSERT INTO t(x) VALUES (?)", arguments: [job])
            if job == 3 { throw Refused() }  // after its insert: the savepoint must undo it
            return job
        }, finish: { outputs in batches.withLock { $0.append(outputs) } })

        let first = Task { try await writer.submit(0) }
        for _ in 0..<500 where !firstRunning.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        let rest = (1...5).map { i in Task { try await writer.submit(i) } }
        for _ in 0..<500 where writer.waiting < 5 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(writer.waiting == 5, "the five jobs wait behind the open transaction")
        release.signal()

        #expect(try await first.value == 0)
        var outcomes: [Int: Bool] = [:]
        for (i, task) in rest.enumerated() {
            do { _ = try await task.value; outcomes[i + 1] = true } catch { outcomes[i + 1] = false }
        }
        #expect(outcomes == [1: true, 2: true, 3: false, 4: true, 5: true])
        // `finish` runs after the commits, on its own queue.
        for _ in 0..<500 where batches.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        let seen = batches.withLock { $0 }
        #expect(seen.count == 2 && seen.first == [0], "\(seen)")
        #expect(Set(seen.last ?? []) == [1, 2, 4, 5], "one commit for the four that waited: \(seen)")
        let stored = try await db.read { db in try Int.fetchAll(db, sql: "SELECT x FROM t ORDER BY x") }
        #expect(stored == [0, 1, 2, 4, 5], "the refused job left nothing behind")
    }
}
