import Foundation
import GRDB

struct SQLiteAccountRepository: AccountRepository {
    let db: Database

    func isTaken(account: String) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM user WHERE account = ?"), arguments: [account]) != nil
    }

    func insert(account: String, username: String, salt: Data, hash: Data, rounds: Int, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: """
            INSERT INTO user(account, username, avatar, pwSalt, pwHash, pwRounds, createdAt) VALUES (?, ?, '', ?, ?, ?, ?)
            """).execute(arguments: [account, username, salt, hash, rounds, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func account(named account: String) throws -> AccountRow? {
        try AccountRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE account = ?"), arguments: [account])
    }

    func uid(ofAccount account: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT uid FROM user WHERE account = ?"), arguments: [account])
    }

    func insertToken(hash: String, uid: Int, createdAt: Int) throws {
        try db.cachedStatement(sql: "INSERT INTO token(hash, uid, createdAt) VALUES (?, ?, ?)").execute(arguments: [hash, uid, createdAt])
    }

    func deleteToken(hash: String) throws {
        try db.cachedStatement(sql: "DELETE FROM token WHERE hash = ?").execute(arguments: [hash])
    }

    func uid(forTokenHash hash: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT uid FROM token WHERE hash = ?"), arguments: [hash])
    }
}

extension AccountRow: FetchableRecord {}
