import ChatCore
import Foundation
import Synchronization

/// Accounts, sign-up and sign-in (limited per client address and per
/// account and address, hashed on a pool of their own), bearer tokens and
/// the per-user request rate.
package final class AuthService: Sendable {
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
    /// Where passwords are hashed for requests.
    let hasher: PasswordHasher
    /// Sign-ins being checked per address (`beginChecking`).
    private let checking = Mutex<[String: Int]>([:])
    let syncLog: SyncLogService
    let notices: CommitNotifier
    /// A session that ends takes its secret-chat keys with it.
    let keys: KeyService

    /// `tokenCacheOpen`: false on a cluster's node until its listener hears
    /// other nodes' logouts (`setTokenCache(open:)`).
    init(storage: any ChatStorage, config: ServerConfig, limits: any SharedLimits, hub: PushHub, syncLog: SyncLogService,
         notices: CommitNotifier, keys: KeyService, tokenCacheOpen: Bool = true) {
        self.keys = keys
        self.syncLog = syncLog
        self.notices = notices
        hasher = PasswordHasher(threads: config.limits.hashThreads, queue: config.limits.hashQueue)
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

    /// `/auth/register` from `address`: counted per address (every answer
    /// counts), hashed on the hashing pool.
    func register(_ r: RegisterRequest, userAgent: String?, address: String) async throws -> AuthResponse {
        let limits = config.limits
        let key = "signup|" + address
        let now = config.clock.nowMs()
        if let waitMs = try self.limits.blockedFor(key, limit: limits.signUpsPerHour, windowMs: 3_600_000, now: now) {
            try await refuse(APIFailure(.rateLimited, "too many sign-ups from your address; try again later",
                                        retryAfter: (waitMs + 999) / 1000))
        }
        try self.limits.record(key, limit: limits.signUpsPerHour, windowMs: 3_600_000, now: now)
        let checked = try Self.checkRegistration(r)
        let salt = Self.newSalt()
        let rounds = passwordRounds
        let password = r.password
        let hash = try await hasher.run { try Credentials.hashPassword(password, salt: salt, rounds: rounds) }
        return try createAccount(r.account, username: checked, salt: salt, hash: hash, rounds: rounds, userAgent: userAgent)
    }

    /// An account the server makes itself (the demo, in-process tests),
    /// hashed on the calling thread. `seeded` skips the 3-character
    /// minimum: the demo's `me` account (PROTOCOL.md's rule binds `/auth/register`).
    func register(_ r: RegisterRequest, seeded: Bool = false) throws -> AuthResponse {
        let username = try Self.checkRegistration(r, seeded: seeded)
        let salt = Self.newSalt()
        let hash = try Credentials.hashPassword(r.password, salt: salt, rounds: passwordRounds)
        // The session it makes is listed among the account's devices: it says what made it.
        return try createAccount(r.account, username: username, salt: salt, hash: hash, rounds: passwordRounds,
                                 userAgent: "tongban-server (made at start)")
    }

    /// The display name a valid registration asks for.
    private static func checkRegistration(_ r: RegisterRequest, seeded: Bool = false) throws -> String {
        guard r.account.wholeMatch(of: Self.accountPattern) != nil || (seeded && r.account == "me") else {
            throw APIFailure.invalid("account must be 3-32 characters of a-z, 0-9 and _")
        }
        try checkPassword(r.password)
        let username = (r.username?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : $0 } ?? r.account
        guard username.count <= 64 else { throw APIFailure.invalid("username must be at most 64 characters") }
        return username
    }

    private static func checkPassword(_ password: String) throws {
        guard (8...128).contains(password.count) else { throw APIFailure.invalid("password must be 8-128 characters") }
    }

    private static func newSalt() -> Data { Data((0..<16).map { _ in UInt8.random(in: 0...255) }) }

    private var passwordRounds: Int { max(config.passwordRounds, config.minimumPasswordRounds) }

    private func createAccount(_ account: String, username: String, salt: Data, hash: Data, rounds: Int,
                               userAgent: String?) throws -> AuthResponse {
        let token = Credentials.newToken()
        let sessionId = Self.newSessionId()
        let clock = config.clock
        let uid: Int = try storage.write { tx in
            if try tx.accounts.isTaken(account: account) {
                throw APIFailure(.conflict, "account \(account) is taken")
            }
            let uid = try tx.accounts.insert(account: account, username: username, salt: salt, hash: hash, rounds: rounds,
                                             createdAt: clock.nowMs())
            try tx.accounts.insertToken(hash: Credentials.tokenHash(token), uid: uid, createdAt: clock.nowMs(),
                                        sessionId: sessionId, userAgent: Self.userAgent(userAgent))
            return uid
        }
        return AuthResponse(uid: uid, imUid: ConversationIDHelper.imUid(uid), token: token, username: username, sessionId: sessionId)
    }

    /// `/auth/login` from `address`. Failures are counted per address and
    /// per (account, address), so guessing from one place is slowed and
    /// nobody elsewhere can lock the account's owner out. Every other
    /// session of the account hears of a new one (`new_login`).
    func login(_ r: LoginRequest, userAgent: String?, address: String) async throws -> AuthResponse {
        let account = String(r.account.prefix(64))
        let limits = config.limits
        let clock = config.clock
        let addressKey = "signin|" + address
        let accountKey = "login|" + address + "|" + account
        // Sign-ins still being checked count as failures until they are
        // known, and one address has at most two per hashing thread checked
        // at once: a flood from a few addresses cannot fill the hashing
        // queue for everyone else, and the rest of it waits for its 429.
        let perAddress = limits.failedSignInsPerMinute
        let atOnce = perAddress > 0 ? min(perAddress, 2 * max(1, limits.hashThreads)) : Int.max
        guard let checking = beginChecking(addressKey, atMost: atOnce) else {
            try await refuse(APIFailure(.rateLimited, "too many sign-ins from your address at once; try again in a moment",
                                        retryAfter: 1))
        }
        defer { endChecking(addressKey) }
        if let waitMs = try self.limits.blockedFor(addressKey, limit: perAddress - checking, windowMs: Self.loginWindowMs,
                                                   now: clock.nowMs()) {
            try await refuse(APIFailure(.rateLimited, "too many failed sign-ins from your address; try again in a minute",
                                        retryAfter: (waitMs + 999) / 1000))
        }
        if let waitMs = try self.limits.blockedFor(accountKey, limit: limits.failedLoginsPerAccount, windowMs: Self.loginWindowMs,
                                                   now: clock.nowMs()) {
            try await refuse(APIFailure(.rateLimited, "too many failed logins for this account; try again in a minute",
                                        retryAfter: (waitMs + 999) / 1000))
        }
        let user = try storage.read { tx in try tx.accounts.account(named: r.account) }
        let password = r.password
        // An unknown account costs a hash too, so timing does not reveal accounts.
        let (salt, rounds) = user.map { ($0.pwSalt, $0.pwRounds) } ?? (Data(count: 16), passwordRounds)
        let hash = try await hasher.run { try Credentials.hashPassword(password, salt: salt, rounds: rounds) }
        guard let user, Credentials.constantTimeEqual(hash, user.pwHash) else {
            let now = clock.nowMs()
            try? self.limits.record(addressKey, limit: limits.failedSignInsPerMinute, windowMs: Self.loginWindowMs, now: now)
            try? self.limits.record(accountKey, limit: limits.failedLoginsPerAccount, windowMs: Self.loginWindowMs, now: now)
            throw APIFailure(.unauthorized, "wrong account or password")
        }
        let token = Credentials.newToken()
        let session = NewLoginSession(sessionId: Self.newSessionId(), userAgent: Self.userAgent(userAgent), createdAt: clock.nowMs())
        let cursor = try storage.write { tx in
            try tx.accounts.insertToken(hash: Credentials.tokenHash(token), uid: user.uid, createdAt: session.createdAt,
                                        sessionId: session.sessionId, userAgent: session.userAgent)
            return try syncLog.append(.newLogin(session), to: user.uid, in: tx)
        }
        notices.committed([user.uid: cursor])
        return AuthResponse(uid: user.uid, imUid: ConversationIDHelper.imUid(user.uid), token: token, username: user.username,
                            sessionId: session.sessionId)
    }

    /// Counts a sign-in from `key`'s address as being checked, unless
    /// `atMost` are already; returns how many were before it (node-local).
    private func beginChecking(_ key: String, atMost: Int) -> Int? {
        checking.withLock { table in
            let before = table[key] ?? 0
            guard before < atMost else { return nil }
            table[key] = before + 1
            return before
        }
    }

    private func endChecking(_ key: String) {
        checking.withLock { table in
            let left = (table[key] ?? 1) - 1
            table[key] = left > 0 ? left : nil
        }
    }

    /// Answers a refusal of an address that is over its limit after
    /// `refusalDelayMs`: a client that keeps asking (a flood ignoring
    /// Retry-After) gets its answers at that pace, costing the server a
    /// sleeping task per connection instead of a request each time it asks.
    private func refuse(_ failure: APIFailure) async throws -> Never {
        let delay = config.limits.refusalDelayMs
        if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
        throw failure
    }

    /// `/auth/password`: the caller proves the old password and sets a new
    /// one; every other session of the account is signed out (their sockets
    /// close with 4001), the caller's own stays. A wrong old password counts
    /// as a failed sign-in of the account from `address`: a stolen token
    /// guesses no faster here than at `/auth/login`.
    func changePassword(caller: Int, token: String, _ r: ChangePasswordRequest, address: String) async throws {
        try Self.checkPassword(r.new)
        guard let user = try storage.read({ tx in try tx.accounts.account(uid: caller) }) else { throw APIFailure.unauthorized }
        let accountKey = "login|" + address + "|" + user.account
        let perAccount = config.limits.failedLoginsPerAccount
        if let waitMs = try limits.blockedFor(accountKey, limit: perAccount, windowMs: Self.loginWindowMs, now: config.clock.nowMs()) {
            try await refuse(APIFailure(.rateLimited, "too many wrong passwords for this account; try again in a minute",
                                        retryAfter: (waitMs + 999) / 1000))
        }
        let old = r.old, new = r.new
        let salt = Self.newSalt(), rounds = passwordRounds
        let (oldHash, newHash) = try await hasher.run {
            (try Credentials.hashPassword(old, salt: user.pwSalt, rounds: user.pwRounds),
             try Credentials.hashPassword(new, salt: salt, rounds: rounds))
        }
        guard Credentials.constantTimeEqual(oldHash, user.pwHash) else {
            try? limits.record(accountKey, limit: perAccount, windowMs: Self.loginWindowMs, now: config.clock.nowMs())
            throw APIFailure(.unauthorized, "the current password is wrong")
        }
        let mine = Credentials.tokenHash(token)
        let (ended, cursors) = try storage.write { tx -> ([String], [Int: Int]) in
            try tx.accounts.setPassword(uid: caller, salt: salt, hash: newHash, rounds: rounds)
            var ended: [String] = [], cursors: [Int: Int] = [:]
            for session in try tx.accounts.sessions(uid: caller) where session.tokenHash != mine {
                try tx.accounts.deleteToken(hash: session.tokenHash)
                cursors.merge(try self.keys.sessionEnded(uid: caller, sessionId: session.sessionId, in: tx)) { max($0, $1) }
                ended.append(session.tokenHash)
            }
            return (ended, cursors)
        }
        notices.committed(cursors)
        for hash in ended { forget(tokenHash: hash) }
    }

    func logout(token: String) throws {
        let hash = Credentials.tokenHash(token)
        let cursors = try storage.write { tx -> [Int: Int] in
            guard let uid = try tx.accounts.uid(forTokenHash: hash) else { return [:] }
            let session = try tx.accounts.sessions(uid: uid).first { $0.tokenHash == hash }
            try tx.accounts.deleteToken(hash: hash)
            return try session.map { try self.keys.sessionEnded(uid: uid, sessionId: $0.sessionId, in: tx) } ?? [:]
        }
        notices.committed(cursors)
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
        let (hash, cursors) = try storage.write { tx -> (String, [Int: Int]) in
            guard let row = try tx.accounts.session(sessionId, uid: caller) else {
                throw APIFailure.notFound("no session \(sessionId)")
            }
            try tx.accounts.deleteToken(hash: row.tokenHash)
            return (row.tokenHash, try self.keys.sessionEnded(uid: caller, sessionId: sessionId, in: tx))
        }
        notices.committed(cursors)
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
        hasher.stop()
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

    /// Each user's token bucket (PROTOCOL.md v4: 50 a second, bursts of
    /// 100 by default); `rate_limited` with Retry-After.
    func checkRate(uid: Int) throws {
        let limits = config.limits
        guard limits.requestsPerSecond > 0 else { return }
        guard try self.limits.takeRequest(uid: uid, perSecond: limits.requestsPerSecond,
                                          burst: max(limits.requestBurst, 1), now: config.clock.nowMs()) else {
            throw APIFailure(.rateLimited, "too many requests; slow down", retryAfter: 1)
        }
    }
}
