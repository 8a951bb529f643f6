import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

/// The server's business rules, independent of HTTP. Every method that
/// changes data runs in one write transaction (GRDB serialises writers, so
/// seqs are assigned without holes or duplicates) and notifies the push hub
/// only after the commit.
public final class ChatService: Sendable {
    let db: DatabasePool
    let config: ServerConfig
    let hub: PushHub
    let media: MediaStore
    let logger: Logger
    /// Called after a committed send (the demo peers listen here).
    let afterSend = Mutex<AfterSendHook?>(nil)
    /// Requests per user in the current second (`checkRate`).
    let rate = Mutex<[Int: (second: Int, count: Int)]>([:])
    /// Failed logins per account (`login`).
    let loginThrottle = Mutex(LoginThrottle(limit: ChatService.maxLoginFailures, windowMs: 60_000))
    /// Sends from requests, group-committed.
    let sendWriter: GroupCommitWriter<SendJob, SendWrite>
    let checkpointer: Checkpointer
    /// Token hash -> uid of tokens seen valid; a logout removes its entry
    /// and moves `generation`, so a lookup that read the database before the
    /// logout cannot put the token back.
    struct TokenCache {
        var uids: [String: Int] = [:]
        var generation = 0
    }
    let tokenCache = Mutex(TokenCache())

    init(config: ServerConfig, hub: PushHub) throws {
        self.config = config
        self.hub = hub
        self.logger = config.logger
        try StorePermissions.makePrivateDirectory(config.dataDir)
        var dbConfig = Configuration()
        dbConfig.busyMode = .timeout(10)
        dbConfig.prepareDatabase { db in
            try db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute()
            // Each send of a group commit runs in its own savepoint, and
            // SQLite journals every page a savepoint changes; past 64 KiB
            // that journal spilled into a temp file, two pwrite calls per page
            // (most of the writer's system calls). In memory it is a few
            // pages per send, dropped when the savepoint is released.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Checkpoints run beside the writer (Checkpointer); SQLite's own,
            // inside a commit, only if that falls far behind.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Checkpointer.restartFrames * 2)")
        }
        let old = umask(0o077)
        defer { umask(old) }
        db = try DatabasePool(path: config.databasePath, configuration: dbConfig)
        // Sends use RETURNING (SQLite 3.35, 2021): say so at start, not on the first send.
        let version = try db.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") } ?? "0"
        let parts = version.split(separator: ".").map { Int($0) ?? 0 } + [0, 0]
        guard (parts[0], parts[1]) >= (3, 35) else {
            throw ServerSetupError(description: "tongban-server needs SQLite 3.35 or newer (for RETURNING); this libsqlite3 is \(version)")
        }
        try ServerMigrations.migrator.migrate(db)
        media = try MediaStore(directory: config.mediaDir, secretPath: config.secretPath)
        let writer = GroupCommitWriter<SendJob, SendWrite>(db: db, label: "tongban.send-writer", maxBatch: 256)
        sendWriter = writer
        checkpointer = try Checkpointer(path: config.databasePath, logger: config.logger,
                                        onWriter: { work in writer.beforeNextBatch(work) })
        sendWriter.configure(body: { [unowned self] job, db in try self.writeSend(job, db: db) },
                             committed: { [unowned self] writes in
                                 // A viewed flash image's file is gone before the viewer hears "done".
                                 for key in writes.compactMap(\.destroyedKey) { self.media.delete(key: key) }
                             },
                             finish: { [unowned self] writes in self.finishSends(writes) })
    }

    /// The server's time (`ServerConfig.clock`), in Unix milliseconds and seconds.
    func nowMs() -> Int { config.clock.nowMs() }
    func nowS() -> Int { config.clock.nowMs() / 1000 }
}

enum StorePermissions {
    static func makePrivateDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
    }
}

/// A closure kept in a `Mutex`, wrapped in a struct on purpose. Stored bare
/// (`Mutex<(@Sendable (WireMessage) -> Void)?>`), the closure lives in the
/// mutex's generic storage, and every `withLock` - even `{ $0 }` - converted
/// it to the concrete representation and back on write-back, wrapping it in
/// two more reabstraction thunks each time: the n-th send called through a
/// chain of 2n thunks (14% of the server's CPU after 20,000 sends of the demo
/// server). A struct field keeps its one representation, whoever copies it.
struct AfterSendHook: Sendable {
    let run: @Sendable (WireMessage) -> Void
}
