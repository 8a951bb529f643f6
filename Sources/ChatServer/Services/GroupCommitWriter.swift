import Dispatch
import GRDB
import Synchronization

/// Group commit: jobs submitted while a transaction is being written wait and
/// then go together into the next one, each inside its own savepoint, so one
/// failing job (a forbidden key, a constraint) rolls back alone while the
/// others commit. Nobody is answered before the commit that holds their job
/// returned, so an acknowledged job is on disk. Writes run on a queue of
/// their own: waiting requests hold no thread of Swift's cooperative pool.
/// What follows a commit (`finish`: notifications) runs on another serial
/// queue, in commit order, so the next transaction does not wait for it.
final class GroupCommitWriter<Job: Sendable, Output: Sendable>: Sendable {
    typealias Body = @Sendable (Job, Database) throws -> Output
    typealias Finish = @Sendable ([Output]) -> Void

    private struct Pending: Sendable {
        let job: Job
        let continuation: CheckedContinuation<Output, any Error>
    }
    private struct State: Sendable {
        var pending: [Pending] = []
        var running = false
        /// Work for the writer's connection outside a transaction, run
        /// before the next batch (the checkpoint that lets the WAL start over).
        var maintenance: (@Sendable (Database) throws -> Void)?
    }

    private let state = Mutex(State())
    private let db: DatabasePool
    private let queue: DispatchQueue
    private let finishQueue: DispatchQueue
    private let maxBatch: Int
    /// The handlers, set once by `configure`. Kept in a class, not as a
    /// tuple of closures in the mutex: reading a tuple of closures out of
    /// generic storage wrapped each closure in reabstraction thunks on every
    /// batch (the profile showed a chain of them, costing more than the
    /// batch's own SQL at one send per batch).
    private final class Handlers: Sendable {
        let body: Body
        let committed: Finish
        let finish: Finish
        init(body: @escaping Body, committed: @escaping Finish, finish: @escaping Finish) {
            self.body = body
            self.committed = committed
            self.finish = finish
        }
    }
    private let handlers = Mutex<Handlers?>(nil)

    init(db: DatabasePool, label: String, maxBatch: Int = 256) {
        self.db = db
        self.queue = DispatchQueue(label: label)
        self.finishQueue = DispatchQueue(label: label + ".finish")
        self.maxBatch = max(1, maxBatch)
    }

    /// What a job does inside the transaction; what must be done once a
    /// batch committed and before its senders hear so (`committed`, on the
    /// writer: files a commit destroyed); and what may follow (`finish`, on
    /// its own queue: notifications). Both get the batch's outputs in order.
    func configure(body: @escaping Body, committed: @escaping Finish = { _ in }, finish: @escaping Finish) {
        let h = Handlers(body: body, committed: committed, finish: finish)
        handlers.withLock { $0 = h }
    }

    /// Jobs waiting for the next transaction.
    var waiting: Int { state.withLock { $0.pending.count } }

    /// Runs `work` on the writer's connection, outside any transaction,
    /// before the next batch: between two of the writer's own transactions
    /// it waits for no lock. Replaces work requested earlier and not yet run.
    func beforeNextBatch(_ work: @escaping @Sendable (Database) throws -> Void) {
        state.withLock { $0.maintenance = work }
    }

    /// Runs `job` in the next group transaction; returns after its commit.
    func submit(_ job: Job) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { s -> Bool in
                s.pending.append(Pending(job: job, continuation: continuation))
                if s.running { return false }
                s.running = true
                return true
            }
            if start { queue.async { self.drain() } }
        }
    }

    private func drain() {
        while true {
            let (batch, maintenance) = state.withLock { s -> ([Pending], (@Sendable (Database) throws -> Void)?) in
                guard !s.pending.isEmpty else {
                    s.running = false
                    return ([], nil)
                }
                let n = min(maxBatch, s.pending.count)
                let batch = Array(s.pending.prefix(n))
                s.pending.removeFirst(n)
                defer { s.maintenance = nil }
                return (batch, s.maintenance)
            }
            if batch.isEmpty { return }
            if let maintenance {
                // Failing maintenance (a busy reader) costs nothing: the
                // requester asks again later.
                try? db.writeWithoutTransaction { db in try maintenance(db) }
            }
            run(batch)
        }
    }

    private func run(_ batch: [Pending]) {
        guard let h = handlers.withLock({ $0 }) else {
            for p in batch { p.continuation.resume(throwing: CancellationError()) }
            return
        }
        var results: [Result<Output, any Error>] = []
        results.reserveCapacity(batch.count)
        do {
            results = try db.write { db in
                var results: [Result<Output, any Error>] = []
                for p in batch {
                    var output: Output?
                    do {
                        try db.inSavepoint {
                            output = try h.body(p.job, db)
                            return .commit
                        }
                        if let output { results.append(.success(output)) }
                    } catch {
                        results.append(.failure(error))
                    }
                }
                return results
            }
        } catch {
            // The commit itself failed (disk full, I/O): nothing of the batch
            // is stored, and every sender hears so.
            for p in batch { p.continuation.resume(throwing: error) }
            return
        }
        let outputs = results.compactMap { try? $0.get() }
        h.committed(outputs)
        finishQueue.async { h.finish(outputs) }
        for (p, result) in zip(batch, results) { p.continuation.resume(with: result) }
    }
}
