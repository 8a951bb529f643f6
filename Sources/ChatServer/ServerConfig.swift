import Foundation
import Logging

/// Everything `tongban-server` can be told on its command line.
public struct ServerConfig: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 picks a free port (tests, the client's embedded demo server).
    public var port: Int = 8080
    public var dataDir: String = "./tongban-data"
    /// `postgres://USER@HOST:PORT/DB`: the shared database of a cluster's
    /// nodes; nil keeps everything in SQLite under `dataDir`.
    public var databaseURL: String?
    /// What opens `databaseURL` (tongban-server sets PostgreSQL's).
    package var databaseBackend: (any DatabaseBackend)?
    /// Where uploaded objects live; every node of a cluster names the same
    /// shared directory. Defaults to `dataDir/media`.
    public var mediaDirectory: String?
    /// How long after sending a message its sender may revoke it.
    public var revokeWindowSeconds: Int = 120
    /// How long after sending a message its sender may edit it (v3).
    public var editWindowSeconds: Int = 24 * 3600
    /// Sync events older than this are pruned; older cursors get 410.
    public var syncRetentionSeconds: Int = 7 * 24 * 3600
    public var maxMediaBytes: Int = 20 * 1024 * 1024
    public var maxJSONBytes: Int = 64 * 1024
    public var maxTextCharacters: Int = 4000
    /// Members a group may hold (PROTOCOL.md "Groups").
    public var maxGroupMembers: Int = 2000
    /// Lifetime of signed media URLs.
    public var signedURLSeconds: Int = 3600
    /// What the server refuses by default (PROTOCOL.md v4 "Limits and consent").
    public var limits = ServerLimits()
    /// PBKDF2-SHA256 rounds for new passwords (OWASP 2023: 210,000; never below 100,000).
    public var passwordRounds: Int = 210_000
    /// The floor under `passwordRounds`: 100,000 for every real server;
    /// only the in-process test server (`LocalServer`) lowers it.
    var minimumPasswordRounds: Int = 100_000
    /// Threads that run request handlers and their database work
    /// (`StorageThreads`); 0 runs them on Swift's cooperative pool, which
    /// waits on the database with its one thread per core (the bench's "before").
    public var storageThreads: Int = 8
    /// How long a node that stopped answering (or a whole cluster that
    /// stopped) keeps its users in their rooms before they are taken out:
    /// a node that only lost the database for a moment says who is online
    /// on it again within this time.
    public var roomPresenceGrace: Duration = .seconds(15)
    /// How long SIGTERM waits for open requests and connections before
    /// closing them (a polling keep-alive connection never ends by itself).
    public var gracefulShutdownLimit: Duration = .seconds(5)
    /// Seeds demo accounts and runs the demo peers that answer `me`.
    public var demo: Bool = false
    /// Delay of a demo peer's answer.
    public var demoReplyDelay: Duration = .milliseconds(800)
    /// How long after start the demo's Carol asks `me` to be friends.
    public var demoFriendRequestDelay: Duration = .seconds(60)
    /// The time every time-window rule reads (tests move it by hand).
    public var clock: ServerClock = .system
    public var logger: Logger = Logger(label: "tongban-server")

    public init() {}

    var databasePath: String { (dataDir as NSString).appendingPathComponent("server.sqlite") }
    var mediaDir: URL {
        mediaDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? URL(fileURLWithPath: dataDir).appendingPathComponent("media", isDirectory: true)
    }
    var secretPath: String { (dataDir as NSString).appendingPathComponent("secret.key") }
}
