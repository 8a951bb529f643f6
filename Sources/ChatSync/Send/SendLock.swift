import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One sender at a time per store, across processes: the full-screen client
/// and `tongban` commands in other terminals share one outbox. Each send
/// attempt holds the lock, and so does taking back a message the user was
/// told did not go (`tongban send` without `--queue`), so a message is
/// never reported failed while another process is delivering it. An
/// advisory `flock`, so a process killed with -9 releases it.
public final class SendLock: Sendable {
    private let path: String

    public init(storePath: String) {
        path = storePath + ".sendlock"
    }

    /// Runs `body` holding the lock; waits (without blocking a thread) while
    /// another process holds it. Without a lock file (a read-only folder)
    /// `body` runs unlocked: the server's dedupe still keeps sends once.
    /// Throws `CancellationError` if the task is cancelled while it waits.
    /// With `wait` false, returns nil at once when another process holds it.
    public func withLock<T>(isolation: isolated (any Actor)? = #isolation, wait: Bool = true,
                            _ body: () async throws -> T) async throws -> T? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return try await body() }
        defer { close(fd) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return try await body() }
            if !wait { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}
