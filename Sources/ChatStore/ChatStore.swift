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
    /// Whose store it is, for the tables' "mine" and "from me".
    let me: StoreOwner

    /// The writer connection's page cache (KiB); readers keep SQLite's default.
    static let writerCacheKiB = 512

    /// Opens (creating and migrating if needed) the store at `path`. The
    /// folder is made 0700 and the database files 0600.
    /// `searchIndexing`: when messages stored by this process are added to
    /// the search index (`SearchIndexer`).
    public init(path: String, myUid: Int, searchIndexing: SearchIndexTiming = SearchIndexTiming()) throws {
        self.path = path
        self.myUid = myUid
        self.myImUid = ConversationIDHelper.imUid(myUid)
        self.me = StoreOwner(uid: myUid)
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
                // The writer appends: new rows land on the right edge of each
                // table and index, and the search indexer's segments are
                // written once. SQLite's default 2 MiB page cache filled up in
                // a flood of 10,000 messages all the same, 1.4 MiB of the
                // client's 7.2 MiB heap peak (BENCHMARKS.md); a quarter of it
                // ingests as fast. The readers keep the default: the
                // conversation list and search reread their pages.
                if !db.configuration.readonly {
                    try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
                }
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

    // MARK: - Observation

    /// The visible conversation list now and again after every commit that
    /// changes the conversation table (GRDB's ValueObservation). A view model
    /// follows this instead of reloading after each action or sync update:
    /// whoever writes the store, the list on screen follows.
    ///
    /// When the reader falls behind (a flood of commits), only the newest
    /// list is kept. The stream ends when the task reading it is cancelled.
    public func conversationListChanges(localizer: Localizer) -> AsyncThrowingStream<[Conversation], any Error> {
        let observation = ValueObservation.trackingConstantRegion(ConversationTable.visible)
        let records = observation.values(in: dbPool, scheduling: .task, bufferingPolicy: .bufferingNewest(1))
        let (stream, continuation) = AsyncThrowingStream<[Conversation], any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let myImUid = self.myImUid, previews = self.previews
        let task = Task {
            do {
                for try await page in records {
                    continuation.yield(page.map { $0.conversation(myImUid: myImUid, localizer: localizer, memo: previews) })
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// A signal after every commit that may change what an open chat
    /// shows (its messages, or its clear mark), whoever wrote it: the sync,
    /// the send queue, the chat's own actions. GRDB's region observation
    /// fetches nothing; the chat reads its window itself on its own actor,
    /// so a page read before one of its own reads can never be shown over
    /// it (values observed on another thread could arrive that late). While
    /// the reader is busy, commits collapse into one signal. Ends when the
    /// stream is dropped or its reader cancelled.
    public func chatChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observation = DatabaseRegionObservation(tracking: Table(MessageRecord.databaseTableName), Table("conversation"))
        let cancellable = observation.start(in: dbPool, onError: { _ in continuation.finish() },
                                            onChange: { _ in continuation.yield() })
        continuation.onTermination = { _ in cancellable.cancel() }
        return stream
    }
}

extension ChatStore: StoreReader {}

/// Whose store it is: the tables ask it whether a conversation is one I am
/// in and whether a message is from me.
struct StoreOwner: Sendable {
    let uid: Int
    let imUid: String

    init(uid: Int) {
        self.uid = uid
        self.imUid = ConversationIDHelper.imUid(uid)
    }

    /// A single chat with me in it, or a group (the server logs a group's
    /// events only to its members).
    func isMine(_ conversationId: String) -> Bool {
        ConversationIDHelper.isGroup(conversationId) || ConversationIDHelper.peerUid(in: conversationId, myUid: uid) != nil
    }
}
