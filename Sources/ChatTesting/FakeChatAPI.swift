import ChatCore
import ChatStore
import ChatSync
import Foundation
import Synchronization

/// The real server (`LocalServer`, over a throwaway SQLite database,
/// reached without sockets), seen as one logged-in user. `api` is an
/// `APIClient` whose requests go to that server's router in this process,
/// so the client's tests run the one copy of PROTOCOL.md's rules and no
/// call of the client is wrapped: failures, holds and counts are injected
/// by route, in the transport, where a real network would fail.
///
/// The user it is made for is "me"; `addPeer` registers others, and
/// `peerSends` (or `peer(_:)`, a view of the same server as that user)
/// acts for them.
///
/// There is no push socket (`api.pushURL` is nil). A test pulls with
/// `session.sync.pull()`, or has the fake ask for pulls as the socket's
/// notices would (`pushNotices(to:)`).
///
/// Test controls: `isDown` (every call fails as against a stopped server),
/// `failNext` (the next calls to a route fail, before or after the server
/// applied them), `hold` (calls to a route wait until released), `calls`
/// (how many calls a route got), the clock (`advanceClock`),
/// `expireSyncLog`, and the server's own view of things (`messages(in:)`,
/// `summary(of:)`).
public final class FakeChatAPI: Sendable {
    /// A route of PROTOCOL.md: what failures, holds and counts are keyed by.
    public struct Route: Hashable, Sendable, CustomStringConvertible {
        public let method: String
        /// The path without its query; `/media/object/` stands for every object.
        public let path: String
        public init(_ method: String, _ path: String) { self.method = method; self.path = path }
        public var description: String { "\(method) \(path)" }

        public static let send = Route("POST", "/chat/message/send")
        public static let sync = Route("GET", "/chat/sync")
        public static let conversations = Route("GET", "/chat/conversations")
        public static let pin = Route("POST", "/chat/conversation/pin")
        public static let changePassword = Route("POST", "/auth/password")
        public static let download = Route("GET", "/media/object/")

        /// The route of a request to `pathAndQuery`.
        init(method: String, pathAndQuery: String) {
            let path = String(pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            self.init(method, path.hasPrefix(Route.download.path) ? Route.download.path : path)
        }
    }

    /// What the real client throws when nothing listens at the server's address.
    public static let unreachable = APIError.cannotConnect("connection refused")

    /// Where the fake pretends to live; its signed media URLs start here.
    public static let defaultBaseURL = "http://fake.tongban.test"

    let world: FakeWorld
    let controls: FakeControls
    /// This user's client: the `ChatAPI` a session or a test calls.
    public let api: APIClient

    /// The user this view is logged in as.
    public let uid: Int
    public let account: String
    public var baseURL: String { world.baseURL }
    public var imUid: String { ConversationIDHelper.imUid(uid) }
    public let token: String

    /// A new, empty server with one user, `account` (3-32 of `[a-z0-9_]`), logged in.
    public convenience init(account: String = "myself", username: String? = nil, baseURL: String = FakeChatAPI.defaultBaseURL) throws {
        let world = try FakeWorld(baseURL: baseURL)
        let auth = try world.register(account: account, username: username)
        self.init(world: world, uid: auth.uid, account: account, token: auth.token)
    }

    init(world: FakeWorld, uid: Int, account: String, token: String) {
        self.world = world
        self.uid = uid
        self.account = account
        self.token = token
        controls = FakeControls()
        api = APIClient(baseURL: world.baseURL, token: token, transport: FakeTransport(world: world, controls: controls))
    }

    /// This user's login, as `Session` keeps it.
    public var credentials: Session.Credentials {
        let name = (try? world.server.user(uid).username) ?? account
        return Session.Credentials(server: baseURL, account: account, uid: uid, imUid: imUid, username: name, token: token)
    }

    /// A session on this fake with its own store under `directory` (a new
    /// temporary folder when nil).
    public func makeSession(directory: URL? = nil, timing: SyncEngine.Timing = .init(),
                            sendPolicy: SendQueue.Policy = .init()) throws -> Session {
        let root = directory ?? TestFolders.make("tongban-fake-\(account)")
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("data"),
                               cacheDirectory: root.appendingPathComponent("cache"),
                               configDirectory: root.appendingPathComponent("config"))
        return try Session(credentials: credentials, paths: paths, api: api, timing: timing, sendPolicy: sendPolicy)
    }

    // MARK: - Other users

    /// Registers another user on this server.
    @discardableResult
    public func addPeer(_ account: String, username: String? = nil) throws -> UserBasicInfo {
        let auth = try world.register(account: account, username: username)
        return try world.server.user(auth.uid)
    }

    /// The same server as seen by user `uid` (one `addPeer` made), with its
    /// own call counts, failures and holds.
    public func peer(_ uid: Int) -> FakeChatAPI {
        let account = (try? world.server.user(uid).account) ?? nil
        return FakeChatAPI(world: world, uid: uid, account: account ?? "user\(uid)", token: world.token(of: uid) ?? "")
    }

    /// The one-to-one conversation of this user with `peer`.
    public func conversationId(with peer: Int) -> String { ConversationIDHelper.make(myUid: uid, targetUid: peer) }

    /// `peer` sends this user a text: it takes the conversation's next seq
    /// and lands in both sync logs, as a send through the server does.
    @discardableResult
    public func peerSends(from peer: Int, text: String, clientMsgID: String = UUID().uuidString) throws -> WireMessage {
        try peerSends(from: peer, contentType: ContentType.text, content: text, clientMsgID: clientMsgID)
    }

    /// `peer` sends this user any content (a custom payload's JSON, say).
    @discardableResult
    public func peerSends(from peer: Int, contentType: Int, content: String,
                          clientMsgID: String = UUID().uuidString) throws -> WireMessage {
        try world.server.send(as: peer, SendMessageRequest(recvID: conversationId(with: peer), content: content,
                                                           contentType: contentType, clientMsgId: clientMsgID))
    }

    /// `peer` sends a text into a group's conversation.
    @discardableResult
    public func peerSends(from peer: Int, text: String, inGroup conversationId: String,
                          clientMsgID: String = UUID().uuidString) throws -> WireMessage {
        try world.server.send(as: peer, SendMessageRequest(recvID: conversationId, content: text,
                                                           contentType: ContentType.text, clientMsgId: clientMsgID))
    }

    /// Whether the peer shows as online in summaries.
    public func setOnline(_ uid: Int, _ online: Bool) { world.server.setOnline(uid, online) }

    // MARK: - The server's view

    /// Every message of a conversation as the server keeps it, by seq.
    public func messages(in conversationId: String) -> [WireMessage] {
        (try? world.server.messages(in: conversationId)) ?? []
    }

    /// This user's summary of a conversation, as `/chat/conversations` gives it.
    public func summary(of conversationId: String) -> ConversationSummary? {
        try? world.server.summary(of: conversationId, for: uid)
    }

    /// The newest cursor of this user's sync log.
    public var syncCursor: Int { (try? world.server.syncCursor(of: uid)) ?? 0 }

    // MARK: - Failures, holds and counts

    /// True: every call, from any view of this server, fails as against a
    /// stopped server (`FakeChatAPI.unreachable`), and changes nothing.
    public var isDown: Bool {
        get { world.down.withLock { $0 } }
        set { world.down.withLock { $0 = newValue } }
    }

    /// The next `times` calls to `route` (to any, when nil) fail with
    /// `error`. With `afterApplying` the server does the work first and the
    /// answer is what is lost (a timeout after a send was stored, say).
    public func failNext(_ route: Route? = nil, times: Int = 1, with error: APIError = FakeChatAPI.unreachable,
                         afterApplying: Bool = false) {
        guard times > 0 else { return }
        controls.state.withLock {
            $0.failures.append(FakeControls.Failure(route: route, remaining: times, error: error, afterApplying: afterApplying))
        }
    }

    /// Calls to `route` wait at the returned gate until it is released.
    public func hold(_ route: Route) -> FakeGate {
        let gate = FakeGate()
        controls.state.withLock { $0.holds[route] = gate }
        return gate
    }

    /// How many calls `route` got through this view, failed ones included.
    public func calls(_ route: Route) -> Int { controls.state.withLock { $0.counts[route] ?? 0 } }

    public func resetCallCounts() { controls.state.withLock { $0.counts = [:] } }

    // MARK: - Time and the log

    /// The server's clock, Unix milliseconds.
    public var nowMs: Int { world.server.nowMs }

    /// Moves the server's clock on (past the revoke window, say).
    public func advanceClock(by duration: Duration) {
        let (seconds, attos) = duration.components
        world.server.advanceClock(byMilliseconds: Int(seconds) * 1000 + Int(attos / 1_000_000_000_000_000))
    }

    /// How long after sending a message may be revoked (the server's default, 120 s).
    public var revokeWindowSeconds: Int { world.server.revokeWindowSeconds }

    /// Drops every event logged so far, as the server's retention does: a
    /// client asking from an older cursor gets 410 `cursor_expired`.
    public func expireSyncLog() { try? world.server.expireSyncLog() }

    /// `handler` hears this user's newest cursor whenever their log grows:
    /// what the push socket's `sync` notice says. Like a socket, it makes
    /// the user online.
    public func onSyncNotice(_ handler: @escaping @Sendable (Int) -> Void) {
        world.server.onSyncNotice(uid: uid, handler)
    }

    /// Every growth of this user's log asks `engine` for a pull, as a push
    /// notice would.
    public func pushNotices(to engine: SyncEngine) {
        onSyncNotice { _ in engine.requestPull() }
    }
}

/// One view's failures, holds and counts, which its transport applies.
final class FakeControls: Sendable {
    struct Failure {
        var route: FakeChatAPI.Route?
        var remaining: Int
        var error: APIError
        var afterApplying: Bool
    }

    struct State {
        var counts: [FakeChatAPI.Route: Int] = [:]
        var failures: [Failure] = []
        var holds: [FakeChatAPI.Route: FakeGate] = [:]
    }

    let state = Mutex(State())

    /// A call arrived: counted; the gate it waits at, if any.
    func arrive(_ route: FakeChatAPI.Route) -> FakeGate? {
        state.withLock { s in
            s.counts[route, default: 0] += 1
            return s.holds[route]
        }
    }

    /// The failure a call to `route` gets, if one is waiting for it.
    func failure(for route: FakeChatAPI.Route) -> Failure? {
        state.withLock { s in
            guard let i = s.failures.firstIndex(where: { $0.route == nil || $0.route == route }) else { return nil }
            let f = s.failures[i]
            s.failures[i].remaining -= 1
            if s.failures[i].remaining <= 0 { s.failures.remove(at: i) }
            return f
        }
    }
}
