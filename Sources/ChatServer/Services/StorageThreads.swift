import Hummingbird
import NIOPosix

/// Threads of their own for request handling, which runs the services'
/// synchronous transactions. Swift concurrency's cooperative pool has one
/// thread per core (two here): a handler waiting there for PostgreSQL's
/// round trips or for SQLite's writer held one of them, and every other
/// request and socket waited with it. Handlers that prefer this executor
/// (`StorageThreadsMiddleware`, the socket's upgrade and `hello`) wait on
/// these threads instead, as many at once as there are threads, while the
/// cooperative pool stays free for everything else.
final class StorageThreads: TaskExecutor, Sendable {
    private let pool: NIOThreadPool
    let count: Int

    init(threads: Int) {
        count = threads
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.submit { [self] state in
            // A pool that is shutting down hands the work back on the
            // caller's thread: it goes to the global executor instead.
            guard case .active = state else { return globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}

/// Every authenticated route's handler, token check included, on the storage threads.
struct StorageThreadsMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext
    let threads: StorageThreads?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let threads else { return try await next(request, context) }
        return try await withTaskExecutorPreference(threads) { try await next(request, context) }
    }
}
