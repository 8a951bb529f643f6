import Foundation

/// An account's sign-in data.
package struct AccountRow: Codable, Sendable {
    package var uid: Int
    package var account: String
    package var username: String
    package var avatar: String
    package var pwSalt: Data
    package var pwHash: Data
    package var pwRounds: Int

    package init(uid: Int, account: String, username: String, avatar: String, pwSalt: Data, pwHash: Data, pwRounds: Int) {
        self.uid = uid; self.account = account; self.username = username; self.avatar = avatar; self.pwSalt = pwSalt; self.pwHash = pwHash; self.pwRounds = pwRounds
    }
}

/// Accounts and their bearer tokens (stored as hashes only).
package protocol AccountRepository {
    func isTaken(account: String) throws -> Bool
    /// Stores a new account (with no avatar); returns its uid.
    func insert(account: String, username: String, salt: Data, hash: Data, rounds: Int, createdAt: Int) throws -> Int
    func account(named account: String) throws -> AccountRow?
    func uid(ofAccount account: String) throws -> Int?
    func account(uid: Int) throws -> AccountRow?
    /// v4: a new password (`/auth/password`).
    func setPassword(uid: Int, salt: Data, hash: Data, rounds: Int) throws

    /// A new token: one device's session (`sessionId` is how the user names it).
    func insertToken(hash: String, uid: Int, createdAt: Int, sessionId: String, userAgent: String) throws
    /// Ends a token; every node forgets it (PostgreSQL tells them at the commit).
    func deleteToken(hash: String) throws
    func uid(forTokenHash hash: String) throws -> Int?
    /// `uid`'s sessions, most recently seen first.
    func sessions(uid: Int) throws -> [SessionRow]
    func session(_ sessionId: String, uid: Int) throws -> SessionRow?
    /// Notes that the token was used at `at`.
    func touchToken(hash: String, at: Int) throws
}

/// One signed-in device: a token, by the id its user sees.
package struct SessionRow: Sendable {
    package var sessionId: String
    package var tokenHash: String
    package var createdAt: Int
    package var lastSeenAt: Int
    package var userAgent: String

    package init(sessionId: String, tokenHash: String, createdAt: Int, lastSeenAt: Int, userAgent: String) {
        self.sessionId = sessionId; self.tokenHash = tokenHash; self.createdAt = createdAt; self.lastSeenAt = lastSeenAt; self.userAgent = userAgent
    }
}
