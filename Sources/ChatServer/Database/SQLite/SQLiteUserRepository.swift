import ChatCore
import GRDB

struct SQLiteUserRepository: UserRepository {
    let db: Database

    func info(uid: Int) throws -> UserBasicInfo? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT uid, username, avatar, account FROM user WHERE uid = ?"), arguments: [uid])
            .map(Self.info)
    }

    func search(prefix: String, excluding excluded: Int, limit: Int) throws -> [UserBasicInfo] {
        // LIKE is case-blind for ASCII; its own wildcards are escaped.
        let pattern = prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT uid, username, avatar, account FROM user
            WHERE uid <> ? AND (account LIKE ? ESCAPE '\\' OR username LIKE ? ESCAPE '\\')
            ORDER BY account LIMIT ?
            """), arguments: [excluded, pattern, pattern, limit]).map(Self.info)
    }

    func setUsername(_ username: String, uid: Int) throws {
        try db.cachedStatement(sql: "UPDATE user SET username = ? WHERE uid = ?").execute(arguments: [username, uid])
    }

    static func info(_ row: Row) -> UserBasicInfo {
        UserBasicInfo(uid: row["uid"], username: row["username"], avatar: row["avatar"], account: row["account"])
    }
}
