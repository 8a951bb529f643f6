import ChatCore
@testable import ChatServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization

/// The whole server in this process, over a throwaway SQLite database, reached
/// without sockets: a request goes through the same middleware, controllers
/// and services as one over HTTP (Hummingbird's router, called directly, as
/// its own `RouterTestFramework` does). The client's tests run on it, so
/// every rule of PROTOCOL.md exists once, in `ChatServer`.
///
/// Its clock is a hand-moved one read from the wall once at the start, and
/// every reading is later than the one before, so no two events tie.
/// Passwords are hashed with one round: the server's floor of 100,000 is
/// for real accounts, and a test suite registers hundreds.
public final class LocalServer: Sendable {
    let services: ServerServices
    let config: ServerConfig
    private let responder: RouterResponder<ChatRequestContext>
    private let clock: TickingClock
    private let directory: URL
    /// Listeners opened by `onSyncNotice` (closed by `shutdown`).
    private let listeners = Mutex<[(Task<Void, Never>, NIOAsyncTestingChannel)]>([])

    /// A new, empty server whose files live under `directory` (created).
    public init(directory: URL, configure: (inout ServerConfig) -> Void = { _ in }) throws {
        let clock = TickingClock(startMs: Int(Date().timeIntervalSince1970 * 1000))
        var config = ServerConfig()
        config.dataDir = directory.path
        config.port = 0
        config.passwordRounds = 1
        config.minimumPasswordRounds = 1
        // A test suite signs hundreds up from one place; a test of a limit sets it.
        config.limits = .unlimited
        config.clock = clock.serverClock
        // Requests reach it in this process, one test's at a time: no threads of its own.
        config.storageThreads = 0
        config.logger = Logger(label: "tongban-local-server", factory: { _ in SwiftLogNoOpLogHandler() })
        configure(&config)
        self.config = config
        self.clock = clock
        self.directory = directory
        services = try ServerServices(config: config)
        responder = ChatServerApp.buildRouter(service: services, config: config).buildResponder()
    }

    /// Closes the database and removes the server's files.
    public func shutdown() async {
        for (task, channel) in listeners.withLock({ $0 }) {
            task.cancel()
            try? await channel.close()
        }
        services.hub.closeAll()
        await services.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Requests

    /// One request, answered as the HTTP server would answer it. `authority`
    /// is the host the client believes it talks to (signed media URLs name it).
    public func respond(method: String, authority: String, pathAndQuery: String, headers: [String: String],
                        body: Data?) async -> (status: Int, headers: [String: String], body: Data) {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        if let body { fields[.contentLength] = String(body.count) }
        guard let verb = HTTPRequest.Method(method) else { return (405, [:], Data()) }
        let head = HTTPRequest(method: verb, scheme: "http", authority: authority,
                               path: pathAndQuery, headerFields: fields)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body ?? Data())))
        let context = ChatRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: config.logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            // FrontMiddleware turns every failure into an answer; this is its own.
            return (500, [:], Data())
        }
        let writer = CollectingWriter()
        var out: [String: String] = [:]
        for field in response.headers { out[field.name.canonicalName] = field.value }
        do { try await response.body.write(writer) } catch { return (500, [:], Data()) }
        return (Int(response.status.code), out, writer.bytes)
    }

    // MARK: - Acting for users, without a request

    /// Registers an account (the server's rules for `/auth/register`).
    public func register(account: String, password: String, username: String?) throws -> AuthResponse {
        try services.auth.register(RegisterRequest(account: account, password: password, username: username))
    }

    /// `uid` sends, as `/chat/message/send` would; returns the stored message.
    public func send(as uid: Int, _ request: SendMessageRequest) throws -> WireMessage {
        let response = try services.messages.send(caller: uid, request: request)
        guard let row = try services.storage.read({ tx in
            try tx.messages.message(in: request.recvID, clientMsgID: request.clientMsgId)
        }) else {
            throw APIFailure.invalid("the message \(response.serverMsgID) was not stored")
        }
        return row.wire
    }

    /// A user's account name and display name.
    public func user(_ uid: Int) throws -> UserBasicInfo { try services.users.user(uid: uid) }

    // MARK: - The server's view

    /// Every message of a conversation as stored, by seq (revoked ones as revoked).
    public func messages(in conversationId: String) throws -> [WireMessage] {
        try services.storage.read { tx in
            try tx.messages.messages(in: conversationId, after: 0, limit: Int(Int32.max), for: nil).map(\.wire)
        }
    }

    /// `uid`'s summary of a conversation, as `/chat/conversations` gives it.
    public func summary(of conversationId: String, for uid: Int) throws -> ConversationSummary {
        try services.storage.read { tx in try services.conversations.summary(conversationId, for: uid, in: tx) }
    }

    /// The newest cursor of `uid`'s sync log.
    public func syncCursor(of uid: Int) throws -> Int { try services.syncLog.currentCursor(uid: uid) }

    /// How long after sending a message may be revoked.
    public var revokeWindowSeconds: Int { config.revokeWindowSeconds }

    // MARK: - Time, the log and presence

    /// The server's clock, Unix milliseconds.
    public var nowMs: Int { clock.peek }

    /// Moves the server's clock on (past the revoke window, say).
    public func advanceClock(byMilliseconds ms: Int) { clock.advance(ms: ms) }

    /// Drops every event logged so far, as the retention does after a week:
    /// a client asking from an older cursor gets 410 `cursor_expired`.
    public func expireSyncLog() throws { try services.syncLog.prune(olderThanMs: clock.serverClock.nowMs() + 1) }

    /// `handler` hears `uid`'s newest cursor whenever their log grows, as
    /// their push socket's `sync` notice says. Like a socket, the listener
    /// makes the user online: the server's own writer writes its frames to a
    /// channel that is not a socket, and they are read off it here.
    public func onSyncNotice(uid: Int, _ handler: @escaping @Sendable (Int) -> Void) {
        let outbox = SocketOutbox()
        let id = services.hub.connect(uid: uid, outbox: outbox)
        let hub = services.hub
        let channel = NIOAsyncTestingChannel()
        let task = Task {
            defer { hub.disconnect(uid: uid, id: id) }
            guard (try? await SocketWriter.attach(outbox, to: channel)) != nil else { return }
            while !Task.isCancelled, let frame = try? await channel.waitForOutboundWrite(as: WebSocketFrame.self) {
                guard let push = try? JSONDecoder().decode(PushFrame.self, from: Data(frame.unmaskedData.readableBytesView)),
                      case .sync(let cursor) = push else { continue }
                handler(cursor)
            }
        }
        listeners.withLock { $0.append((task, channel)) }
    }

    /// Shows `uid` online (or not) as a socket on another node would.
    public func setOnline(_ uid: Int, _ online: Bool) {
        services.hub.presence(on: "local-elsewhere", uid: uid, online: online)
    }
}

/// Each reading is later than the last one, so events never share a time.
final class TickingClock: Sendable {
    private let state: Mutex<(base: Int, last: Int)>

    init(startMs: Int) { state = Mutex((startMs, 0)) }

    var serverClock: ServerClock {
        ServerClock { [self] in
            state.withLock { s in
                s.last = max(s.base, s.last + 1)
                return s.last
            }
        }
    }

    var peek: Int { state.withLock { max($0.base, $0.last) } }

    func advance(ms: Int) { state.withLock { $0.base = max($0.base, $0.last) + ms } }
}

/// Collects a response body in memory.
private final class CollectingWriter: ResponseBodyWriter, Sendable {
    private let data = Mutex(Data())

    var bytes: Data { data.withLock { $0 } }

    func write(_ buffer: ByteBuffer) async throws { data.withLock { $0.append(contentsOf: buffer.readableBytesView) } }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
