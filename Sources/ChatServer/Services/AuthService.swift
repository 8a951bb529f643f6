import ChatCore
import Foundation
import Synchronization

/// Accounts, sign-in (throttled per account), bearer tokens and the
/// per-user request rate.
package final class AuthService: Sendable {
    package static let maxLoginFailures = 10
    static var accountPattern: Regex<Substring> { /^[a-z0-9_]{3,32}$/ }

    let storage: any ChatStorage
    let config: ServerConfig
    package static let loginWindowMs = 60_000
    /// Failed logins per account (`login`) and requests per user and second (`checkRate`).
    let limits: any SharedLimits
    /// Token hash -> uid of tokens seen valid; a logout removes its entry
    /// and moves `generation`, so a lookup that read the database before the
    /// logout cannot put the token back.
    struct TokenCache {
        var uids: [String: Int] = [:]
        var generation = 0
        /// Closed while a logout on another node could go unheard here (a
        /// cluster node whose listener is away): every lookup then asks the database.
        var open = true
    }
    let tokenCache = Mutex(TokenCache())
    /// Token hash -> when its `lastSeenAt` was last written here: a device's
    /// "last seen" moves at most once a minute, not on every request.
    let seenWritten = Mutex<[String: Int]>([:])
    static let seenEveryMs = 60_000
    /// Where those writes run: never on the request's thread, which must
    /// not wait for the database's writer for a bookkeeping write.
    private let seenQueue = DispatchQueue(label: "tongban.auth.seen")
    /// Set by `stop`: a last-seen write queued after it is dropped.
    private let stopped = Atomic<Bool>(false)
    /// The sockets to close when a token ends.
    let hub: PushHub

    /// `tokenCacheOpen`: false on a cluster's node until its listener hears
    /// other nodes' logouts (`setTokenCache(open:)`).
    init(storage: any ChatStorage, config: ServerConfig, limits: any SharedLimits, hub: PushHub, tokenCacheOpen: Bool = true) {
        self.storage = storage
        self.config = config
        self.limits = limits
        self.hub = hub
        tokenCache.withLock { $0.open = tokenCacheOpen }
    }

    /// A device's id as its user sees it (`/auth/sessions`): not the token.
    static func newSessionId() -> String {
        (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// What a client says it is, kept short and printable.
    static func userAgent(_ raw: String?) -> String {
        String((raw ?? "").unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(120).map(Character.init))
    }

    /// `seeded` skips the 3-character minimum: the demo's `me` account is
    /// made by the server itself (PROTOCOL.md's rule binds `/auth/register`).
    func register(_ r: RegisterRequest, seeded: Bool = false, userAgent: String? = nil) throws -> AuthResponse {
        guard r.account.wholeMatch(of: Self.accountPattern) != nil || (seeded && r.account == "me") else {
            throw APIFailure.invalid("account must be 3-32 characters of a-z, 0-9 and _")
        }
        guard (8...128).contains(r.password.count) else { throw APIFailure.invalid("password must be 8-128 characters") }
        let username = (r.username?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : $0 } ?? r.account
        guard username.count <= 64 else { throw APIFailure.invalid("username must be at most 64 characters") }
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let rounds = max(config.passwordRounds, config.minimumPasswordRounds)
        let hash = try Credentials.hashPassword(r.password, salt: salt, rounds: rounds)
        let token = Credentials.newToken()
        let clock = config.clock
        let uid: Int = try storage.write { tx in
            if try tx.accounts.isTaken(account: r.account) {
                throw APIFailure(.conflict, "account \(r.account) is taken")
            }
            let uid = try tx.accounts.insert(account: r.account, username: username, salt: salt, hash: hash, rounds: rounds,
                                             createdAt: clock.nowMs())
            try tx.accounts.insertToken(hash: Credentials.tokenHash(token), uid: uid, createdAt: clock.nowMs(),
                                        sessionId: Self.newSessionId(), userAgent: Self.userAgent(userAgent))
            return uid
        }
        return AuthResponse(uid: uid, imUid: ConversationIDHelper.imUid(uid), token: token, username: username)
    }

    func login(_ r: LoginRequest, userAgent: String? = nil) throws -> AuthResponse {
        let account = String(r.account.prefix(64))
        let clock = config.clock
        if let waitMs = try limits.loginBlockedFor(account, now: clock.nowMs()) {
            throw APIFailure(.rateLimited, "too many failed logins for this account; try again in a minute",
                             retryAfter: (waitMs + 999) / 1000)
        }
        func failed() -> APIFailure {
            let now = clock.nowMs()
            try? limits.recordLoginFailure(account, now: now)
            return APIFailure(.unauthorized, "wrong account or password")
        }
        guard let user = try storage.read({ tx in try tx.accounts.account(named: r.account) }) else {
            // Same cost as a real check, so timing does not reveal accounts.
            _ = try? Credentials.hashPassword(r.password, salt: Data(count: 16), rounds: max(config.passwordRounds, config.minimumPasswordRounds))
            throw failed()
        }
        let hash = try Credentials.hashPassword(r.password, salt: user.pwSalt, rounds: user.pwRounds)
        guard Credentials.constantTimeEqual(hash, user.pwHash) else { throw failed() }
        let token = Credentials.newToken()
        try storage.write { tx in
            try tx.accounts.insertToken(hash: Credentials.tokenHash(token), uid: user.uid, createdAt: clock.nowMs(),
                                        sessionId: Self.newSessionId(), userAgent: Self.userAgent(userAgent))
        }
        return AuthResponse(uid: user.uid, imUid: ConversationIDHelper.imUid(user.uid), token: token, username: user.username)
    }

    func logout(token: String) throws {
        let hash = Credentials.tokenHash(token)
        try storage.write { tx in try tx.accounts.deleteToken(hash: hash) }
        forget(tokenHash: hash)
    }

    /// A logout or a revoke ended this token (here, or on another node):
    /// it is forgotten and its sockets here close with 4001.
    func forget(tokenHash hash: String) {
        tokenCache.withLock { cache in
            cache.uids.removeValue(forKey: hash)
            cache.generation += 1
        }
        _ = seenWritten.withLock { $0.removeValue(forKey: hash) }
        hub.signOut(tokenHash: hash)
    }

    /// The caller's devices, most recently seen first.
    func sessions(caller: Int, token: String) throws -> [SessionInfo] {
        let current = Credentials.tokenHash(token)
        return try storage.read { tx in try tx.accounts.sessions(uid: caller) }.map { row in
            SessionInfo(sessionId: row.sessionId, createdAt: row.createdAt, lastSeenAt: row.lastSeenAt, userAgent: row.userAgent,
                        current: row.tokenHash == current)
        }
    }

    /// Signs one of the caller's devices out: its token stops working at
    /// once and its sockets close with 4001, on every node.
    func revokeSession(caller: Int, sessionId: String) throws {
        guard !sessionId.isEmpty, sessionId.count <= 64 else { throw APIFailure.invalid("session_id must be 1-64 characters") }
        let hash = try storage.write { tx -> String in
            guard let row = try tx.accounts.session(sessionId, uid: caller) else {
                throw APIFailure.notFound("no session \(sessionId)")
            }
            try tx.accounts.deleteToken(hash: row.tokenHash)
            return row.tokenHash
        }
        forget(tokenHash: hash)
    }

    /// Moves the token's "last seen" on, at most once a minute.
    private func noteSeen(tokenHash hash: String) {
        let now = config.clock.nowMs()
        let due = seenWritten.withLock { seen -> Bool in
            if let last = seen[hash], now - last < Self.seenEveryMs { return false }
            if seen.count >= 100_000 { seen.removeAll(keepingCapacity: true) }
            seen[hash] = now
            return true
        }
        guard due else { return }
        // A device's last-seen time is worth no failed or slower request.
        seenQueue.async { [self] in
            guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
            _ = try? storage.write { tx in try tx.accounts.touchToken(hash: hash, at: now) }
        }
    }

    /// No last-seen write touches the database once this returns (the
    /// server is stopping: the storage closes next).
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        seenQueue.sync {}
    }

    /// Opens or closes (and empties) the token cache.
    func setTokenCache(open: Bool) {
        tokenCache.withLock { cache in
            cache.open = open
            if !open { cache.uids.removeAll() }
            cache.generation += 1
        }
    }

    /// The uid a bearer token belongs to.
    func authenticate(token: String) throws -> Int? {
        guard !token.isEmpty, token.count <= 256 else { return nil }
        let hash = Credentials.tokenHash(token)
        let (cached, generation) = tokenCache.withLock { ($0.open ? $0.uids[hash] : nil, $0.generation) }
        if let cached {
            noteSeen(tokenHash: hash)
            return cached
        }
        let uid = try storage.read { tx in try tx.accounts.uid(forTokenHash: hash) }
        if let uid {
            tokenCache.withLock { cache in
                // A logout (or a closing) happened meanwhile.
                guard cache.open, cache.generation == generation else { return }
                if cache.uids.count >= 100_000 { cache.uids.removeAll(keepingCapacity: true) }
                cache.uids[hash] = uid
            }
            noteSeen(tokenHash: hash)
        }
        return uid
    }

    /// Fixed one-second window per user; `rate_limited` with Retry-After.
    func checkRate(uid: Int) throws {
        let limit = config.rateLimitPerSecond
        guard limit > 0 else { return }
        if try limits.countRequest(uid: uid, second: config.clock.nowMs() / 1000) > limit { throw APIFailure(.rateLimited, "too many requests; slow down", retryAfter: 1) }
    }
}
