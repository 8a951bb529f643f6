import ChatCore
import ChatServer
import ChatSync
import Foundation
import NIOCore
import Synchronization

/// The server every view of one fake shares: the real server in this
/// process (`LocalServer`), whether it is down, and each user's token.
final class FakeWorld: Sendable {
    let baseURL: String
    let server: LocalServer
    let down = Mutex(false)
    private let tokens = Mutex<[Int: String]>([:])
    private let directory: URL

    init(baseURL: String) throws {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        directory = TestFolders.make("tongban-local-server")
        server = try LocalServer(directory: directory)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Registers a user on the server and keeps their token.
    func register(account: String, username: String?) throws -> AuthResponse {
        let auth = try server.register(account: account, password: "password-\(account)", username: username)
        tokens.withLock { $0[auth.uid] = auth.token }
        return auth
    }

    func token(of uid: Int) -> String? { tokens.withLock { $0[uid] } }

    /// The host part of the base URL, as a request names it.
    var authority: String {
        let rest = baseURL.split(separator: "://", maxSplits: 1).last.map(String.init) ?? baseURL
        return rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? rest
    }
}

/// Carries an `APIClient`'s requests to the world's server, in memory,
/// through one view's controls: a call is counted, may wait at a gate, and
/// may fail before the server sees it or after it applied it.
struct FakeTransport: HTTPTransport {
    let world: FakeWorld
    let controls: FakeControls

    /// No socket reaches a server in the same process: the sync engine polls.
    var reachesSockets: Bool { false }

    func exchange(_ request: HTTPTransportRequest, timeout: TimeAmount, limit: Int,
                  sent: (@Sendable (Int) -> Void)?) async throws -> HTTPTransportResponse {
        guard request.url.hasPrefix(world.baseURL + "/") else { throw FakeChatAPI.unreachable }
        let pathAndQuery = String(request.url.dropFirst(world.baseURL.count))
        let route = FakeChatAPI.Route(method: request.method, pathAndQuery: pathAndQuery)
        let gate = controls.arrive(route)
        // A request never answers within the caller's own step.
        await Task.yield()
        if let gate { await gate.pass() }
        if world.down.withLock({ $0 }) { throw FakeChatAPI.unreachable }
        let failure = controls.failure(for: route)
        if let failure, !failure.afterApplying { throw failure.error }
        if let body = request.body, let sent { sent(body.count) }
        let reply = await world.server.respond(method: request.method, authority: world.authority, pathAndQuery: pathAndQuery,
                                               headers: request.headers, body: request.body)
        if let failure, failure.afterApplying { throw failure.error }
        guard reply.body.count <= limit else { throw APIError.badResponse("the answer is larger than \(limit) bytes") }
        return HTTPTransportResponse(status: reply.status, headers: reply.headers, body: reply.body)
    }
}

extension SendQueue.Policy {
    /// A send queue that tries again a millisecond or two after a transient
    /// failure: a test sees the next attempt without waiting.
    public static var retriesQuickly: Self {
        var policy = Self()
        policy.backoffBase = .milliseconds(1)
        policy.backoffCap = .milliseconds(2)
        return policy
    }
}
