import ChatCore
import ChatStore
import ChatSync
import Foundation
import NIOSSL
import Synchronization

/// An in-memory server of PROTOCOL.md (one-to-one and group chats), seen as one
/// logged-in user: a `ChatAPI` a `Session` can run on with no server, no
/// socket and no network.
///
/// The user it is made for is "me"; `addPeer` registers others, and
/// `peerSends` (or `peer(_:)`, a view of the same server as that user)
/// acts for them. Conversations, seqs, idempotent sends, history pages,
/// revoke, pin, mute, read and unread counts, delete and clear, groups with
/// their notices and mentions, each user's sync log, media and signals
/// follow PROTOCOL.md as the real server does.
///
/// There is no push socket (`pushURL` is nil). A test pulls with
/// `session.sync.pull()`, or has the fake ask for pulls as the socket's
/// notices would (`pushNotices(to:)`).
///
/// Test controls: `isDown` (every call fails as against a stopped server),
/// `failNext` (the next calls fail, before or after the server applied
/// them), `hold` (calls wait until released), `calls` (how many calls each
/// endpoint got), the clock (`advanceClock`), `expireSyncLog`, and the
/// server's own view of things (`messages(in:)`, `summary(of:)`).
public final class FakeChatAPI: ChatAPI {
    /// The calls of `ChatAPI`, for counting and failure injection.
    public enum Endpoint: String, Sendable, CaseIterable {
        case register, login, logout, me, searchUsers, rename, profiles
        case send, revoke, history
        case conversations, startConversation, pin, markRead, deleteConversation, clearConversation, mute
        case createGroup, groupInfo, lookupGroup, joinGroup, invite, leaveGroup, kick, updateGroup, groupMembers
        case sync
        case upload, sign, download
        case createSignal, replySignal, signalInbox, openIM
    }

    /// What the real client throws when nothing listens at the server's address.
    public static let unreachable = APIError.cannotConnect("connection refused")

    /// Where the fake pretends to live; its signed media URLs start here.
    public static let defaultBaseURL = "http://fake.tongban.test"

    struct Failure {
        var endpoint: Endpoint?
        var remaining: Int
        var error: APIError
        var afterApplying: Bool
    }

    /// What belongs to this view rather than to the server.
    struct Local {
        var counts: [Endpoint: Int] = [:]
        var failures: [Failure] = []
        var holds: [Endpoint: FakeGate] = [:]
        var loggedOut = false
    }

    let world: FakeWorld
    private let local = Mutex(Local())

    /// The user this view is logged in as.
    public let uid: Int
    public let account: String
    public var baseURL: String { world.baseURL }
    public var imUid: String { ConversationIDHelper.imUid(uid) }
    public var token: String { "fake-token-\(uid)" }

    /// A new, empty server with one user, `account` (3-32 of `[a-z0-9_]`), logged in.
    public convenience init(account: String = "myself", username: String? = nil, baseURL: String = FakeChatAPI.defaultBaseURL) throws {
        let world = FakeWorld(baseURL: baseURL)
        let user = try world.mutate { s in
            try s.register(account: account, password: "password-\(account)", username: username)
        }
        self.init(world: world, uid: user.uid, account: account)
    }

    init(world: FakeWorld, uid: Int, account: String) {
        self.world = world
        self.uid = uid
        self.account = account
    }

    /// This user's login, as `Session` keeps it.
    public var credentials: Session.Credentials {
        let name = world.read { $0.users[uid]?.username } ?? account
        return Session.Credentials(server: baseURL, account: account, uid: uid, imUid: imUid, username: name, token: token)
    }

    /// A session on this fake with its own store under `directory` (a new
    /// temporary folder when nil).
    public func makeSession(directory: URL? = nil, timing: SyncEngine.Timing = .init(),
                            sendPolicy: SendQueue.Policy = .init()) throws -> Session {
        let root = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("tongban-fake-\(account)-\(UUID().uuidString)")
        let paths = StorePaths(dataDirectory: root.appendingPathComponent("data"),
                               cacheDirectory: root.appendingPathComponent("cache"),
                               configDirectory: root.appendingPathComponent("config"))
        return try Session(credentials: credentials, paths: paths, api: self, timing: timing, sendPolicy: sendPolicy)
    }

    // MARK: - Other users

    /// Registers another user on this server.
    @discardableResult
    public func addPeer(_ account: String, username: String? = nil) throws -> UserBasicInfo {
        try world.mutate { s in try s.register(account: account, password: "password-\(account)", username: username).info }
    }

    /// The same server as seen by user `uid`, with its own call counts,
    /// failures and holds.
    public func peer(_ uid: Int) -> FakeChatAPI {
        let account = world.read { $0.users[uid]?.account } ?? "user\(uid)"
        return FakeChatAPI(world: world, uid: uid, account: account)
    }

    /// The one-to-one conversation of this user with `peer`.
    public func conversationId(with peer: Int) -> String { ConversationIDHelper.make(myUid: uid, targetUid: peer) }

    /// `peer` sends this user a text: it takes the conversation's next seq
    /// and lands in both sync logs, as a send through the server would.
    @discardableResult
    public func peerSends(from peer: Int, text: String, clientMsgID: String = UUID().uuidString) throws -> WireMessage {
        try peerSends(from: peer, contentType: ContentType.text, content: text, clientMsgID: clientMsgID)
    }

    /// `peer` sends this user any content (a custom payload's JSON, say).
    @discardableResult
    public func peerSends(from peer: Int, contentType: Int, content: String,
                          clientMsgID: String = UUID().uuidString) throws -> WireMessage {
        let conv = conversationId(with: peer)
        return try world.mutate { s in
            let r = try s.send(caller: peer, SendMessageRequest(recvID: conv, content: content, contentType: contentType,
                                                                clientMsgId: clientMsgID))
            return s.conversations[conv]!.messages[r.seq - 1].wire
        }
    }

    /// `peer` sends a text into a group's conversation.
    @discardableResult
    public func peerSends(from peer: Int, text: String, inGroup conversationId: String,
                          clientMsgID: String = UUID().uuidString) throws -> WireMessage {
        try world.mutate { s in
            let r = try s.send(caller: peer, SendMessageRequest(recvID: conversationId, content: text,
                                                                contentType: ContentType.text, clientMsgId: clientMsgID))
            return s.conversations[conversationId]!.messages[r.seq - 1].wire
        }
    }

    /// Whether the peer shows as online in summaries.
    public func setOnline(_ uid: Int, _ online: Bool) {
        world.mutate { s in
            if online { s.online.insert(uid) } else { s.online.remove(uid) }
        }
    }

    // MARK: - The server's view

    /// Every message of a conversation as the server keeps it, by seq.
    public func messages(in conversationId: String) -> [WireMessage] {
        world.read { $0.conversations[conversationId]?.messages.map(\.wire) ?? [] }
    }

    /// This user's summary of a conversation, as `/chat/conversations` gives it.
    public func summary(of conversationId: String) -> ConversationSummary? {
        world.read { s in try? s.summary(conversationId, for: uid) }
    }

    /// The newest cursor of this user's sync log.
    public var syncCursor: Int {
        world.read { $0.logs[uid]?.last?.cursor ?? 0 }
    }

    // MARK: - Failures, holds and counts

    /// True: every call, from any view of this server, fails as against a
    /// stopped server (`FakeChatAPI.unreachable`), and changes nothing.
    public var isDown: Bool {
        get { world.down.withLock { $0 } }
        set { world.down.withLock { $0 = newValue } }
    }

    /// The next `times` calls to `endpoint` (to any, when nil) fail with
    /// `error`. With `afterApplying` the server does the work first and the
    /// answer is what is lost (a timeout after a send was stored, say).
    public func failNext(_ endpoint: Endpoint? = nil, times: Int = 1, with error: APIError = FakeChatAPI.unreachable,
                         afterApplying: Bool = false) {
        guard times > 0 else { return }
        local.withLock {
            $0.failures.append(Failure(endpoint: endpoint, remaining: times, error: error, afterApplying: afterApplying))
        }
    }

    /// Calls to `endpoint` wait at the returned gate until it is released.
    public func hold(_ endpoint: Endpoint) -> FakeGate {
        let gate = FakeGate()
        local.withLock { $0.holds[endpoint] = gate }
        return gate
    }

    /// How many calls `endpoint` got through this view, failed ones included.
    public func calls(_ endpoint: Endpoint) -> Int { local.withLock { $0.counts[endpoint] ?? 0 } }

    public var callCounts: [Endpoint: Int] { local.withLock { $0.counts } }

    public func resetCallCounts() { local.withLock { $0.counts = [:] } }

    // MARK: - Time and the log

    /// The server's clock, Unix milliseconds.
    public var nowMs: Int { world.read { $0.nowMs } }

    /// Moves the server's clock on (past the revoke window, say).
    public func advanceClock(by duration: Duration) {
        let (seconds, attos) = duration.components
        let ms = Int(seconds) * 1000 + Int(attos / 1_000_000_000_000_000)
        world.mutate { $0.clockOffsetMs += ms }
    }

    /// How long after sending a message may be revoked (default 120 s).
    public var revokeWindowSeconds: Int {
        get { world.read { $0.revokeWindowSeconds } }
        set { world.mutate { $0.revokeWindowSeconds = newValue } }
    }

    /// Drops every event logged so far, as the server's retention does: a
    /// client asking from an older cursor gets 410 `cursor_expired`.
    public func expireSyncLog() { world.mutate { $0.expireLog() } }

    /// `handler` hears this user's newest cursor whenever their log grows:
    /// what the push socket's `sync` notice says.
    public func onSyncNotice(_ handler: @escaping @Sendable (Int) -> Void) {
        world.listen(uid: uid, handler)
    }

    /// Every growth of this user's log asks `engine` for a pull, as a push
    /// notice would.
    public func pushNotices(to engine: SyncEngine) {
        onSyncNotice { _ in engine.requestPull() }
    }

    // MARK: - One call

    func call<T: Sendable>(_ endpoint: Endpoint, needsLogin: Bool = true,
                           _ body: (inout FakeServerState, Int) throws -> T) async throws -> T {
        let gate = local.withLock { l -> FakeGate? in
            l.counts[endpoint, default: 0] += 1
            return l.holds[endpoint]
        }
        // A request never answers within the caller's own step.
        await Task.yield()
        if let gate { await gate.pass() }
        if isDown { throw Self.unreachable }
        let (failure, loggedOut) = local.withLock { l -> (Failure?, Bool) in
            guard let i = l.failures.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) else { return (nil, l.loggedOut) }
            let f = l.failures[i]
            l.failures[i].remaining -= 1
            if l.failures[i].remaining <= 0 { l.failures.remove(at: i) }
            return (f, l.loggedOut)
        }
        if let failure, !failure.afterApplying { throw failure.error }
        if needsLogin && loggedOut { throw FakeServerState.refuse(.unauthorized, "the token is no longer valid") }
        let uid = self.uid
        let result = try world.mutate { try body(&$0, uid) }
        if let failure, failure.afterApplying { throw failure.error }
        return result
    }

    // MARK: - ChatAPI: accounts and profiles

    public func register(account: String, password: String, username: String?) async throws -> AuthResponse {
        try await call(.register, needsLogin: false) { s, _ in
            let u = try s.register(account: account, password: password, username: username)
            return AuthResponse(uid: u.uid, imUid: ConversationIDHelper.imUid(u.uid), token: "fake-token-\(u.uid)", username: u.username)
        }
    }

    public func login(account: String, password: String) async throws -> AuthResponse {
        try await call(.login, needsLogin: false) { s, _ in
            let u = try s.login(account: account, password: password)
            return AuthResponse(uid: u.uid, imUid: ConversationIDHelper.imUid(u.uid), token: "fake-token-\(u.uid)", username: u.username)
        }
    }

    /// The token stops working: later calls through this view get 401.
    public func logout() async throws {
        try await call(.logout) { _, _ in }
        local.withLock { $0.loggedOut = true }
    }

    public func me() async throws -> UserBasicInfo {
        try await call(.me) { s, me in try s.user(me).info }
    }

    public func searchUsers(_ q: String) async throws -> [UserBasicInfo] {
        try await call(.searchUsers) { s, me in try s.search(q, caller: me) }
    }

    public func rename(to username: String) async throws -> UserBasicInfo {
        try await call(.rename) { s, me in try s.rename(caller: me, to: username) }
    }

    public func profiles(_ uids: [Int]) async throws -> [UserBasicInfo] {
        try await call(.profiles) { s, _ in try s.profiles(uids) }
    }

    // MARK: - ChatAPI: messages

    public func send(_ request: SendMessageRequest) async throws -> SendMessageResponse {
        try await call(.send) { s, me in try s.send(caller: me, request) }
    }

    public func revoke(conversationId: String, clientMsgID: String) async throws -> Int {
        try await call(.revoke) { s, me in try s.revoke(caller: me, conversationId, clientMsgID: clientMsgID) }
    }

    public func history(conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) async throws -> HistoryResponse {
        try await call(.history) { s, me in
            try s.history(caller: me, conversationId, beforeSeq: beforeSeq, afterSeq: afterSeq, limit: limit)
        }
    }

    // MARK: - ChatAPI: conversations

    public func conversations() async throws -> [ConversationSummary] {
        try await call(.conversations) { s, me in try s.list(caller: me) }
    }

    public func startConversation(userId: Int) async throws -> ConversationSummary {
        try await call(.startConversation) { s, me in try s.start(caller: me, userId: userId) }
    }

    public func pin(conversationId: String, isPinned: Bool) async throws -> ConversationSummary {
        try await call(.pin) { s, me in try s.updateMember(caller: me, conversationId) { m, _ in m.isPinned = isPinned } }
    }

    public func markRead(conversationId: String, seq: Int) async throws -> ConversationSummary {
        try await call(.markRead) { s, me in try s.markRead(caller: me, conversationId, seq: seq) }
    }

    public func deleteConversation(_ id: String) async throws {
        try await call(.deleteConversation) { s, me in try s.clear(caller: me, id, hide: true) }
    }

    public func clearConversation(_ id: String) async throws {
        try await call(.clearConversation) { s, me in try s.clear(caller: me, id, hide: false) }
    }

    public func mute(conversationId: String, isMuted: Bool) async throws -> ConversationSummary {
        try await call(.mute) { s, me in try s.mute(caller: me, conversationId, isMuted: isMuted) }
    }

    // MARK: - ChatAPI: groups

    public func createGroup(_ request: CreateGroupRequest) async throws -> GroupInfo {
        try await call(.createGroup) { s, me in try s.createGroup(caller: me, request) }
    }

    public func groupInfo(groupId: Int) async throws -> GroupInfo {
        try await call(.groupInfo) { s, me in try s.groupInfo(caller: me, gid: groupId) }
    }

    public func lookupGroup(uniqueName: String) async throws -> GroupInfo {
        try await call(.lookupGroup) { s, _ in try s.lookup(uniqueName: uniqueName) }
    }

    public func joinGroup(uniqueName: String) async throws -> ConversationSummary {
        try await call(.joinGroup) { s, me in try s.join(caller: me, uniqueName: uniqueName) }
    }

    public func invite(groupId: Int, userIds: [Int]) async throws -> GroupInfo {
        try await call(.invite) { s, me in try s.invite(caller: me, gid: groupId, userIds: userIds) }
    }

    public func leaveGroup(groupId: Int) async throws {
        try await call(.leaveGroup) { s, me in try s.leave(caller: me, gid: groupId) }
    }

    public func kick(groupId: Int, userId: Int) async throws {
        try await call(.kick) { s, me in try s.kick(caller: me, gid: groupId, userId: userId) }
    }

    public func updateGroup(_ request: UpdateGroupRequest) async throws -> GroupInfo {
        try await call(.updateGroup) { s, me in try s.updateGroup(caller: me, request) }
    }

    public func groupMembersPage(groupId: Int, after: Int, limit: Int) async throws -> GroupMembersResponse {
        try await call(.groupMembers) { s, me in try s.members(caller: me, gid: groupId, after: after, limit: limit) }
    }

    // MARK: - ChatAPI: sync

    public func sync(since: Int, limit: Int) async throws -> SyncResponse {
        try await call(.sync) { s, me in try s.syncPage(caller: me, since: since, limit: limit) }
    }

    /// No socket: the sync engine polls, or a test asks it to pull.
    public var pushURL: String? { nil }
    public var pushTLSConfiguration: TLSConfiguration? { nil }

    // MARK: - ChatAPI: media

    public func upload(_ data: Data, contentType: String, kind: String,
                       progress: (@Sendable (Double) -> Void)?) async throws -> UploadResponse {
        try await call(.upload) { s, me in
            let r = try s.upload(caller: me, data: data, contentType: contentType, kind: kind)
            progress?(1)
            return r
        }
    }

    public func sign(_ keys: [String]) async throws -> SignResponse {
        try await call(.sign) { s, me in try s.sign(caller: me, keys: keys) }
    }

    public func ownMediaURL(from url: String, objectKey: String) -> String? {
        guard !objectKey.isEmpty, let r = url.range(of: "/media/object/" + objectKey + "?") else { return nil }
        return baseURL + url[r.lowerBound...]
    }

    public func download(_ url: String, limit: Int) async throws -> Data {
        try await call(.download, needsLogin: false) { s, _ in try s.download(url, limit: limit) }
    }

    // MARK: - ChatAPI: signals

    public func createSignal(_ content: String) async throws -> Int {
        try await call(.createSignal) { s, me in try s.createSignal(caller: me, content) }
    }

    public func replySignal(signalId: Int, content: String) async throws -> String {
        try await call(.replySignal) { s, me in try s.replySignal(caller: me, signalId: signalId, content: content) }
    }

    public func signalInbox() async throws -> [SignalInboxItem] {
        try await call(.signalInbox) { s, me in s.inbox(caller: me) }
    }

    public func openIM(receiveId: String) async throws {
        try await call(.openIM) { s, me in try s.openIM(caller: me, receiveId: receiveId) }
    }
}
