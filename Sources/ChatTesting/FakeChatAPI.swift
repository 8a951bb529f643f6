import ChatCore
import ChatStore
import ChatSync
import Foundation
import NIOSSL
import Synchronization

/// The real server (`ChatServer`'s `LocalServer`, over a throwaway SQLite
/// database, reached without sockets), seen as one logged-in user: a
/// `ChatAPI` a `Session` can run on with no server process, no socket and no
/// network. Every request goes through `APIClient` and the server's own
/// router, so the client's tests run the one copy of PROTOCOL.md's rules.
///
/// The user it is made for is "me"; `addPeer` registers others, and
/// `peerSends` (or `peer(_:)`, a view of the same server as that user)
/// acts for them.
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
        case updateProfile, settings, setSettings, requestFriend, friendRequests, respondFriend, friends, removeFriend
        case remark, block, unblock, blocked, sessions, revokeSession, changePassword
        case send, revoke, react, edit, deleteMessages, history
        case addFavorite, favorites, removeFavorite
        case conversations, startConversation, pin, markRead, deleteConversation, clearConversation, mute
        case createGroup, groupInfo, lookupGroup, joinGroup, invite, leaveGroup, kick, updateGroup, groupMembers
        case sync
        case createRoom, rooms, lookupRoom, enterRoom, leaveRoom, roomPresent, updateRoom, kickFromRoom, unbanFromRoom
        case roomBans, dropRoom
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
    }

    let world: FakeWorld
    private let local = Mutex(Local())
    /// This user's client, whose requests reach the world's server in memory.
    let client: APIClient

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
        client = APIClient(baseURL: world.baseURL, token: token, transport: FakeTransport(world: world))
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

    // MARK: - One call

    func call<T: Sendable>(_ endpoint: Endpoint, _ body: (APIClient) async throws -> T) async throws -> T {
        let gate = local.withLock { l -> FakeGate? in
            l.counts[endpoint, default: 0] += 1
            return l.holds[endpoint]
        }
        // A request never answers within the caller's own step.
        await Task.yield()
        if let gate { await gate.pass() }
        if isDown { throw Self.unreachable }
        let failure = local.withLock { l -> Failure? in
            guard let i = l.failures.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) else { return nil }
            let f = l.failures[i]
            l.failures[i].remaining -= 1
            if l.failures[i].remaining <= 0 { l.failures.remove(at: i) }
            return f
        }
        if let failure, !failure.afterApplying { throw failure.error }
        let result = try await body(client)
        if let failure, failure.afterApplying { throw failure.error }
        return result
    }

    // MARK: - ChatAPI: accounts and profiles

    public func register(account: String, password: String, username: String?) async throws -> AuthResponse {
        try await call(.register) { try await $0.register(account: account, password: password, username: username) }
    }

    public func login(account: String, password: String) async throws -> AuthResponse {
        try await call(.login) { try await $0.login(account: account, password: password) }
    }

    /// The token stops working on the server: later calls through this view get 401.
    public func logout() async throws { try await call(.logout) { try await $0.logout() } }

    public func me() async throws -> UserBasicInfo { try await call(.me) { try await $0.me() } }

    public func searchUsers(_ q: String) async throws -> [UserBasicInfo] {
        try await call(.searchUsers) { try await $0.searchUsers(q) }
    }

    public func rename(to username: String) async throws -> UserBasicInfo {
        try await call(.rename) { try await $0.rename(to: username) }
    }

    public func profiles(_ uids: [Int]) async throws -> [UserBasicInfo] {
        try await call(.profiles) { try await $0.profiles(uids) }
    }

    // MARK: - ChatAPI: messages

    public func send(_ request: SendMessageRequest) async throws -> SendMessageResponse {
        try await call(.send) { try await $0.send(request) }
    }

    public func revoke(conversationId: String, clientMsgID: String) async throws -> Int {
        try await call(.revoke) { try await $0.revoke(conversationId: conversationId, clientMsgID: clientMsgID) }
    }

    public func react(conversationId: String, clientMsgID: String, emoji: String, on: Bool) async throws -> Reactions {
        try await call(.react) { try await $0.react(conversationId: conversationId, clientMsgID: clientMsgID, emoji: emoji, on: on) }
    }

    public func edit(conversationId: String, clientMsgID: String, content: String) async throws -> WireMessage {
        try await call(.edit) { try await $0.edit(conversationId: conversationId, clientMsgID: clientMsgID, content: content) }
    }

    public func addFavorite(conversationId: String, clientMsgID: String) async throws -> Favorite {
        try await call(.addFavorite) { try await $0.addFavorite(conversationId: conversationId, clientMsgID: clientMsgID) }
    }

    public func favorites(before: Int?, limit: Int) async throws -> FavoriteListResponse {
        try await call(.favorites) { try await $0.favorites(before: before, limit: limit) }
    }

    public func removeFavorite(_ favoriteId: Int) async throws {
        try await call(.removeFavorite) { try await $0.removeFavorite(favoriteId) }
    }

    public func deleteMessages(conversationId: String, clientMsgIDs: [String]) async throws {
        try await call(.deleteMessages) { try await $0.deleteMessages(conversationId: conversationId, clientMsgIDs: clientMsgIDs) }
    }

    public func history(conversationId: String, beforeSeq: Int?, afterSeq: Int?, limit: Int) async throws -> HistoryResponse {
        try await call(.history) {
            try await $0.history(conversationId: conversationId, beforeSeq: beforeSeq, afterSeq: afterSeq, limit: limit)
        }
    }

    // MARK: - ChatAPI: conversations

    public func conversations() async throws -> [ConversationSummary] {
        try await call(.conversations) { try await $0.conversations() }
    }

    public func startConversation(userId: Int) async throws -> ConversationSummary {
        try await call(.startConversation) { try await $0.startConversation(userId: userId) }
    }

    public func pin(conversationId: String, isPinned: Bool) async throws -> ConversationSummary {
        try await call(.pin) { try await $0.pin(conversationId: conversationId, isPinned: isPinned) }
    }

    public func markRead(conversationId: String, seq: Int) async throws -> ConversationSummary {
        try await call(.markRead) { try await $0.markRead(conversationId: conversationId, seq: seq) }
    }

    public func deleteConversation(_ id: String) async throws {
        try await call(.deleteConversation) { try await $0.deleteConversation(id) }
    }

    public func clearConversation(_ id: String) async throws {
        try await call(.clearConversation) { try await $0.clearConversation(id) }
    }

    public func mute(conversationId: String, isMuted: Bool) async throws -> ConversationSummary {
        try await call(.mute) { try await $0.mute(conversationId: conversationId, isMuted: isMuted) }
    }

    // MARK: - ChatAPI: groups

    public func createGroup(_ request: CreateGroupRequest) async throws -> GroupInfo {
        try await call(.createGroup) { try await $0.createGroup(request) }
    }

    public func groupInfo(groupId: Int) async throws -> GroupInfo {
        try await call(.groupInfo) { try await $0.groupInfo(groupId: groupId) }
    }

    public func lookupGroup(uniqueName: String) async throws -> GroupInfo {
        try await call(.lookupGroup) { try await $0.lookupGroup(uniqueName: uniqueName) }
    }

    public func joinGroup(uniqueName: String) async throws -> ConversationSummary {
        try await call(.joinGroup) { try await $0.joinGroup(uniqueName: uniqueName) }
    }

    public func invite(groupId: Int, userIds: [Int]) async throws -> GroupInfo {
        try await call(.invite) { try await $0.invite(groupId: groupId, userIds: userIds) }
    }

    public func leaveGroup(groupId: Int) async throws {
        try await call(.leaveGroup) { try await $0.leaveGroup(groupId: groupId) }
    }

    public func kick(groupId: Int, userId: Int) async throws {
        try await call(.kick) { try await $0.kick(groupId: groupId, userId: userId) }
    }

    public func updateGroup(_ request: UpdateGroupRequest) async throws -> GroupInfo {
        try await call(.updateGroup) { try await $0.updateGroup(request) }
    }

    public func groupMembersPage(groupId: Int, after: Int, limit: Int) async throws -> GroupMembersResponse {
        try await call(.groupMembers) { try await $0.groupMembersPage(groupId: groupId, after: after, limit: limit) }
    }

    // MARK: - ChatAPI: sync

    public func sync(since: Int, limit: Int) async throws -> SyncResponse {
        try await call(.sync) { try await $0.sync(since: since, limit: limit) }
    }

    /// No socket: the sync engine polls, or a test asks it to pull.
    public var pushURL: String? { nil }
    public var pushTLSConfiguration: TLSConfiguration? { nil }

    // MARK: - ChatAPI: media

    public func upload(_ data: Data, contentType: String, kind: String,
                       progress: (@Sendable (Double) -> Void)?) async throws -> UploadResponse {
        try await call(.upload) { try await $0.upload(data, contentType: contentType, kind: kind, progress: progress) }
    }

    public func sign(_ keys: [String]) async throws -> SignResponse {
        try await call(.sign) { try await $0.sign(keys) }
    }

    public func ownMediaURL(from url: String, objectKey: String) -> String? {
        client.ownMediaURL(from: url, objectKey: objectKey)
    }

    public func download(_ url: String, limit: Int) async throws -> Data {
        try await call(.download) { try await $0.download(url, limit: limit) }
    }

    // MARK: - ChatAPI: signals

    public func createSignal(_ content: String) async throws -> Int {
        try await call(.createSignal) { try await $0.createSignal(content) }
    }

    public func replySignal(signalId: Int, content: String) async throws -> String {
        try await call(.replySignal) { try await $0.replySignal(signalId: signalId, content: content) }
    }

    public func signalInbox() async throws -> [SignalInboxItem] {
        try await call(.signalInbox) { try await $0.signalInbox() }
    }

    public func openIM(receiveId: String) async throws {
        try await call(.openIM) { try await $0.openIM(receiveId: receiveId) }
    }
}
