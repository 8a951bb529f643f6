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

        public init(server: String, account: String, uid: Int, imUid: String, username: String, token: String) {
            self.server = server; self.account = account; self.uid = uid
            self.imUid = imUid; self.username = username; self.token = token
        }
    }

    public let credentials: Credentials
    public let paths: StorePaths
    public let api: APIClient
    public let store: ChatStore
    public let sync: SyncEngine
    public let repository: ChatRepository
    public let media: MediaCacheService

    public init(credentials: Credentials, paths: StorePaths, timing: SyncEngine.Timing = .init()) throws {
        self.credentials = credentials
        self.paths = paths
        api = APIClient(baseURL: credentials.server, token: credentials.token)
        store = try ChatStore(paths: paths, server: credentials.server, uid: credentials.uid)
        sync = SyncEngine(api: api, store: store, timing: timing)
        media = MediaCacheService(root: paths.cacheDirectory, uid: credentials.uid, api: api)
        repository = ChatRepository(api: api, store: store, media: media)
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
                                username: auth.username, token: auth.token)
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
        try? await APIClient(baseURL: creds.server, token: creds.token).logout()
        try FileManager.default.removeItem(at: credentialsURL(paths))
        return true
    }

    /// The conversation with `account` (searched by account name), started
    /// on the server if new.
    public func conversation(with account: String) async throws -> String {
        let found = try await api.searchUsers(account)
        let exact = found.first { $0.username == account } ?? found.first
        guard let user = exact else {
            throw APIError.server(status: 404, code: .notFound, rawCode: "not_found", message: "no user \(account)", retryAfter: nil)
        }
        let summary = try await api.startConversation(userId: user.uid)
        try store.saveSummaries([summary])
        try store.saveProfiles([user])
        return summary.conversationId
    }
}
