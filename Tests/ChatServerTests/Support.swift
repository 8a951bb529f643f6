import AsyncHTTPClient
import ChatCore
import ChatTesting
import Foundation
import GRDB
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization
import Testing
@testable import ChatServer
@testable import ChatServerPostgres

/// A real server on a free loopback port with its own data folder.
final class TestServer: Sendable {
    let running: RunningServer
    let dir: URL
    let config: ServerConfig

    /// `database`: a PostgreSQL database an earlier server used (a restart); nil makes a fresh one.
    static func start(dir: URL? = nil, database: String? = nil,
                      _ tweak: (inout ServerConfig) -> Void = { _ in }) async throws -> TestServer {
        let dir = dir ?? TestFolders.make("tongban-server")
        var config = ServerConfig()
        config.port = 0
        config.dataDir = dir.path
        config.databaseURL = try database ?? freshDatabase()
        config.usePostgres()
        var logger = Logger(label: "test-server")
        logger.logLevel = .error
        config.logger = logger
        // Suites sign many users up from one address; the limits' own tests set them.
        config.limits = .unlimited
        tweak(&config)
        return TestServer(running: try await ChatServerApp.start(config: config), dir: dir, config: config)
    }

    init(running: RunningServer, dir: URL, config: ServerConfig) {
        self.running = running; self.dir = dir; self.config = config
    }

    var port: Int { running.port }
    var base: String { running.baseURL }
    func stop() async { await running.stop() }
    var anonymous: API { API(base: base, token: nil) }
    /// The server's storage, for tests that reach under the services.
    var storage: any ChatStorage { running.service.storage }

    /// With TONGBAN_TEST_DATABASE_URL (an admin URL of a throwaway
    /// PostgreSQL cluster, which `make test` starts), every server gets a
    /// new database there and the suite runs on PostgreSQL; without it, on
    /// SQLite in the data folder.
    static var postgresAdminURL: String? {
        ProcessInfo.processInfo.environment["TONGBAN_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A new, empty database on the test cluster (nil on SQLite).
    static func freshDatabase() throws -> String? {
        guard let admin = postgresAdminURL else { return nil }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let pool = PostgresPool(configuration: try PostgresURL.parse(admin), size: 1, logger: Logger(label: "test-pg"))
        defer { pool.shutdown() }
        try pool.withConnection { conn in try conn.run("CREATE DATABASE \(name)") }
        guard var url = URLComponents(string: admin) else { return nil }
        url.path = "/" + name
        return url.string
    }

    /// Registers a fresh account.
    func user(_ name: String = "u\(Int.random(in: 0..<1_000_000_000))") async throws -> (API, AuthResponse) {
        let r = try await anonymous.post("/auth/register", RegisterRequest(account: name, password: "password-\(name)"))
        #expect(r.status == 201, "register \(name): \(r.text)")
        let auth = try r.decode(AuthResponse.self)
        return (API(base: base, token: auth.token), auth)
    }
}

struct Reply: Sendable {
    var status: Int
    var body: Data
    var headers: [(String, String)]
    var text: String { String(decoding: body, as: UTF8.self) }
    func decode<T: Decodable>(_ t: T.Type) throws -> T { try JSONDecoder().decode(T.self, from: body) }
    var errorCode: String? { (try? JSONDecoder().decode(APIErrorBody.self, from: body))?.error.code }
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

struct API: Sendable {
    let base: String
    let token: String?

    func send(_ method: HTTPMethod, _ path: String, body: Data? = nil, contentType: String = "application/json",
              headers: [String: String] = [:]) async throws -> Reply {
        var req = HTTPClientRequest(url: base + path)
        req.method = method
        for (name, value) in headers { req.headers.add(name: name, value: value) }
        if let token { req.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            req.headers.add(name: "Content-Type", value: contentType)
            req.body = .bytes(ByteBuffer(bytes: body))
        }
        let resp = try await HTTPClient.shared.execute(req, timeout: .seconds(30))
        let bytes = try await resp.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(resp.status.code), body: Data(bytes.readableBytesView),
                     headers: resp.headers.map { ($0.name, $0.value) })
    }

    func get(_ path: String) async throws -> Reply { try await send(.GET, path) }
    func post<T: Encodable>(_ path: String, _ value: T) async throws -> Reply {
        try await send(.POST, path, body: try JSONEncoder().encode(value))
    }
    func postRaw(_ path: String, _ raw: String) async throws -> Reply { try await send(.POST, path, body: Data(raw.utf8)) }

    func sendText(_ conversation: String, _ text: String, id: String = UUID().uuidString) async throws -> Reply {
        try await post("/chat/message/send", SendMessageRequest(recvID: conversation, content: text, contentType: 101, clientMsgId: id))
    }
    func sendCustom(_ conversation: String, _ fields: [String: Any], id: String = UUID().uuidString) async throws -> Reply {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        return try await post("/chat/message/send", SendMessageRequest(recvID: conversation, content: json, contentType: 110, clientMsgId: id))
    }
    func history(_ conversation: String, query: String = "") async throws -> HistoryResponse {
        try await get("/chat/messages?conversation_id=\(conversation)\(query)").decode(HistoryResponse.self)
    }
    func upload(_ data: Data, type: String, kind: String = "chat_image") async throws -> Reply {
        try await send(.POST, "/media/upload?type=\(kind)", body: data, contentType: type)
    }
}

/// A WebSocket connection that records every frame it receives.
final class WSProbe: Sendable {
    let frames = Mutex<[PushFrame]>([])
    let outbound = Mutex<WebSocketOutboundWriter?>(nil)
    let task = Mutex<Task<Void, any Error>?>(nil)
    /// The code the server closed the socket with, once it did.
    let closeCode = Mutex<WebSocketErrorCode?>(nil)

    static func open(port: Int, token: String) async throws -> WSProbe {
        let probe = WSProbe()
        let t = Task {
            var logger = Logger(label: "ws-probe")
            logger.logLevel = .error
            // Frames as large as a room's message of 4,000 characters can be.
            let closed = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/chat/ws?token=\(token)",
                                                           configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, outbound, _ in
                probe.outbound.withLock { $0 = outbound }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message, let f = try? JSONDecoder().decode(PushFrame.self, from: Data(text.utf8)) {
                        probe.frames.withLock { $0.append(f) }
                    }
                }
            }
            probe.closeCode.withLock { $0 = closed?.closeCode ?? .unknown(0) }
        }
        probe.task.withLock { $0 = t }
        #expect(await probe.wait { if case .hello = $0 { true } else { false } } != nil, "hello frame")
        return probe
    }

    /// How many frames have arrived so far (for `wait(after:)`).
    var count: Int { frames.withLock { $0.count } }

    /// Waits up to `timeout` for a frame matching `match`, among those that
    /// arrived after the first `after` (a second pong must not be the first).
    func wait(after: Int = 0, timeout: Duration = .seconds(5), _ match: (PushFrame) -> Bool) async -> PushFrame? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let f = frames.withLock({ $0.dropFirst(after).first(where: match) }) { return f }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Waits up to `timeout` for the server to close the socket; its code.
    func waitClosed(timeout: Duration = .seconds(5)) async -> WebSocketErrorCode? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let code = closeCode.withLock({ $0 }) { return code }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    func send(_ text: String) async throws {
        try await outbound.withLock { $0 }?.write(.text(text))
    }

    func close() async {
        try? await outbound.withLock { $0 }?.close(.normalClosure, reason: nil)
        let t = task.withLock { $0 }
        t?.cancel()
        _ = try? await t?.value
    }
}

func conversationId(_ a: AuthResponse, _ b: AuthResponse) -> String { ConversationIDHelper.make(myUid: a.uid, targetUid: b.uid) }
