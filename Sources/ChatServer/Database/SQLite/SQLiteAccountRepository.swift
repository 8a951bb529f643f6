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

    func account(uid: Int) throws -> AccountRow? {
        try AccountRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE uid = ?"), arguments: [uid])
    }

    func setPassword(uid: Int, salt: Data, hash: Data, rounds: Int) throws {
        try db.cachedStatement(sql: "UPDATE user SET pwSalt = ?, pwHash = ?, pwRounds = ? WHERE uid = ?")
            .execute(arguments: [salt, hash, rounds, uid])
    }

    func uid(ofAccount account: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT uid FROM user WHERE account = ?"), arguments: [account])
    }

    func insertToken(hash: String, uid: Int, createdAt: Int, sessionId: String, userAgent: String) throws {
        try db.cachedStatement(sql: """
            INSERT INTO token(hash, uid, createdAt, sessionId, lastSeenAt, userAgent) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [hash, uid, createdAt, sessionId, createdAt, userAgent])
    }

    func deleteToken(hash: String) throws {
        try db.cachedStatement(sql: "DELETE FROM token WHERE hash = ?").execute(arguments: [hash])
    }

    func uid(forTokenHash hash: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT uid FROM token WHERE hash = ?"), arguments: [hash])
    }

    func sessions(uid: Int) throws -> [SessionRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT sessionId, hash, createdAt, lastSeenAt, userAgent FROM token WHERE uid = ? ORDER BY lastSeenAt DESC, createdAt DESC
            """), arguments: [uid]).map(Self.session)
    }

    func session(_ sessionId: String, uid: Int) throws -> SessionRow? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT sessionId, hash, createdAt, lastSeenAt, userAgent FROM token WHERE sessionId = ? AND uid = ?
            """), arguments: [sessionId, uid]).map(Self.session)
    }

    func touchToken(hash: String, at: Int) throws {
        try db.cachedStatement(sql: "UPDATE token SET lastSeenAt = ? WHERE hash = ? AND lastSeenAt < ?")
            .execute(arguments: [at, hash, at])
    }

    static func session(_ row: Row) -> SessionRow {
        SessionRow(sessionId: row[0] ?? "", tokenHash: row[1], createdAt: row[2], lastSeenAt: row[3], userAgent: row[4])
    }
}

extension AccountRow: FetchableRecord {}
