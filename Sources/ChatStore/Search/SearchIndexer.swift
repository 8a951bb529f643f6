import Foundation
import GRDB
import Synchronization

/// When the search index catches up with the message table.
public struct SearchIndexTiming: Sendable {
    /// Index once no message has been stored for this long (a burst is over)…
    public var quiet: Duration
    /// …or once the oldest waiting message has waited this long, so a steady
    /// trickle of messages is indexed too.
    public var maxDelay: Duration
    /// Messages per transaction: the writer is never held for long, so the
    /// sync loop's next batch waits a few milliseconds at most.
    public var batch: Int

    public init(quiet: Duration = .milliseconds(300), maxDelay: Duration = .seconds(3), batch: Int = 1000) {
        self.quiet = quiet; self.maxDelay = maxDelay; self.batch = max(1, batch)
    }
}

/// Keeps the trigram search index up with the message table, after the
/// messages are stored and shown rather than inside the same transaction.
///
/// Trigram indexing is most of what storing a short message costs, so
/// inside the storing transaction it would hold a burst of incoming
/// messages back from the screen (figures in BENCHMARKS.md, "Notes moved
/// from the code"). A commit that inserted messages only notes it
/// (`MessageInsertObserver`); once messages stop arriving for
/// `timing.quiet` (or the oldest has waited `timing.maxDelay`) the rows past
/// the index's end are indexed in batches. Search covers the rows still
/// waiting by scanning them (`ChatStore.search`), so a result never depends
/// on when this ran. A failed batch (a full disk) leaves its rows waiting
/// for the next commit's note.
final class SearchIndexer: Sendable {
    private struct State {
        var running = false
        var firstNote: ContinuousClock.Instant?
        var lastNote: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let dbPool: DatabasePool
    let timing: SearchIndexTiming

    init(dbPool: DatabasePool, timing: SearchIndexTiming) {
        self.dbPool = dbPool
        self.timing = timing
    }

    /// Messages were stored: index them once the burst is over.
    func messagesInserted() {
        let start = state.withLock { s -> Bool in
            let now = ContinuousClock.now
            s.lastNote = now
            if s.firstNote == nil { s.firstNote = now }
            if s.running { return false }
            s.running = true
            return true
        }
        if start { Task.detached(priority: .utility) { await self.run() } }
    }

    private func run() async {
        while true {
            // nil: nothing noted since the last pass, stop; zero: index now.
            let wait = state.withLock { s -> Duration? in
                guard let first = s.firstNote, let last = s.lastNote else {
                    s.running = false
                    return nil
                }
                let now = ContinuousClock.now
                let remaining = min(last + timing.quiet - now, first + timing.maxDelay - now)
                if remaining > .zero { return remaining }
                s.firstNote = nil
                s.lastNote = nil
                return .zero
            }
            guard let wait else { return }
            if wait > .zero {
                try? await Task.sleep(for: wait)
                continue
            }
            do {
                while try SearchTable.indexBacklog(dbPool, limit: timing.batch) {
                    await Task.yield()
                }
            } catch {
                // The rows stay past the watermark, searchable by scan;
                // the next stored message brings the indexer back.
                state.withLock { s in
                    s.running = false
                    s.firstNote = nil
                    s.lastNote = nil
                }
                return
            }
        }
    }
}

/// Tells the search indexer after each commit that inserted messages.
final class MessageInsertObserver: TransactionObserver, @unchecked Sendable {
    // Only touched on the writer's queue, where GRDB calls observers.
    private var inserted = false
    let indexer: SearchIndexer

    init(indexer: SearchIndexer) { self.indexer = indexer }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind { return table == "message" }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {
        inserted = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        if inserted { indexer.messagesInserted() }
        inserted = false
    }

    func databaseDidRollback(_ db: Database) { inserted = false }
}
