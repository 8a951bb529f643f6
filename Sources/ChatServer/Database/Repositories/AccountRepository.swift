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

    func insertToken(hash: String, uid: Int, createdAt: Int) throws
    func deleteToken(hash: String) throws
    func uid(forTokenHash hash: String) throws -> Int?
}
