import ChatCore
import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import _CryptoExtras

extension ChatService {
    // MARK: - Accounts

    static var accountPattern: Regex<Substring> { /^[a-z0-9_]{3,32}$/ }

    /// `seeded` skips the 3-character minimum: the demo's `me` account is
    /// made by the server itself (PROTOCOL.md's rule binds `/auth/register`).
    public func register(_ r: RegisterRequest, seeded: Bool = false) throws -> AuthResponse {
        guard r.account.wholeMatch(of: Self.accountPattern) != nil || (seeded && r.account == "me") else {
            throw APIFailure.invalid("account must be 3-32 characters of a-z, 0-9 and _")
        }
        guard (8...128).contains(r.password.count) else { throw APIFailure.invalid("password must be 8-128 characters") }
        let username = (r.username?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : $0 } ?? r.account
        guard username.count <= 64 else { throw APIFailure.invalid("username must be at most 64 characters") }
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let rounds = max(config.passwordRounds, 100_000)
        let hash = try Self.hashPassword(r.password, salt: salt, rounds: rounds)
        let token = Self.newToken()
        let uid: Int = try db.write { db in
            if try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM user WHERE account = ?"), arguments: [r.account]) != nil {
                throw APIFailure(.conflict, "account \(r.account) is taken")
            }
            try db.cachedStatement(sql: """
                INSERT INTO user(account, username, avatar, pwSalt, pwHash, pwRounds, createdAt) VALUES (?, ?, '', ?, ?, ?, ?)
                """).execute(arguments: [r.account, username, salt, hash, rounds, nowMs()])
            let uid = Int(db.lastInsertedRowID)
            try db.cachedStatement(sql: "INSERT INTO token(hash, uid, createdAt) VALUES (?, ?, ?)").execute(arguments: [Self.tokenHash(token), uid, nowMs()])
            return uid
        }
        return AuthResponse(uid: uid, imUid: ConversationIDHelper.imUid(uid), token: token, username: username)
    }

    static let maxLoginFailures = 10

    public func login(_ r: LoginRequest) throws -> AuthResponse {
        let account = String(r.account.prefix(64))
        if let waitMs = loginThrottle.withLock({ $0.blockedFor(account, now: nowMs()) }) {
            throw APIFailure(.rateLimited, "too many failed logins for this account; try again in a minute",
                             retryAfter: (waitMs + 999) / 1000)
        }
        func failed() -> APIFailure {
            let now = nowMs()
            loginThrottle.withLock { $0.recordFailure(account, now: now) }
            return APIFailure(.unauthorized, "wrong account or password")
        }
        guard let user = try db.read({ db in
            try UserRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE account = ?"), arguments: [r.account])
        }) else {
            // Same cost as a real check, so timing does not reveal accounts.
            _ = try? Self.hashPassword(r.password, salt: Data(count: 16), rounds: max(config.passwordRounds, 100_000))
            throw failed()
        }
        let hash = try Self.hashPassword(r.password, salt: user.pwSalt, rounds: user.pwRounds)
        guard Self.constantTimeEqual(hash, user.pwHash) else { throw failed() }
        let token = Self.newToken()
        try db.write { db in
            try db.cachedStatement(sql: "INSERT INTO token(hash, uid, createdAt) VALUES (?, ?, ?)").execute(arguments: [Self.tokenHash(token), user.uid, nowMs()])
        }
        return AuthResponse(uid: user.uid, imUid: ConversationIDHelper.imUid(user.uid), token: token, username: user.username)
    }

    public func logout(token: String) throws {
        let hash = Self.tokenHash(token)
        try db.write { db in
            try db.cachedStatement(sql: "DELETE FROM token WHERE hash = ?").execute(arguments: [hash])
        }
        tokenCache.withLock { cache in
            cache.uids.removeValue(forKey: hash)
            cache.generation += 1
        }
    }

    /// The uid a bearer token belongs to.
    public func authenticate(token: String) throws -> Int? {
        guard !token.isEmpty, token.count <= 256 else { return nil }
        let hash = Self.tokenHash(token)
        let (cached, generation) = tokenCache.withLock { ($0.uids[hash], $0.generation) }
        if let cached { return cached }
        let uid = try db.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT uid FROM token WHERE hash = ?"), arguments: [hash])
        }
        if let uid {
            tokenCache.withLock { cache in
                guard cache.generation == generation else { return }  // a logout happened meanwhile
                if cache.uids.count >= 100_000 { cache.uids.removeAll(keepingCapacity: true) }
                cache.uids[hash] = uid
            }
        }
        return uid
    }

    /// Fixed one-second window per user; `rate_limited` with Retry-After.
    func checkRate(uid: Int) throws {
        let limit = config.rateLimitPerSecond
        guard limit > 0 else { return }
        let now = nowS()
        let allowed = rate.withLock { table -> Bool in
            var entry = table[uid] ?? (now, 0)
            if entry.second != now { entry = (now, 0) }
            entry.count += 1
            table[uid] = entry
            if table.count > 10_000 { table = table.filter { $0.value.second == now } }
            return entry.count <= limit
        }
        if !allowed { throw APIFailure(.rateLimited, "too many requests; slow down", retryAfter: 1) }
    }

    static func hashPassword(_ password: String, salt: Data, rounds: Int) throws -> Data {
        // The checked API insists on 210,000; rounds below 100,000 are refused above.
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Data(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: 32, unsafeUncheckedRounds: max(rounds, 100_000))
        return key.withUnsafeBytes { Data($0) }
    }

    static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }

    static func tokenHash(_ token: String) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }
}
