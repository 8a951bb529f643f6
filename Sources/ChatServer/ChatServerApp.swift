import ChatCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Per-request state: the authenticated user, once the auth middleware ran.
public struct ChatRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var uid: Int = 0
    public var token: String = ""
    public init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
}

/// A server running in this process (tests, the client's embedded demo).
public final class RunningServer: Sendable {
    public let port: Int
    public let service: ChatService
    let group: ServiceGroup
    let task: Task<Void, any Error>

    init(port: Int, service: ChatService, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port; self.service = service; self.group = group; self.task = task
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Graceful shutdown: in-flight requests finish, sockets close.
    public func stop() async {
        service.hub.closeAll()
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

public enum ChatServerApp {
    /// Builds the service and the Hummingbird application.
    static func build(config: ServerConfig, onRunning: @escaping @Sendable (Int) -> Void = { _ in })
        throws -> (ChatService, some ApplicationProtocol) {
        let hub = PushHub()
        let service = try ChatService(config: config, hub: hub)
        let ref = WeakService(service)
        hub.contacts.withLock { $0 = ContactsLookup { uid in ref.service?.contacts(of: uid) ?? [] } }
        if config.demo { try DemoSeeder(service: service).seedIfNeeded() }
        try service.pruneSyncLog()

        let router = Router(context: ChatRequestContext.self)
        router.add(middleware: FrontMiddleware(service: service, logger: config.logger))
        Routes(service: service, config: config).register(on: router)

        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade { head, _, _ in
                try await WebSocketSession.shouldUpgrade(head: head, service: service)
            },
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
            services: [PruneService(service: service)],
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? config.port) },
            logger: config.logger
        )
        return (service, app)
    }

    /// Runs until SIGINT/SIGTERM, then shuts down cleanly.
    public static func run(config: ServerConfig) async throws {
        let (service, app) = try build(config: config) { port in
            config.logger.info("tongban-server listening on http://\(config.host):\(port) data=\(config.dataDir)")
        }
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        service.hub.closeAll()
    }

    /// Starts a server in this process and returns once it is accepting.
    public static func start(config: ServerConfig) async throws -> RunningServer {
        let portBox = Mutex<Int?>(nil)
        let (stream, cont) = AsyncStream<Int>.makeStream()
        let (service, app) = try build(config: config) { port in
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
            throw APIFailure.invalid("tongban-server could not start on \(config.host):\(config.port)")
        }
        return RunningServer(port: port, service: service, group: group, task: task)
    }
}

/// Prunes the sync log every ten minutes while the server runs.
struct PruneService: Service {
    let service: ChatService
    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Returns at once when the server starts shutting down.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(600)) }
            if Task.isShuttingDownGracefully { break }
            try? service.pruneSyncLog()
        }
    }
}

/// Outermost middleware: one log line per request, errors in PROTOCOL.md's
/// body, and signed media GETs (whose keys are checked before any routing).
struct FrontMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext
    let service: ChatService
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            if request.uri.path.hasPrefix("/media/object/") {
                response = try mediaObject(request)
            } else {
                response = try await next(request, context)
            }
        } catch {
            if let f = error as? APIFailure
                ?? (error is HTTPError || error is DecodingError ? APIFailure.from(error) : nil)
                ?? (APIFailure.isStorageFull(error) ? APIFailure.storageFull : nil) {
                if f.code == .storageFull { logger.error("storage full on \(request.method) \(request.uri.path): \(error)") }
                response = f.response
            } else {
                logger.error("internal error on \(request.method) \(request.uri.path): \(error)")
                let body = (try? JSONEncoder().encode(APIErrorBody(rawCode: "internal", message: "the server failed; nothing was lost, try again"))) ?? Data()
                response = Response(status: .internalServerError, headers: [.contentType: "application/json; charset=utf-8"],
                                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        let took = (ContinuousClock.now - start).components
        let ms = took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(ms)ms")
        return response
    }

    func mediaObject(_ request: Request) throws -> Response {
        guard request.method == .get || request.method == .head else { throw APIFailure.notFound("no such endpoint") }
        let raw = String(request.uri.path.dropFirst("/media/object/".count))
        let key = raw.removingPercentEncoding ?? raw
        let q = request.uri.queryParameters
        let (data, type) = try service.fetchObject(key: key, exp: q.get("exp"), sig: q.get("sig"))
        var headers: HTTPFields = [.contentType: type, .cacheControl: "private, max-age=3600"]
        headers[.contentLength] = String(data.count)
        if MediaStore.isFileKey(key) {
            headers[.contentDisposition] = "attachment"
            headers[.init("X-Content-Type-Options")!] = "nosniff"
        }
        return Response(status: .ok, headers: headers,
                        body: request.method == .head ? .init() : .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Resolves the bearer token; 401 with the protocol body otherwise.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ChatRequestContext
    let service: ChatService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = Self.token(from: request.headers[.authorization]), let uid = try service.authenticate(token: token) else {
            throw APIFailure.unauthorized
        }
        try service.checkRate(uid: uid)
        var ctx = context
        ctx.uid = uid
        ctx.token = token
        return try await next(request, ctx)
    }

    /// The token of `Bearer <token>` (scheme in any case, blanks around the
    /// token ignored). Byte-level: it runs on every request.
    static func token(from header: String?) -> String? {
        guard let header else { return nil }
        let bytes = header.utf8
        let scheme = "bearer ".utf8
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ a, b in a == b || (a >= 0x41 && a <= 0x5A && a | 0x20 == b) }) else { return nil }
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let rest = bytes.dropFirst(scheme.count)
        guard let first = rest.firstIndex(where: { !blank($0) }), let last = rest.lastIndex(where: { !blank($0) }) else { return nil }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

/// Breaks the hub -> service cycle.
final class WeakService: Sendable {
    weak let service: ChatService?
    init(_ service: ChatService) { self.service = service }
}
