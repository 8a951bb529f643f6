import ChatCore
import GRDB
import Synchronization

/// Cached conversation lists with a generation, so a list computed from a
/// snapshot older than the latest commit is never kept.
final class ListCache: Sendable {
    private struct State {
        var generation = 0
        var lists: [Language: [Conversation]] = [:]
    }
    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }

    func get(_ language: Language) -> [Conversation]? { state.withLock { $0.lists[language] } }

    func set(_ list: [Conversation], for language: Language, generation: Int) {
        state.withLock { s in if s.generation == generation { s.lists[language] = list } }
    }

    func invalidate() {
        state.withLock { s in
            s.generation += 1
            s.lists.removeAll()
        }
    }

    /// Applies `patch` to the cached lists instead of dropping them. The
    /// generation still moves, so a list read from an older snapshot while
    /// the patched commit was being written is not kept.
    func apply(_ patch: ListPatch) {
        state.withLock { s in
            s.generation += 1
            for (language, var list) in s.lists {
                var touched = false
                for i in list.indices where patch.matches(list[i]) {
                    patch.change(&list[i])
                    touched = true
                }
                if touched { s.lists[language] = list }
            }
        }
    }
}

/// A change to conversation rows that leaves the list's membership, order
/// and previews alone (read position, draft, presence, opened flag), so the
/// cached lists can take it without a read of the whole table.
struct ListPatch: Sendable {
    let matches: @Sendable (Conversation) -> Bool
    let change: @Sendable (inout Conversation) -> Void
}

/// Invalidates the list cache after each commit that changed `conversation`,
/// or patches it when the transaction declared its only change to the table
/// (`patchInstead`).
final class ConversationTableObserver: TransactionObserver, @unchecked Sendable {
    // Only touched on the writer's queue: GRDB calls observers there, and
    // `patchInstead` is called from inside a write.
    private var changed = false
    private var patches: [ListPatch] = []
    let cache: ListCache

    init(cache: ListCache) { self.cache = cache }

    /// Called inside a write transaction whose every change to the
    /// conversation table is described by `patch`.
    func patchInstead(_ patch: ListPatch) { patches.append(patch) }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "conversation" }
    func databaseDidChange(with event: DatabaseEvent) { changed = true }
    func databaseDidCommit(_ db: Database) {
        if changed {
            if patches.isEmpty {
                cache.invalidate()
            } else {
                for p in patches { cache.apply(p) }
            }
        }
        reset()
    }
    func databaseDidRollback(_ db: Database) { reset() }

    private func reset() {
        changed = false
        patches.removeAll()
    }
}
