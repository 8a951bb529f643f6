import Dispatch
import Synchronization

/// Group commit: jobs submitted while a transaction is being written wait and
/// then go together into the next one, each inside its own savepoint
/// (`ChatStorage.writeGroup`), so one failing job (a forbidden key, a
/// constraint) rolls back alone while the others commit. Jobs that arrive
/// while a transaction still waits for its write lock (PostgreSQL: another
/// node committing) join that one. Nobody is answered
/// before the commit that holds their job returned, so an acknowledged job
/// is stored. Writes run on a queue of their own: waiting requests hold no
/// thread of Swift's cooperative pool. What follows a commit (`finish`:
/// notifications) runs on another serial queue, in commit order, so the
/// next transaction does not wait for it.
final class GroupCommitWriter<Job: Sendable, Output: Sendable>: Sendable {
    typealias Body = @Sendable (Job, any StorageTransaction) throws -> Output
    typealias Bulk = @Sendable ([Job], any StorageTransaction) throws -> [Output?]
    typealias Finish = @Sendable ([Output]) -> Void

    private struct Pending: Sendable {
        let job: Job
        let continuation: CheckedContinuation<Output, any Error>
    }
    private struct State: Sendable {
        var pending: [Pending] = []
        var running = false
    }

    private let state = Mutex(State())
    private let storage: any ChatStorage
    private let queue: DispatchQueue
    private let finishQueue: DispatchQueue
    private let maxBatch: Int
    /// The handlers, set once by `configure`. Kept in a class, not as a
    /// tuple of closures in the mutex: reading a tuple of closures out of
    /// generic storage wraps each closure in reabstraction thunks on every
    /// batch.
    private final class Handlers: Sendable {
        let bulk: Bulk?
        let body: Body
        let committed: Finish
        let finish: Finish
        init(bulk: Bulk?, body: @escaping Body, committed: @escaping Finish, finish: @escaping Finish) {
            self.bulk = bulk
            self.body = body
            self.committed = committed
            self.finish = finish
        }
    }
    private let handlers = Mutex<Handlers?>(nil)

    init(storage: any ChatStorage, label: String, maxBatch: Int = 256) {
        self.storage = storage
        self.queue = DispatchQueue(label: label)
        self.finishQueue = DispatchQueue(label: label + ".finish")
        self.maxBatch = max(1, maxBatch)
    }

    /// What a batch's jobs do together where the backend prefers that
    /// (`bulk`: an output per job it wrote, nil for each it left; see
    /// `ChatStorage.writeGroup(_:bulk:_:)`); what a job does alone inside
    /// the transaction; what must be done once a batch committed and before
    /// its senders hear so (`committed`, on the writer: files a commit
    /// destroyed); and what may follow (`finish`, on its own queue:
    /// notifications). Both get the batch's outputs in order.
    func configure(bulk: Bulk? = nil, body: @escaping Body, committed: @escaping Finish = { _ in },
                   finish: @escaping Finish) {
        let h = Handlers(bulk: bulk, body: body, committed: committed, finish: finish)
        handlers.withLock { $0 = h }
    }

    /// Jobs waiting for the next transaction.
    var waiting: Int { state.withLock { $0.pending.count } }

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
            let batch = take(maxBatch, stopping: true)
            if batch.isEmpty { return }
            run(batch)
        }
    }

    /// Up to `limit` waiting jobs, oldest first. With `stopping`, finding
    /// none ends the drain (a later submit starts the next).
    private func take(_ limit: Int, stopping: Bool) -> [Pending] {
        state.withLock { s -> [Pending] in
            guard !s.pending.isEmpty else {
                if stopping { s.running = false }
                return []
            }
            let n = min(limit, s.pending.count)
            let batch = Array(s.pending.prefix(n))
            s.pending.removeFirst(n)
            return batch
        }
    }

    private func run(_ batch: [Pending]) {
        guard let h = handlers.withLock({ $0 }) else {
            for p in batch { p.continuation.resume(throwing: CancellationError()) }
            return
        }
        // The batch grows by what arrived while its transaction waited for
        // the write lock (PostgreSQL: another node's commit).
        var taken = batch
        let more = { () -> [Pending] in
            let extra = self.take(self.maxBatch - taken.count, stopping: false)
            taken += extra
            return extra
        }
        let results: [Result<Output, any Error>]
        do {
            let bulk = h.bulk.map { bulk in { (ps: [Pending], tx: any StorageTransaction) in try bulk(ps.map(\.job), tx) } }
            results = try storage.writeGroup(batch, more: more, bulk: bulk) { p, tx in try h.body(p.job, tx) }
        } catch {
            // The commit itself failed (disk full, I/O): nothing of the batch
            // is stored, and every sender hears so.
            for p in taken { p.continuation.resume(throwing: error) }
            return
        }
        let outputs = results.compactMap { try? $0.get() }
        h.committed(outputs)
        finishQueue.async { h.finish(outputs) }
        for (p, result) in zip(taken, results) { p.continuation.resume(with: result) }
    }
}
