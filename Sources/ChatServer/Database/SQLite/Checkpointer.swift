import Dispatch
import Foundation
import GRDB
import Logging
import Synchronization

/// Copies committed WAL pages into the database file on a connection and a
/// queue of its own. SQLite's automatic checkpoint runs inside the commit
/// that crossed the threshold, so the send batch of that commit would wait
/// for a whole checkpoint (longer, the larger the threshold). A passive
/// checkpoint from a second connection runs beside the writer instead, and
/// pages written again between checkpoints go to the database file once.
final class Checkpointer: Sendable {
    /// Past this many WAL frames (~64 MiB) the writer checkpoints too. SQLite
    /// starts the WAL over when a transaction begins on a fully copied WAL;
    /// under unbroken writes the checkpointer never finishes before the next
    /// commit, so without this the WAL would only grow. The writer's own
    /// checkpoint comes right after a background one and has little left.
    static let restartFrames = 16_384
    private let restartFrames: Int
    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "tongban.checkpoint")
    private let interval: Duration
    private let logger: Logger
    /// Asks the writer to run work between two of its transactions.
    private let onWriter: @Sendable (@escaping @Sendable (Database) throws -> Void) -> Void
    private struct State {
        var running = false
        var last = ContinuousClock.now
        /// A checkpoint is due after the current one or the interval, so the
        /// last commits before a quiet spell are copied too.
        var trailing = false
        /// Checkpoints run so far (tests wait for one instead of sleeping).
        var completed = 0
    }
    private let state = Mutex(State())

    init(path: String, interval: Duration = .milliseconds(50), restartFrames: Int = Checkpointer.restartFrames, logger: Logger,
         onWriter: @escaping @Sendable (@escaping @Sendable (Database) throws -> Void) -> Void) throws {
        self.restartFrames = restartFrames
        var config = Configuration()
        config.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: config)
        self.interval = interval
        self.logger = logger
        self.onWriter = onWriter
    }

    /// A write committed: starts a checkpoint unless one runs or the last
    /// began less than `interval` ago.
    func committed() {
        enum Action { case start, later, none }
        let action = state.withLock { s -> Action in
            if !s.running, ContinuousClock.now - s.last >= interval {
                s.running = true
                // A trailing timer already scheduled stays visible (only its
                // own block clears the flag): `isIdle` must not say idle
                // while it is still to fire.
                s.last = ContinuousClock.now
                return .start
            }
            if s.trailing { return .none }
            s.trailing = true
            return .later
        }
        switch action {
        case .start:
            queue.async { [self] in
                defer { state.withLock { $0.running = false; $0.completed += 1 } }
                run()
            }
        case .later:
            let wait = Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds)
            queue.asyncAfter(deadline: .now() + wait) { [self] in
                state.withLock { $0.trailing = false }
                committed()
            }
        case .none:
            break
        }
    }

    var checkpointsCompleted: Int { state.withLock { $0.completed } }

    /// No checkpoint running or due. Read on the checkpoint queue, between
    /// two of its blocks, never inside one (where a trailing checkpoint is
    /// being turned into a running one).
    var isIdle: Bool { queue.sync { state.withLock { !$0.running && !$0.trailing } } }

    /// One passive checkpoint now, on the caller's thread.
    func run() {
        do {
            let (frames, _) = try connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
            if frames > restartFrames {
                // Once more at once: it copies only what came meanwhile, and
                // leaves the writer's own checkpoint (which sends wait for)
                // the few frames that come during this one.
                _ = try connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
                // On the writer's own connection, between two of its
                // transactions, a passive checkpoint can copy the rest, and
                // the next transaction then starts the WAL over. Passive:
                // it never waits for readers (the next run asks again).
                onWriter { db in _ = try db.checkpoint(.passive) }
            }
        } catch {
            // The WAL keeps the pages; the next checkpoint (or SQLite's own
            // at close) copies them. Nothing is lost.
            logger.warning("checkpoint failed: \(error)")
        }
    }
}
