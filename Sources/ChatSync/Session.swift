import ChatCore
import ChatStore
import Foundation

/// A logged-in user on one server: the token file, the store, the API
/// client, the sync engine and the send queue, wired together (seed 002's
/// ChatContext).
public final class Session: Sendable {
    public struct Credentials: Codable, Sendable, Hashable {
        public var server: String
        public var account: String
        public var uid: Int
        public var imUid: String
        public var username: String
        public var token: String
        /// The CA file the login trusted (ClientTLS); later runs trust it too.
        public var caFile: String?
        /// v4: this login's session, as `/auth/sessions` and `new_login` name
        /// it, and when the server made it (its clock, ms). Nil for a login
        /// saved before v4 or a server that does not say.
        public var sessionId: String?
        public var signedInAt: Int?

        public init(server: String, account: String, uid: Int, imUid: String, username: String, token: String,
                    caFile: String? = nil, sessionId: String? = nil, signedInAt: Int? = nil) {
            self.server = server; self.account = account; self.uid = uid
            self.imUid = imUid; self.username = username; self.token = token; self.caFile = caFile
            self.sessionId = sessionId; self.signedInAt = signedInAt
        }

        /// What tells this device's own sign-in from other devices' ones.
        public var ownLogin: OwnLogin { OwnLogin(sessionId: sessionId, signedInAt: signedInAt) }

        /// `--ca-file` / `TONGBAN_CA_FILE` first, then the login's own.
        var trustedCAFile: String? { ClientTLS.caFile ?? caFile }
    }

    public let credentials: Credentials
    public let paths: StorePaths
    /// The server and the store are ChatSync's alone: everything above it
    /// reads through `reader` and writes through the actions
    /// (Session+Actions.swift), the sync engine and the send queue.
    let api: any ChatAPI
    let store: ChatStore
    public let sync: SyncEngine
    public let sendQueue: SendQueue
    public let media: MediaCacheService

    /// The store, read-only.
    public var reader: any StoreReader { store }

    /// Talks to `credentials.server` over HTTP with the saved token.
    public convenience init(credentials: Credentials, paths: StorePaths, timing: SyncEngine.Timing = .init()) throws {
        try self.init(credentials: credentials, paths: paths,
                      api: APIClient(baseURL: credentials.server, token: credentials.token, caFile: credentials.trustedCAFile),
                      timing: timing)
    }

    /// Talks to the server through `api`, logged in as `credentials.uid`
    /// (its token is `api`'s business). `sendPolicy` paces the send queue's
    /// retries.
    public init(credentials: Credentials, paths: StorePaths, api: any ChatAPI, timing: SyncEngine.Timing = .init(),
                sendPolicy: SendQueue.Policy = .init()) throws {
        self.credentials = credentials
        self.paths = paths
        self.api = api
        store = try ChatStore(paths: paths, server: credentials.server, uid: credentials.uid)
        sync = SyncEngine(api: api, store: store, timing: timing, ownLogin: credentials.ownLogin)
        // A 401 to any call (a send, an action, a pull) ends the login, as the socket's 4001 does.
        let engine = sync
        (api as? APIClient)?.onUnauthorized { [weak engine] in engine?.loginEnded() }
        media = MediaCacheService(root: paths.cacheDirectory, uid: credentials.uid, api: api)
        sendQueue = SendQueue(api: api, store: store, media: media, policy: sendPolicy, deviceId: credentials.sessionId)
        sync.attach(media: media)
        let keys = store
        media.openSecretBlobs { key in try? keys.secretBlobKey(objectKey: key) }
    }

    static func credentialsURL(_ paths: StorePaths) -> URL {
        paths.dataDirectory.appendingPathComponent("session.json")
    }

    /// The saved login, if any.
    public static func saved(paths: StorePaths) throws -> Credentials? {
        guard let data = FileManager.default.contents(atPath: credentialsURL(paths).path) else { return nil }
        return try JSONDecoder().decode(Credentials.self, from: data)
    }

    /// Logs in and keeps the token (0600).
    public static func login(server: String, account: String, password: String, paths: StorePaths) async throws -> Credentials {
        let api = APIClient(baseURL: server)
        let auth = try await api.login(account: account, password: password)
        let creds = Credentials(server: api.baseURL, account: account, uid: auth.uid, imUid: auth.imUid,
                                username: auth.username, token: auth.token, caFile: api.caFile, sessionId: auth.sessionId,
                                signedInAt: await signedInAt(auth, on: api))
        try save(creds, paths: paths)
        return creds
    }

    /// When the server made this login, by its own clock (as `new_login`
    /// events carry theirs): the sign-ins logged before it are no news to
    /// this device, which pulls them too when its store is new. Nil when
    /// the server does not say; every other sign-in is news then.
    static func signedInAt(_ auth: AuthResponse, on api: APIClient) async -> Int? {
        guard let id = auth.sessionId else { return nil }
        api.token = auth.token
        return (try? await api.sessions())?.first { $0.sessionId == id }?.createdAt
    }

    /// Creates the account (PROTOCOL.md `/auth/register`), logs it in and
    /// keeps the token (0600). What the server would refuse for its form is
    /// refused here first, without a round trip.
    public static func register(server: String, account: String, password: String, username: String?,
                                paths: StorePaths) async throws -> Credentials {
        if let problem = AccountRules.problem(account: account, password: password) { throw problem }
        let api = APIClient(baseURL: server)
        let name = username?.trimmingCharacters(in: .whitespacesAndNewlines)
        let auth: AuthResponse
        do {
            auth = try await api.register(account: account, password: password, username: name?.isEmpty == false ? name : nil)
        } catch let e as APIError where e.code == .conflict {
            throw AccountRules.Problem.accountTaken(account)
        }
        // A new account's log holds no earlier sign-in: every later one is news.
        let creds = Credentials(server: api.baseURL, account: account, uid: auth.uid, imUid: auth.imUid,
                                username: auth.username, token: auth.token, caFile: api.caFile, sessionId: auth.sessionId)
        try save(creds, paths: paths)
        return creds
    }

    public static func save(_ creds: Credentials, paths: StorePaths) throws {
        try StorePaths.makePrivateDirectory(paths.dataDirectory)
        let url = credentialsURL(paths)
        let data = try JSONEncoder().encode(creds)
        let old = umask(0o077)
        defer { umask(old) }
        try data.write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// Ends the session on the server (best effort) and forgets the token.
    /// The local history stays for the next login of the same user.
    public static func logout(paths: StorePaths) async throws -> Bool {
        guard let creds = try saved(paths: paths) else { return false }
        try? await APIClient(baseURL: creds.server, token: creds.token, caFile: creds.trustedCAFile).logout()
        // The device's secret-chat keys, sessions and decrypted secret history go with the login.
        try ChatStore(paths: paths, server: creds.server, uid: creds.uid).forgetSecrets()
        try FileManager.default.removeItem(at: credentialsURL(paths))
        return true
    }

    /// Drops the saved token the server no longer takes (nothing to tell
    /// it); the stores stay for the next login of the same user.
    public static func forgetLogin(paths: StorePaths) throws {
        if FileManager.default.fileExists(atPath: credentialsURL(paths).path) {
            try FileManager.default.removeItem(at: credentialsURL(paths))
        }
    }

    /// The one-to-one conversation with a peer named by uid (`7` or `tb_7`),
    /// account or display name, from the local store alone: works offline
    /// for anyone chatted with before. nil when the store does not know them.
    public func localConversation(with peer: String) throws -> String? {
        let me = credentials.uid
        // A group: `sg_7`, its unique name or its name.
        if ConversationIDHelper.isGroup(peer) { return peer }
        if let group = try store.group(named: peer) { return group.conversationId }
        if let uid = Int(peer) ?? (peer.hasPrefix("tb_") ? Int(peer.dropFirst(3)) : nil), uid > 0 {
            return ConversationIDHelper.make(myUid: me, targetUid: uid)
        }
        if let p = try store.profile(account: peer) { return ConversationIDHelper.make(myUid: me, targetUid: p.uid) }
        return try store.conversationList().first(where: { $0.nickname == peer })?.id
    }

    /// The conversation with `peer` (an account, else a display name),
    /// started on the server if new.
    public func conversation(with peer: String) async throws -> String {
        if let local = try localConversation(with: peer) { return local }
        let user = try await user(named: peer)
        let summary = try await api.startConversation(userId: user.uid)
        try store.saveSummaries([summary])
        try store.saveProfiles([user])
        return summary.conversationId
    }

    /// A user named by uid (`7`, `tb_7`), account, else display name: the
    /// local cache first, then the server's search (an exact account, a
    /// display name only one user has, or the only match).
    public func user(named name: String) async throws -> UserBasicInfo {
        if let uid = Int(name) ?? ConversationIDHelper.uid(fromImUid: name), uid > 0 {
            if let known = try store.profiles(uids: [uid])[uid] { return known }
            if let info = try await api.profiles([uid]).first { return info }
        }
        if let known = try store.profile(account: name) { return known }
        let found = try await api.searchUsers(name)
        let exactAccount = found.first { $0.account == name }
        let exactName = found.filter { $0.username == name }
        guard let user = exactAccount ?? (exactName.count == 1 ? exactName.first : nil) ?? (found.count == 1 ? found.first : nil) else {
            let why = found.isEmpty ? "no user \(name)" : "\(name) matches \(found.count) users; give their account"
            throw APIError.server(status: 404, code: .notFound, rawCode: "not_found", message: why, retryAfter: nil)
        }
        try store.saveProfiles([user])
        return user
    }

    /// The members of a group, from the server when it answers (and cached
    /// for offline use), else from the cache.
    public func members(groupId: Int) async throws -> [GroupMember] {
        do {
            let members = try await api.groupMembers(groupId: groupId)
            try store.saveMembers(members, groupId: groupId)
            return members
        } catch let e as APIError where !e.isPermanent {
            let cached = try store.members(groupId: groupId)
            if cached.isEmpty { throw e }
            return cached
        }
    }
}
