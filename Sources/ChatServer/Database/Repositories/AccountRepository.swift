import Foundation

/// An account's sign-in data.
struct AccountRow: Codable, Sendable {
    var uid: Int
    var account: String
    var username: String
    var avatar: String
    var pwSalt: Data
    var pwHash: Data
    var pwRounds: Int
}

/// Accounts and their bearer tokens (stored as hashes only).
protocol AccountRepository {
    func isTaken(account: String) throws -> Bool
    /// Stores a new account (with no avatar); returns its uid.
    func insert(account: String, username: String, salt: Data, hash: Data, rounds: Int, createdAt: Int) throws -> Int
    func account(named account: String) throws -> AccountRow?
    func uid(ofAccount account: String) throws -> Int?

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
struct SessionRow: Sendable {
    var sessionId: String
    var tokenHash: String
    var createdAt: Int
    var lastSeenAt: Int
    var userAgent: String
}
