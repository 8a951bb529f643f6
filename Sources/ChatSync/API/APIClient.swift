import AsyncHTTPClient
import ChatCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Every endpoint of PROTOCOL.md, typed, over HTTP. Thread-safe; the token
/// can change (login, logout) while calls are in flight.
public final class APIClient: ChatAPI {
    public let baseURL: String
    private let tokenBox: Mutex<String?>
    /// Carries the requests: HTTP (`HTTPClientTransport`), or in tests a
    /// server in the same process.
    let transport: any HTTPTransport
    public let timeout: TimeAmount

    /// The connections of every APIClient not given its own: a refused
    /// connection fails the request at once, and one that does not open
    /// fails after 3 s (HTTPClient.shared retries connecting until the
    /// request's own deadline, 15 s and more, so every send to a stopped
    /// server hung that long; the send queue and the sync engine have their
    /// own backoff); redirects are not followed (media comes from the
    /// logged-in server only).
    public static let sharedHTTP = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration)

    static var httpConfiguration: HTTPClient.Configuration {
        var config = HTTPClient.Configuration.singletonConfiguration
        config.timeout = .init(connect: .seconds(3), read: .seconds(90))
        config.redirectConfiguration = .disallow
        config.connectionPool.retryConnectionEstablishment = false
        return config
    }

    /// The CA file trusted besides the system's store (ClientTLS).
    public let caFile: String?

    /// `caFile`: a CA to trust for `https://` besides the system's store
    /// (default: `ClientTLS.caFile`); `http`: connections of its own.
    public convenience init(baseURL: String, token: String? = nil, timeout: TimeAmount = .seconds(15), caFile: String? = ClientTLS.caFile,
                http: HTTPClient? = nil) {
        self.init(baseURL: baseURL, token: token, timeout: timeout, caFile: caFile,
                  transport: http.map(HTTPClientTransport.init(http:))
                      ?? HTTPClientTransport(makingAtFirstUse: { ClientTLS.httpClient(caFile: caFile) }))
    }

    /// A client whose requests `transport` carries.
    public init(baseURL: String, token: String? = nil, timeout: TimeAmount = .seconds(15), caFile: String? = nil,
                transport: any HTTPTransport) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.tokenBox = Mutex(token)
        self.caFile = caFile
        self.transport = transport
        self.timeout = timeout
    }

    /// What the push socket (`wss://`) trusts: the same as the requests.
    public var pushTLSConfiguration: TLSConfiguration? { ClientTLS.configuration(caFile: caFile) }

    public var token: String? {
        get { tokenBox.withLock { $0 } }
        set { tokenBox.withLock { $0 = newValue } }
    }

    /// Told when the server refuses the token this client sends (a 401 to
    /// any request that carried one: revoked, logged out elsewhere). In a
    /// struct, not bare in the mutex (see the server's AfterSendHook).
    struct UnauthorizedHook: Sendable { let run: @Sendable () -> Void }
    private let unauthorizedHook = Mutex<UnauthorizedHook?>(nil)

    public func onUnauthorized(_ run: @escaping @Sendable () -> Void) {
        unauthorizedHook.withLock { $0 = UnauthorizedHook(run: run) }
    }

    // MARK: - Transport

    static let maxResponse = 32 * 1024 * 1024

    /// What `/auth/sessions` shows for this device: the program and the machine.
    static let userAgent: String = {
        var name = utsname()
        uname(&name)
        let field = { (t: Any) -> String in
            Mirror(reflecting: t).children.compactMap { $0.value as? CChar }.prefix { $0 != 0 }
                .map { String(UnicodeScalar(UInt8(bitPattern: $0))) }.joined()
        }
        // The node name uname already has: ProcessInfo.hostName would look
        // the name up in DNS, which may block (or never answer) here.
        return "tongban-terminal (\(field(name.sysname)) \(field(name.machine)); \(field(name.nodename)))"
    }()

    /// `sent`, when given, hears how many bytes of `body` the connection has
    /// taken so far (the body then goes out in chunks). `tokenRefusedOn401`:
    /// whether a 401 means the server no longer takes the token (false for
    /// a call whose 401 says something else: a wrong current password).
    func call(_ method: HTTPMethod, _ path: String, body: Data? = nil, contentType: String = "application/json",
              timeout: TimeAmount? = nil, sent: (@Sendable (Int) -> Void)? = nil,
              tokenRefusedOn401: Bool = true) async throws -> (Int, Data) {
        var request = HTTPTransportRequest(method: method.rawValue, url: baseURL + path)
        if let token { request.headers["Authorization"] = "Bearer \(token)" }
        request.headers["User-Agent"] = Self.userAgent
        if let body {
            request.headers["Content-Type"] = contentType
            request.body = body
        }
        let reply: HTTPTransportResponse
        do {
            reply = try await transport.exchange(request, timeout: timeout ?? self.timeout, limit: Self.maxResponse, sent: sent)
        } catch let e as APIError {
            throw e
        } catch {
            throw Self.classify(error)
        }
        guard (200..<300).contains(reply.status) else {
            if reply.status == 401, tokenRefusedOn401, request.headers["Authorization"] != nil {
                unauthorizedHook.withLock { $0 }?.run()
            }
            throw Self.refusal(reply)
        }
        return (reply.status, reply.body)
    }

    /// A server's answer that is not a success, as an error with its code.
    static func refusal(_ reply: HTTPTransportResponse, fallback: String? = nil) -> APIError {
        let status = reply.status
        let retry = reply.retryAfter
        if let body = try? JSONDecoder().decode(APIErrorBody.self, from: reply.body) {
            return APIError.server(status: status, code: APIErrorCode(rawValue: body.error.code), rawCode: body.error.code,
                                   message: body.error.message, retryAfter: retry)
        }
        return APIError.server(status: status, code: nil, rawCode: "http_\(status)", message: fallback ?? "HTTP \(status)",
                               retryAfter: retry)
    }

    /// A transport failure as the send queue needs it: could the server have
    /// applied the request? Only a connection that was never made says no.
    static func classify(_ error: any Error) -> APIError {
        if let e = error as? HTTPClientError, e == .connectTimeout { return .cannotConnect("no connection in time") }
        if let e = error as? HTTPClientError, e == .deadlineExceeded || e == .readTimeout { return .timeout }
        if error is NIOConnectionError { return .cannotConnect(describe(error)) }
        // Only errors that a connect alone raises: an unreachable host can
        // also be reported on a connection that is open.
        if let io = error as? IOError, [ECONNREFUSED, EADDRNOTAVAIL].contains(io.errnoCode) {
            return .cannotConnect(describe(error))
        }
        if case ChannelError.connectTimeout = error { return .cannotConnect("no connection in time") }
        // A failed TLS handshake comes before any request byte is written
        // (an unclean TLS shutdown, which may follow a request, does not count).
        if let e = error as? NIOSSLError {
            switch e {
            case .handshakeFailed, .unableToValidateCertificate: return .cannotConnect(describe(error))
            default: break
            }
        }
        if error is NIOSSLExtraError { return .cannotConnect(describe(error)) }
        return .unreachable(describe(error))
    }

    static func describe(_ error: any Error) -> String {
        if let tls = ClientTLS.describe(error) { return tls }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }

    func json<T: Decodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, body: (any Encodable)? = nil) async throws -> T {
        try await json(method, path, body: body) { try JSONDecoder().decode(T.self, from: $0) }
    }

    func json<T>(_ method: HTTPMethod, _ path: String, body: (any Encodable)? = nil, decode: (Data) throws -> T) async throws -> T {
        let data = try body.map { try JSONEncoder().encode($0) }
        let (_, reply) = try await call(method, path, body: data)
        do {
            return try decode(reply)
        } catch {
            throw APIError.badResponse("\(T.self): \(error)".prefix(200).description)
        }
    }

    func noContent(_ method: HTTPMethod, _ path: String, body: (any Encodable)? = nil) async throws {
        let data = try body.map { try JSONEncoder().encode($0) }
        _ = try await call(method, path, body: data)
    }

    // MARK: - Accounts and profiles

    public func register(account: String, password: String, username: String? = nil) async throws -> AuthResponse {
        try await json(AuthResponse.self, .POST, "/auth/register", body: RegisterRequest(account: account, password: password, username: username))
    }

    public func login(account: String, password: String) async throws -> AuthResponse {
        try await json(AuthResponse.self, .POST, "/auth/login", body: LoginRequest(account: account, password: password))
    }

    public func logout() async throws { try await noContent(.POST, "/auth/logout") }
    public func me() async throws -> UserBasicInfo { try await json(UserBasicInfo.self, .GET, "/user/me") }

    public func searchUsers(_ q: String) async throws -> [UserBasicInfo] {
        try await json([UserBasicInfo].self, .GET, "/user/search?q=\(Self.query(q))")
    }

    /// A new display name (`/user/profile/update`).
    public func rename(to username: String) async throws -> UserBasicInfo {
        try await json(UserBasicInfo.self, .POST, "/user/profile/update", body: UpdateProfileRequest(username: username))
    }

    public func profiles(_ uids: [Int]) async throws -> [UserBasicInfo] {
        try await json([UserBasicInfo].self, .POST, "/user/profile/openim-batch", body: ProfileBatchRequest(userIds: uids))
    }

    // MARK: - Messages

    public func send(_ request: SendMessageRequest) async throws -> SendMessageResponse {
        try await json(SendMessageResponse.self, .POST, "/chat/message/send", body: request)
    }

    public func revoke(conversationId: String, clientMsgID: String) async throws -> Int {
        try await json(SeqResponse.self, .POST, "/chat/message/revoke",
                       body: RevokeRequest(conversationId: conversationId, clientMsgId: clientMsgID)).seq
    }

    public func react(conversationId: String, clientMsgID: String, emoji: String, on: Bool) async throws -> Reactions {
        try await json(ReactResponse.self, .POST, "/chat/message/react",
                       body: ReactRequest(conversationId: conversationId, clientMsgId: clientMsgID, emoji: emoji, on: on)).reactions
    }

    public func edit(conversationId: String, clientMsgID: String, content: String) async throws -> WireMessage {
        try await json(WireMessage.self, .POST, "/chat/message/edit",
                       body: EditRequest(conversationId: conversationId, clientMsgId: clientMsgID, content: content))
    }

    public func addFavorite(conversationId: String, clientMsgID: String) async throws -> Favorite {
        try await json(Favorite.self, .POST, "/favorite/add", body: FavoriteAddRequest(conversationId: conversationId, clientMsgId: clientMsgID))
    }

    public func favorites(before: Int?, limit: Int) async throws -> FavoriteListResponse {
        try await json(FavoriteListResponse.self, .GET, "/favorite/list?limit=\(limit)" + (before.map { "&before=\($0)" } ?? ""))
    }

    public func removeFavorite(_ favoriteId: Int) async throws {
        try await noContent(.POST, "/favorite/remove", body: FavoriteRemoveRequest(favoriteId: favoriteId))
    }

    public func deleteMessages(conversationId: String, clientMsgIDs: [String]) async throws {
        try await noContent(.POST, "/chat/message/delete",
                            body: DeleteMessagesRequest(conversationId: conversationId, clientMsgIds: clientMsgIDs))
    }

    public func history(conversationId: String, beforeSeq: Int? = nil, afterSeq: Int? = nil, limit: Int = 40) async throws -> HistoryResponse {
        var path = "/chat/messages?conversation_id=\(Self.query(conversationId))&limit=\(limit)"
        if let beforeSeq { path += "&before_seq=\(beforeSeq)" }
        if let afterSeq { path += "&after_seq=\(afterSeq)" }
        return try await json(HistoryResponse.self, .GET, path)
    }

    // MARK: - Conversations

    public func conversations() async throws -> [ConversationSummary] {
        try await json([ConversationSummary].self, .GET, "/chat/conversations")
    }
    public func startConversation(userId: Int) async throws -> ConversationSummary {
        try await json(ConversationSummary.self, .POST, "/chat/conversation/start", body: StartConversationRequest(userId: userId))
    }
    public func pin(conversationId: String, isPinned: Bool) async throws -> ConversationSummary {
        try await json(ConversationSummary.self, .POST, "/chat/conversation/pin", body: PinRequest(conversationId: conversationId, isPinned: isPinned))
    }
    public func markRead(conversationId: String, seq: Int) async throws -> ConversationSummary {
        try await json(ConversationSummary.self, .POST, "/chat/conversation/read", body: ReadRequest(conversationId: conversationId, seq: seq))
    }
    public func deleteConversation(_ id: String) async throws {
        try await noContent(.POST, "/chat/conversation/delete", body: ConversationIDRequest(conversationId: id))
    }
    public func clearConversation(_ id: String) async throws {
        try await noContent(.POST, "/chat/conversation/clear", body: ConversationIDRequest(conversationId: id))
    }

    public func mute(conversationId: String, isMuted: Bool) async throws -> ConversationSummary {
        try await json(ConversationSummary.self, .POST, "/chat/conversation/mute", body: MuteRequest(conversationId: conversationId, isMuted: isMuted))
    }

    // MARK: - Groups

    public func createGroup(_ request: CreateGroupRequest) async throws -> GroupInfo {
        try await json(GroupInfo.self, .POST, "/group/create", body: request)
    }
    public func groupInfo(groupId: Int) async throws -> GroupInfo {
        try await json(GroupInfo.self, .GET, "/group/info?group_id=\(groupId)")
    }
    public func lookupGroup(uniqueName: String) async throws -> GroupInfo {
        try await json(GroupInfo.self, .GET, "/group/lookup?unique_name=\(Self.query(uniqueName))")
    }
    public func joinGroup(uniqueName: String) async throws -> ConversationSummary {
        try await json(ConversationSummary.self, .POST, "/group/join", body: JoinGroupRequest(uniqueName: uniqueName))
    }
    public func invite(groupId: Int, userIds: [Int]) async throws -> GroupInfo {
        try await json(GroupInfo.self, .POST, "/group/invite", body: InviteRequest(groupId: groupId, userIds: userIds))
    }
    public func leaveGroup(groupId: Int) async throws {
        try await noContent(.POST, "/group/leave", body: GroupIdRequest(groupId: groupId))
    }
    public func kick(groupId: Int, userId: Int) async throws {
        try await noContent(.POST, "/group/kick", body: KickRequest(groupId: groupId, userId: userId))
    }
    public func updateGroup(_ request: UpdateGroupRequest) async throws -> GroupInfo {
        try await json(GroupInfo.self, .POST, "/group/update", body: request)
    }
    public func groupMembersPage(groupId: Int, after: Int, limit: Int) async throws -> GroupMembersResponse {
        try await json(GroupMembersResponse.self, .GET, "/group/members?group_id=\(groupId)&after=\(after)&limit=\(limit)")
    }

    // MARK: - Sync

    public func sync(since: Int, limit: Int = 500) async throws -> SyncResponse {
        try await json(.GET, "/chat/sync?since=\(since)&limit=\(limit)", decode: SyncResponse.decode)
    }

    /// The WebSocket URL for push, token in the query (PROTOCOL.md allows
    /// both). Every server of PROTOCOL.md has `/chat/ws`; nil only when the
    /// transport cannot reach a socket (a server in the same process).
    public var pushURL: String? {
        guard transport.reachesSockets else { return nil }
        let ws = baseURL.hasPrefix("https://") ? "wss://" + baseURL.dropFirst(8) : "ws://" + baseURL.dropFirst(baseURL.hasPrefix("http://") ? 7 : 0)
        return ws + "/chat/ws?token=" + Self.query(token ?? "")
    }

    // MARK: - Media

    /// Uploads a file. `progress` hears the fraction of its bytes the
    /// connection has taken (0...1, once per whole percent); the upload is
    /// done when this returns.
    public func upload(_ data: Data, contentType: String, kind: String,
                       progress: (@Sendable (Double) -> Void)? = nil) async throws -> UploadResponse {
        let total = max(data.count, 1)
        let gate = PercentGate()
        var sent: (@Sendable (Int) -> Void)?
        if let progress {
            sent = { @Sendable (bytes: Int) in
                if gate.advance(to: bytes * 100 / total) { progress(Double(bytes) / Double(total)) }
            }
        }
        let (_, reply) = try await call(.POST, "/media/upload?type=\(kind)", body: data, contentType: contentType,
                                        timeout: .seconds(120), sent: sent)
        do { return try JSONDecoder().decode(UploadResponse.self, from: reply) } catch {
            throw APIError.badResponse("upload: \(error)")
        }
    }

    public func sign(_ keys: [String]) async throws -> SignResponse {
        try await json(SignResponse.self, .POST, "/media/sign", body: SignRequest(objectKeys: keys))
    }

    /// A signed URL for `objectKey` on the server we are logged in to: the
    /// `/media/object/<objectKey>?exp=…&sig=…` part of `url`, under our own
    /// base URL. A URL in a message payload was written by the peer's client,
    /// so its host (another machine, `http+unix://`, a local address) is
    /// never used; only the signature travels, and our server checks it.
    /// Nil when `url` holds no signed URL for this key.
    public func ownMediaURL(from url: String, objectKey: String) -> String? {
        guard !objectKey.isEmpty, let r = url.range(of: "/media/object/" + objectKey + "?") else { return nil }
        return baseURL + url[r.lowerBound...]
    }

    /// Downloads a signed URL of this server (no token: the signature is the
    /// permission). Other URLs are refused without a request.
    public func download(_ url: String, limit: Int = 32 * 1024 * 1024) async throws -> Data {
        guard url.hasPrefix(baseURL + "/media/object/") else {
            throw APIError.badResponse("refusing to download media from outside \(baseURL)")
        }
        let reply: HTTPTransportResponse
        do {
            reply = try await transport.exchange(HTTPTransportRequest(method: "GET", url: url), timeout: .seconds(60),
                                                 limit: limit, sent: nil)
        } catch let e as APIError {
            throw e
        } catch {
            throw Self.classify(error)
        }
        guard reply.status == 200 else { throw Self.refusal(reply, fallback: "download failed") }
        return reply.body
    }

    // MARK: - Signals

    public func createSignal(_ content: String) async throws -> Int {
        try await json(SignalCreateResponse.self, .POST, "/signal/create", body: SignalCreateRequest(content: content)).signalId
    }
    public func replySignal(signalId: Int, content: String) async throws -> String {
        try await json(SignalReplyResponse.self, .POST, "/signal/reply", body: SignalReplyRequest(signalId: signalId, content: content)).receiveId
    }
    public func signalInbox() async throws -> [SignalInboxItem] {
        try await json([SignalInboxItem].self, .GET, "/signal/inbox")
    }
    public func openIM(receiveId: String) async throws {
        try await noContent(.POST, "/signal/open-im", body: OpenIMRequest(receiveId: receiveId))
    }
    public func signalFeed(before: Int?, limit: Int) async throws -> [SignalFeedItem] {
        try await json([SignalFeedItem].self, .GET, "/signal/feed?limit=\(limit)" + (before.map { "&before=\($0)" } ?? ""))
    }
    public func mySignals() async throws -> [MySignal] { try await json([MySignal].self, .GET, "/signal/mine") }
    public func deleteSignal(_ signalId: Int) async throws {
        try await noContent(.POST, "/signal/delete", body: SignalIdRequest(signalId: signalId))
    }
    public func hideSignal(_ signalId: Int) async throws {
        try await noContent(.POST, "/signal/hide", body: SignalIdRequest(signalId: signalId))
    }
    public func reportSignal(_ signalId: Int, reason: String) async throws {
        try await noContent(.POST, "/signal/report", body: SignalReportRequest(signalId: signalId, reason: reason))
    }

    // MARK: - Typing and read receipts (v4)

    public func typing(conversationId: String) async throws {
        try await noContent(.POST, "/chat/typing", body: TypingRequest(conversationId: conversationId))
    }
    public func readCounts(conversationId: String, seqs: [Int]) async throws -> ReadCountsResponse {
        try await json(ReadCountsResponse.self, .GET, "/chat/message/read-counts?conversation_id=\(Self.query(conversationId))"
                       + "&seqs=" + seqs.map(String.init).joined(separator: ","))
    }
    public func readers(conversationId: String, seq: Int) async throws -> ReadersResponse {
        try await json(ReadersResponse.self, .GET, "/chat/message/readers?conversation_id=\(Self.query(conversationId))&seq=\(seq)")
    }

    // MARK: - Seed gaps (v4)

    public func dissolveGroup(groupId: Int) async throws {
        try await noContent(.POST, "/group/dissolve", body: GroupIdRequest(groupId: groupId))
    }
    public func myRooms() async throws -> [RoomInfo] { try await json([RoomInfo].self, .GET, "/room/mine") }
}

/// Lets a progress report through once per whole percent.
final class PercentGate: Sendable {
    private let last = Mutex(-1)

    func advance(to percent: Int) -> Bool {
        last.withLock { last in
            guard percent > last else { return false }
            last = percent
            return true
        }
    }
}
