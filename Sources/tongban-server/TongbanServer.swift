import ArgumentParser
import CMalloc
import Version
import ChatServer
import ChatServerPostgres
import Foundation
import Logging

@main
struct TongbanServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tongban-server",
        abstract: "The Tongban chat server (PROTOCOL.md): HTTP + WebSocket, embedded SQLite or shared PostgreSQL.",
        discussion: "Without a subcommand it serves. `tongban-server signals` is the operator's view of reported signals.",
        version: BuildInfo.versionLine,
        subcommands: [SignalsCommand.self])

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(name: .customLong("data-dir"), help: "Database, media and signing secret live here.") var dataDir = "./tongban-data"
    @Option(name: .customLong("database"),
            help: "postgres://USER[:PASSWORD]@HOST:PORT/DB: keep everything in this PostgreSQL database, shared by every node (also TONGBAN_DATABASE_URL). Without it, SQLite in --data-dir.")
    var database: String?
    @Option(name: .customLong("media-dir"), help: "Uploaded objects live here (default DATA-DIR/media); nodes of a cluster share one.")
    var mediaDir: String?
    @Option(name: .customLong("revoke-window"), help: "Seconds after sending during which a message can be revoked.")
    var revokeWindow = 120
    @Option(name: .customLong("edit-window"), help: "Seconds after sending during which a message can be edited.")
    var editWindow = 24 * 3600
    @Option(name: .customLong("sync-retention"), help: "Seconds of sync log to keep; older cursors get 410.")
    var syncRetention = 7 * 24 * 3600
    @Option(name: .customLong("max-media"), help: "Largest accepted upload, in bytes.") var maxMedia = 20 * 1024 * 1024
    @Option(name: .customLong("url-ttl"), help: "Lifetime of signed media URLs, in seconds.") var urlTTL = 3600
    @OptionGroup(title: "Limits (PROTOCOL.md v4 \"Limits and consent\"; 0 turns a count off)") var limits: LimitOptions
    @Option(name: .customLong("max-group-members"), help: "Members a group may hold (PROTOCOL.md: a server option).")
    var maxGroupMembers = ServerConfig().maxGroupMembers
    @Option(name: .customLong("storage-threads"),
            help: "Threads that run requests and wait on the database (0: Swift's cooperative pool, one thread per core).")
    var storageThreads = ServerConfig().storageThreads
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Flag(help: "Seed demo accounts me/alice/bob/carol (password tongban-demo) and run demo peers.") var demo = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        guard revokeWindow >= 0, editWindow >= 0, syncRetention > 0, maxMedia > 0, urlTTL > 0, maxGroupMembers >= 2,
              (0...256).contains(storageThreads) else {
            throw ValidationError("limits must be positive")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        if let url = databaseURL, !(url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")) {
            throw ValidationError("--database wants postgres://USER@HOST:PORT/DB")
        }
    }

    /// `--database`, else `TONGBAN_DATABASE_URL`; empty means SQLite.
    var databaseURL: String? {
        let url = database ?? ProcessInfo.processInfo.environment["TONGBAN_DATABASE_URL"]
        return url?.isEmpty == false ? url : nil
    }

    func run() async throws {
        // glibc hands freed heap back to the kernel as soon as 128 KiB sit
        // free at a thread arena's top, and the next burst faults it in
        // again: under load that madvise/page-fault/TLB churn cost the writer
        // thread about a tenth of its time. Keep up to 64 MiB for reuse.
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
        // The request log's timestamps come from localtime(), and glibc,
        // when TZ is unset, checks /etc/localtime with a stat() on every
        // call to see whether the zone changed: a system call per request.
        // Naming the same file in TZ lets it keep what it read (a zone
        // changed while the server runs shows after a restart).
        if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "tongban-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var config = ServerConfig()
        config.host = host
        config.port = port
        config.dataDir = dataDir
        config.databaseURL = databaseURL
        config.usePostgres()
        config.mediaDirectory = mediaDir
        config.revokeWindowSeconds = revokeWindow
        config.editWindowSeconds = editWindow
        config.syncRetentionSeconds = syncRetention
        config.maxMediaBytes = maxMedia
        config.signedURLSeconds = urlTTL
        config.limits = limits.serverLimits
        config.maxGroupMembers = maxGroupMembers
        config.storageThreads = storageThreads
        config.demo = demo
        config.logger = logger
        try await ChatServerApp.run(config: config)
    }
}
