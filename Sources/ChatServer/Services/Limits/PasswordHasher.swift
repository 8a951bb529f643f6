import Foundation

/// Password hashing on threads of its own (PROTOCOL.md v4): at most
/// `threads` hashes at once and `queue` waiting; past that a sign-in or
/// sign-up is refused at once (429) instead of holding up the threads that
/// serve everyone else's requests, `/healthz` among them.
final class PasswordHasher: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var busy = 0
    private var stopped = false
    private let threadCount: Int
    private let queueLimit: Int

    init(threads: Int, queue: Int) {
        threadCount = max(1, threads)
        queueLimit = max(0, queue)
        for i in 0..<threadCount {
            let thread = Thread { [self] in work() }
            thread.name = "tongban.hash.\(i)"
            thread.start()
        }
    }

    /// Runs `body` on a hashing thread, or throws 429 when all are busy and the queue is full.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, any Error>) in
            condition.lock()
            guard !stopped, busy + jobs.count < threadCount + queueLimit else {
                condition.unlock()
                cont.resume(throwing: APIFailure(.rateLimited, "the server is busy signing people in; try again in a moment",
                                                 retryAfter: 1))
                return
            }
            jobs.append { cont.resume(with: Result { try body() }) }
            condition.signal()
            condition.unlock()
        }
    }

    /// Lets the threads end once the jobs queued so far are done.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        // Below the threads that serve requests: under a flood of sign-ins
        // the signed-in users' requests get the cores first (Linux takes a
        // thread's nice value per thread).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)  // 0: the calling thread, on Linux
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            guard !jobs.isEmpty else { condition.unlock(); return }
            let job = jobs.removeFirst()
            busy += 1
            condition.unlock()
            job()
            condition.lock()
            busy -= 1
            condition.unlock()
        }
    }
}
