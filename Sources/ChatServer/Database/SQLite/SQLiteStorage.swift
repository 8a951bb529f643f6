import Foundation
import GRDB
import Logging
import Synchronization

/// The server's storage in one SQLite file (GRDB, WAL): one writer
/// connection, which serialises every write transaction (so seqs are taken
/// without holes or duplicates), and readers beside it.
final class SQLiteStorage: ChatStorage {
    let pool: DatabasePool
    private let maintenance: WriterMaintenance
    private let checkpointer: Checkpointer?

    /// Opens (or creates) the database at `path`, readable by the server's
    /// user only, with its schema brought up to date, and checkpoints it
    /// beside the writer.
    static func open(path: String, logger: Logger) throws -> SQLiteStorage {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute()
            // Each send of a group commit runs in its own savepoint, and
            // SQLite journals every page a savepoint changes; past 64 KiB
            // that journal would spill into a temp file, two pwrite calls per
            // page. In memory it is a few pages per send, dropped when the
            // savepoint is released.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Checkpoints run beside the writer (Checkpointer); SQLite's own,
            // inside a commit, only if that falls far behind.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Checkpointer.restartFrames * 2)")
        }
        let old = umask(0o077)
        defer { umask(old) }
        let pool = try DatabasePool(path: path, configuration: config)
        // Sends use RETURNING (SQLite 3.35, 2021): say so at start, not on the first send.
        let version = try pool.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") } ?? "0"
        let parts = version.split(separator: ".").map { Int($0) ?? 0 } + [0, 0]
        guard (parts[0], parts[1]) >= (3, 35) else {
            throw ServerSetupError(description: "tongban-server needs SQLite 3.35 or newer (for RETURNING); this libsqlite3 is \(version)")
        }
        try SQLiteMigrations.migrator.migrate(pool)
        return try SQLiteStorage(pool: pool, checkpointing: path, logger: logger)
    }

    /// Storage over an open pool; with `path`, a checkpointer on a
    /// connection of its own copies the WAL after commits.
    init(pool: DatabasePool, checkpointing path: String? = nil, logger: Logger = Logger(label: "tongban-server")) throws {
        let maintenance = WriterMaintenance()
        self.pool = pool
        self.maintenance = maintenance
        checkpointer = try path.map { path in
            try Checkpointer(path: path, logger: logger, onWriter: { work in maintenance.request(work) })
        }
    }

    func read<T>(_ body: (any StorageTransaction) throws -> T) throws -> T {
        try pool.read { db in try body(SQLiteTransaction(db: db)) }
    }

    func write<T>(_ body: (any StorageTransaction) throws -> T) throws -> T {
        let result = try pool.write { db in try body(SQLiteTransaction(db: db)) }
        checkpointer?.committed()
        return result
    }

    func writeGroup<Job, Output>(_ jobs: [Job], _ body: (Job, any StorageTransaction) throws -> Output)
        throws -> [Result<Output, any Error>] {
        if let work = maintenance.take() {
            // Failing maintenance (a busy reader) costs nothing: the
            // requester asks again later.
            try? pool.writeWithoutTransaction { db in try work(db) }
        }
        let results = try pool.write { db in
            let tx = SQLiteTransaction(db: db)
            var results: [Result<Output, any Error>] = []
            results.reserveCapacity(jobs.count)
            for job in jobs {
                var output: Output?
                do {
                    try db.inSavepoint {
                        output = try body(job, tx)
                        return .commit
                    }
                    if let output { results.append(.success(output)) }
                } catch {
                    results.append(.failure(error))
                }
            }
            return results
        }
        checkpointer?.committed()
        return results
    }

    /// Asks for `work` on the writer's connection, outside any transaction,
    /// before the next group: between two of the writer's own transactions
    /// it waits for no lock. Replaces work requested earlier and not yet run.
    func beforeNextGroup(_ work: @escaping @Sendable (Database) throws -> Void) {
        maintenance.request(work)
    }
}

/// Work waiting for the writer's connection (the checkpoint that lets the
/// WAL start over).
final class WriterMaintenance: Sendable {
    private struct Slot {
        var work: (@Sendable (Database) throws -> Void)?
    }
    private let slot = Mutex(Slot())

    func request(_ work: @escaping @Sendable (Database) throws -> Void) {
        slot.withLock { $0.work = work }
    }

    func take() -> (@Sendable (Database) throws -> Void)? {
        slot.withLock { s in
            defer { s.work = nil }
            return s.work
        }
    }
}

/// A transaction on one GRDB connection; its repositories share it.
struct SQLiteTransaction: StorageTransaction {
    let db: Database

    var accounts: any AccountRepository { SQLiteAccountRepository(db: db) }
    var users: any UserRepository { SQLiteUserRepository(db: db) }
    var conversations: any ConversationRepository { SQLiteConversationRepository(db: db) }
    var messages: any MessageRepository { SQLiteMessageRepository(db: db) }
    var syncLog: any SyncLogRepository { SQLiteSyncLogRepository(db: db) }
    var media: any MediaRepository { SQLiteMediaRepository(db: db) }
    var signals: any SignalRepository { SQLiteSignalRepository(db: db) }
    var groups: any GroupRepository { SQLiteGroupRepository(db: db) }
    var favorites: any FavoriteRepository { SQLiteFavoriteRepository(db: db) }
    var people: any PeopleRepository { SQLitePeopleRepository(db: db) }
    var rooms: any RoomRepository { SQLiteRoomRepository(db: db) }
    var usage: any UsageRepository { SQLiteUsageRepository(db: db) }
    var keys: any KeyRepository { SQLiteKeyRepository(db: db) }
}

/// SQLite's "database or disk is full" (also when a journal or WAL page
/// cannot be written).
extension DatabaseError: StorageError {
    package var isStorageFull: Bool { resultCode == .SQLITE_FULL }
}
