import ChatCore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Synchronization

/// A server running in this process (tests, the client's embedded demo).
public final class RunningServer: Sendable {
    public let port: Int
    public let service: ServerServices
    let group: ServiceGroup
    let task: Task<Void, any Error>

    init(port: Int, service: ServerServices, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port; self.service = service; self.group = group; self.task = task
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Graceful shutdown: in-flight requests finish, sockets close.
    public func stop() async {
        service.hub.closeAll()
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await service.shutdown()
    }
}

public enum ChatServerApp {
    /// The services over the data folder, with the demo seeded if asked and
    /// the sync log pruned.
    static func buildService(config: ServerConfig) async throws -> ServerServices {
        let service = try ServerServices(config: config)
        do {
            if config.demo { try DemoSeeder(service: service).seedIfNeeded() }
            // One node: nobody was online before it started, so nobody is in a room.
            if config.databaseURL == nil { try service.rooms.clearPresence() }
            try service.pruneSyncLog()
        } catch {
            await service.shutdown()
            throw error
        }
        service.startCluster()
        // Several nodes: those listed present whom no node has online leave, once the others said who is on them.
        if config.databaseURL != nil { service.rooms.sweepAbsentLater() }
        return service
    }

    /// Every endpoint of PROTOCOL.md: one controller per area, all but the
    /// open ones behind the token check.
    static func buildRouter(service: ServerServices, config: ServerConfig) -> Router<ChatRequestContext> {
        let read = RequestReader(config: config)
        let auth = AuthController(auth: service.auth, read: read,
                                  addresses: ClientAddress(trustedProxies: config.limits.trustedProxies))
        let media = MediaController(media: service.media, read: read)
        let router = Router(context: ChatRequestContext.self)
        router.add(middleware: StorageThreadsMiddleware(threads: service.threads))
        router.add(middleware: FrontMiddleware(media: media, logger: config.logger))
        router.get("/healthz") { _, _ in json(HealthResponse()) }
        router.addRoutes(auth.openRoutes, atPath: "/auth")
        let authed = router.group().add(middleware: AuthMiddleware(auth: service.auth))
        authed.addRoutes(auth.routes, atPath: "/auth")
        authed.addRoutes(UserController(users: service.users, people: service.people, read: read).routes, atPath: "/user")
        let people = PeopleController(people: service.people, read: read)
        authed.addRoutes(people.friendRoutes, atPath: "/friend")
        authed.addRoutes(people.blockRoutes, atPath: "/block")
        authed.addRoutes(MessageController(messages: service.messages, syncLog: service.syncLog, read: read).routes, atPath: "/chat")
        authed.addRoutes(ConversationController(conversations: service.conversations, receipts: service.receipts, read: read).routes, atPath: "/chat")
        authed.addRoutes(media.routes, atPath: "/media")
        authed.addRoutes(SignalController(signals: service.signals, read: read).routes, atPath: "/signal")
        authed.addRoutes(GroupController(groups: service.groups, read: read).routes, atPath: "/group")
        authed.addRoutes(FavoriteController(messages: service.messages, read: read).routes, atPath: "/favorite")
        authed.addRoutes(RoomController(rooms: service.rooms, read: read).routes, atPath: "/room")
        authed.addRoutes(KeyController(keys: service.keys, read: read).routes, atPath: "/keys")
        authed.addRoutes(SecretController(secrets: service.secrets, read: read).routes, atPath: "/secret")
        return router
    }

    /// The HTTP + WebSocket application over `service`.
    static func buildApplication(service: ServerServices, config: ServerConfig,
                                 onRunning: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: buildRouter(service: service, config: config),
            server: .http1WebSocketUpgrade { head, channel, _ in
                try await WebSocketSession.shouldUpgrade(head: head, channel: channel, service: service)
            },
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
            services: [PruneService(syncLog: service.syncLog, quotas: Quotas(config: config), keys: service.keys),
                       ExpiryService(secrets: service.secrets)],
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? config.port) },
            logger: config.logger
        )
    }

    /// Runs until SIGINT/SIGTERM, then shuts down cleanly.
    public static func run(config: ServerConfig) async throws {
        let service = try await buildService(config: config)
        let app = buildApplication(service: service, config: config) { port in
            let store = config.databaseURL.map { "database=\(DatabaseURL.redacted($0)) media=\(config.mediaDir.path)" }
                ?? "data=\(config.dataDir)"
            config.logger.info("tongban-server listening on http://\(config.host):\(port) \(store)")
        }
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: config.logger)
        // Graceful shutdown waits for open connections to finish, and a
        // keep-alive client that keeps polling never does: after a while the
        // server is cancelled, which closes them.
        group.maximumGracefulShutdownDuration = config.gracefulShutdownLimit
        try await ServiceGroup(configuration: group).run()
        service.hub.closeAll()
        await service.shutdown()
    }

    /// Starts a server in this process and returns once it is accepting.
    public static func start(config: ServerConfig) async throws -> RunningServer {
        let portBox = Mutex<Int?>(nil)
        let (stream, cont) = AsyncStream<Int>.makeStream()
        let service = try await buildService(config: config)
        let app = buildApplication(service: service, config: config) { port in
            portBox.withLock { $0 = port }
            cont.yield(port)
            cont.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: config.logger))
        let task = Task { try await group.run() }
        var port: Int?
        for await p in stream { port = p; break }
        guard let port else {
            _ = try? await task.value
            await service.shutdown()
            throw APIFailure.invalid("tongban-server could not start on \(config.host):\(config.port)")
        }
        return RunningServer(port: port, service: service, group: group, task: task)
    }
}

/// Every ten minutes while the server runs: prunes the sync log and the
/// quotas' uses, and takes the keys of devices unseen for 90 days.
struct PruneService: Service {
    let syncLog: SyncLogService
    let quotas: Quotas
    let keys: KeyService
    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Returns at once when the server starts shutting down.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(600)) }
            if Task.isShuttingDownGracefully { break }
            try? syncLog.prune()
            try? syncLog.storage.write { tx in try quotas.prune(in: tx) }
            _ = try? keys.pruneStale()
        }
    }
}

/// Deletes disappearing secret messages as their time comes (every second:
/// a message is gone within a second of its `expireAt`, on whichever node).
struct ExpiryService: Service {
    let secrets: SecretService
    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            if Task.isShuttingDownGracefully { break }
            do { try secrets.sweepExpired() } catch {
                secrets.config.logger.warning("deleting expired secret messages failed: \(error)")
            }
        }
    }
}

/// What the operator does from the command line, on the database a server
/// uses (it may be running: SQLite and PostgreSQL both take the writes).
public enum ServerOperator {
    /// The newest signal reports, newest first.
    public static func signalReports(config: ServerConfig, limit: Int = 100) async throws -> [SignalReport] {
        try await withServices(config) { try $0.signals.reports(limit: limit) }
    }

    /// Takes a signal out of every feed.
    public static func removeSignal(_ id: Int, config: ServerConfig) async throws {
        try await withServices(config) { try $0.signals.remove(signalId: id) }
    }

    private static func withServices<T>(_ config: ServerConfig, _ body: (ServerServices) throws -> T) async throws -> T {
        let service = try ServerServices(config: config)
        do {
            let result = try body(service)
            await service.shutdown()
            return result
        } catch {
            await service.shutdown()
            throw error
        }
    }
}
