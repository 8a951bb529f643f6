import ChatCore
import Foundation
import GRDB
import Synchronization

/// Errors of the store, in words a user can act on.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case unknownConversation(String)
    case unknownMessage(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the message store at \(path): \(reason)"
        case .unknownConversation(let id): "no conversation \(id) in the local store"
        case .unknownMessage(let id): "no message \(id) in the local store"
        }
    }

    /// The disk (or the database's size limit) is full: the write was rolled
    /// back whole, and the same write succeeds once there is room.
    public static func isDiskFull(_ error: any Error) -> Bool {
        if let db = error as? DatabaseError { return db.resultCode == .SQLITE_FULL }
        let ns = error as NSError
        return ns.domain == NSPOSIXErrorDomain && (ns.code == Int(ENOSPC) || ns.code == Int(EDQUOT))
    }
}

/// The local message store of one logged-in user (seed 001: one database per
/// user). Thread-safe; every method is one transaction.
public final class ChatStore: Sendable {
    /// The database; outside this module only tests reach it (`@testable`).
    let dbPool: DatabasePool
    public let myUid: Int
    public let myImUid: String
    public let path: String
    /// Previews already computed for this store's conversation list.
    let previews = PreviewMemo()
    /// The last conversation list per language, dropped by any commit that
    /// touches the conversation table (the UI asks for it after every key).
    let listCache = ListCache()
    /// Drops or patches `listCache` after each commit touching `conversation`.
    let listObserver: ConversationTableObserver
    /// Indexes stored messages for search once a burst of them is over.
    let searchIndexer: SearchIndexer

    /// Opens (creating and migrating if needed) the store at `path`. The
    /// folder is made 0700 and the database files 0600.
    /// `searchIndexing`: when messages stored by this process are added to
    /// the search index (`SearchIndexer`).
    public init(path: String, myUid: Int, searchIndexing: SearchIndexTiming = SearchIndexTiming()) throws {
        self.path = path
        self.myUid = myUid
        self.myImUid = ConversationIDHelper.imUid(myUid)
        self.listObserver = ConversationTableObserver(cache: listCache)
        let url = URL(fileURLWithPath: path)
        do {
            try StorePaths.makePrivateDirectory(url.deletingLastPathComponent())
            let old = umask(0o077)
            defer { umask(old) }
            var config = Configuration()
            config.busyMode = .timeout(5)
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            dbPool = try DatabasePool(path: path, configuration: config)
            try StoreMigrations.migrator.migrate(dbPool)
            dbPool.add(transactionObserver: listObserver, extent: .databaseLifetime)
            searchIndexer = SearchIndexer(dbPool: dbPool, timing: searchIndexing)
            dbPool.add(transactionObserver: MessageInsertObserver(indexer: searchIndexer), extent: .databaseLifetime)
            // Messages stored before the last exit and not indexed yet.
            let waiting = try dbPool.read { db in
                try Bool.fetchOne(db, sql: """
                    SELECT EXISTS(SELECT 1 FROM message WHERE id > (SELECT indexedThrough FROM search_index_state WHERE id = 1))
                    """) ?? false
            }
            if waiting { searchIndexer.messagesInserted() }
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// The store of `uid` on `server` under `paths`.
    public convenience init(paths: StorePaths, server: String, uid: Int) throws {
        let dir = paths.userDirectory(server: server, uid: uid)
        try self.init(path: dir.appendingPathComponent("chat.sqlite").path, myUid: uid)
    }

    /// Names of the applied migrations, oldest first.
    public func appliedMigrations() throws -> [String] {
        try dbPool.read { db in try StoreMigrations.migrator.appliedMigrations(db) }
    }

    /// The schema's CREATE statements (tables, then indexes, then
    /// triggers; not the search index's own tables): the store bench builds
    /// its plain-sqlite3 reference from them.
    public func schemaStatements() throws -> [String] {
        try dbPool.read { db in
            try String.fetchAll(db, sql: """
                SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                AND (type = 'trigger' OR name NOT LIKE 'message\\_fts\\_%' ESCAPE '\\') AND type IN ('table','index','trigger')
                ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END
                """)
        }
    }

    static func nowMs() -> Int { Int(Date().timeIntervalSince1970 * 1000) }
}

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
