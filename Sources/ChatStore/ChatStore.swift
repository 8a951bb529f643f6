import ChatCore
import Foundation
import GRDB

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
}

/// The local message store of one logged-in user (seed 001: one database per
/// user). Thread-safe; every method is one transaction.
public final class ChatStore: Sendable {
    public let dbPool: DatabasePool
    public let myUid: Int
    public let myImUid: String
    public let path: String
    /// Previews already computed for this store's conversation list.
    let previews = PreviewMemo()

    /// Opens (creating and migrating if needed) the store at `path`. The
    /// folder is made 0700 and the database files 0600.
    public init(path: String, myUid: Int) throws {
        self.path = path
        self.myUid = myUid
        self.myImUid = ConversationIDHelper.imUid(myUid)
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

    static func nowMs() -> Int { Int(Date().timeIntervalSince1970 * 1000) }
}
