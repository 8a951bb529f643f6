import ChatCore
import Dispatch
import Foundation
import GRDB
import Logging
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

        let writer = GroupCommitWriter<Int, Int>(storage: try SQLiteStorage(pool: db), label: "test.gcw")
        let release = DispatchSemaphore(value: 0)
        let batches = Mutex<[[Int]]>([])
        let firstRunning = Mutex(false)
        writer.configure(body: { job, tx in
            if job == 0 {  // holds the first transaction open
                firstRunning.withLock { $0 = true }
                release.wait()
            }
            try (tx as! SQLiteTransaction).db.execute(sql: "INSERT INTO t(x) VALUES (?)", arguments: [job])
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

@Suite struct CheckpointerTests {
    /// A WAL database without SQLite's own checkpoints, and a writer that
    /// inserts a 3 KB row (one WAL page or more) per job.
    static func fixture() async throws -> (URL, String, DatabasePool, SQLiteStorage, GroupCommitWriter<Int, Int>) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ckpt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("t.sqlite").path
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let db = try DatabasePool(path: path, configuration: config)
        try await db.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL, pad BLOB NOT NULL)") }
        let storage = try SQLiteStorage(pool: db)
        let writer = GroupCommitWriter<Int, Int>(storage: storage, label: "test.ckpt")
        writer.configure(body: { job, tx in
            try (tx as! SQLiteTransaction).db.execute(sql: "INSERT INTO t(x, pad) VALUES (?, zeroblob(3000))", arguments: [job])
            return job
        }, finish: { _ in })
        return (dir, path, db, storage, writer)
    }

    /// Under unbroken writes SQLite never starts its WAL over by itself; the
    /// checkpointer copies the WAL beside the writer and, past its limit,
    /// has the writer restart it between two batches. Nothing is lost.
    @Test func walIsCopiedAndRestartedBetweenBatches() async throws {
        let (dir, path, db, storage, writer) = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let checkpointer = try Checkpointer(path: path, interval: .zero, restartFrames: 50, logger: Logger(label: "test"),
                                            onWriter: { work in storage.beforeNextGroup(work) })
        func walFrames() throws -> Int {
            try db.writeWithoutTransaction { try $0.checkpoint(.passive) }.walFrameCount
        }

        // A reader holding an old snapshot stands for the unbroken writes of
        // a busy server: the passive checkpoint cannot copy the whole WAL, so
        // SQLite would not start it over at the next transaction.
        for i in 0..<50 { _ = try await writer.submit(i) }
        let reader = try DatabaseQueue(path: path)
        let holding = Mutex(false)
        let released = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        Thread {
            try? reader.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
                holding.withLock { $0 = true }
                release.wait()
            }
            released.withLock { $0 = true }
        }.start()
        while !holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        for i in 50..<100 { _ = try await writer.submit(i) }
        let before = try walFrames()
        #expect(before >= 100, "every commit appended to the WAL: \(before) frames")
        checkpointer.run()  // copies what it may; more than 50 frames: asks for a restart
        release.signal()
        while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        _ = try await writer.submit(100)  // the restart runs before this batch
        let after = try walFrames()
        #expect(after < 10, "the WAL started over: \(after) frames after \(before)")
        let stored = try await db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }
        #expect(stored == 101)
    }
}

extension CheckpointerTests {
    /// Commits that come within the interval of a checkpoint are copied by a
    /// trailing one, so after a burst the WAL is fully copied and the next
    /// write starts it over.
    @Test func theLastCommitsOfABurstAreCopiedToo() async throws {
        let (dir, path, db, storage, writer) = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let checkpointer = try Checkpointer(path: path, interval: .milliseconds(100), logger: Logger(label: "test"),
                                            onWriter: { work in storage.beforeNextGroup(work) })
        for i in 0..<30 {
            _ = try await writer.submit(i)
            checkpointer.committed()  // all within one interval: one checkpoint trails the burst
        }
        // Until the trailing checkpoint has run and none is due.
        let deadline = ContinuousClock.now + .seconds(10)
        while !(checkpointer.checkpointsCompleted >= 1 && checkpointer.isIdle) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(checkpointer.isIdle)
        _ = try await writer.submit(100)
        let frames = try await db.writeWithoutTransaction { try $0.checkpoint(.passive) }.walFrameCount
        #expect(frames < 10, "the WAL started over after the burst: \(frames) frames")
    }
}

@Suite struct AfterSendHookTests {
    /// The after-send hook (the demo peers) is called at the same stack
    /// depth on the 300th send as on the first. Kept bare in its mutex, the
    /// closure would gain two reabstraction thunks per send, so the n-th
    /// send would run through 2n of them (see AfterSendHook).
    @Test func hookDepthDoesNotGrowWithSends() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (_, a) = try await server.user()
        let (_, b) = try await server.user()
        let depths = Mutex<[Int]>([])
        server.running.service.notices.afterSend.withLock {
            $0 = AfterSendHook { _ in
                let depth = Thread.callStackReturnAddresses.count
                depths.withLock { $0.append(depth) }
            }
        }
        let conv = conversationId(a, b)
        for i in 0..<300 {
            _ = try server.running.service.messages.send(caller: a.uid, request: SendMessageRequest(
                recvID: conv, content: "m\(i)", contentType: ContentType.text, clientMsgId: "hook-\(i)"))
        }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 300)
        if let first = seen.first, let last = seen.last {
            #expect(last - first < 8, "stack depth \(first) at the first send, \(last) at the 300th")
        }
    }
}
