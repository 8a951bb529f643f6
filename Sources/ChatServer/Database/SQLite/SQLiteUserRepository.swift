import ChatCore
import GRDB

struct SQLiteUserRepository: UserRepository {
    let db: Database

    func info(uid: Int) throws -> UserBasicInfo? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT uid, username, avatar, account, signature FROM user WHERE uid = ?"), arguments: [uid])
            .map(Self.info)
    }

    func search(prefix: String, excluding excluded: Int, limit: Int) throws -> [UserBasicInfo] {
        // LIKE is case-blind for ASCII; its own wildcards are escaped.
        let pattern = LikePattern.escape(prefix) + "%"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT uid, username, avatar, account, signature FROM user
            WHERE uid <> ? AND (account LIKE ? ESCAPE '\\' OR username LIKE ? ESCAPE '\\')
            ORDER BY account LIMIT ?
            """), arguments: [excluded, pattern, pattern, limit]).map(Self.info)
    }

    func setUsername(_ username: String, uid: Int) throws {
        try db.cachedStatement(sql: "UPDATE user SET username = ? WHERE uid = ?").execute(arguments: [username, uid])
    }

    func setSignature(_ signature: String, uid: Int) throws {
        try db.cachedStatement(sql: "UPDATE user SET signature = ? WHERE uid = ?").execute(arguments: [signature, uid])
    }

    func setAvatar(_ avatar: String, uid: Int) throws {
        try db.cachedStatement(sql: "UPDATE user SET avatar = ? WHERE uid = ?").execute(arguments: [avatar, uid])
    }

    func settings(uid: Int) throws -> UserSettings {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT acceptStrangers, shareTyping, shareRead FROM user WHERE uid = ?"),
                         arguments: [uid])
            .map { UserSettings(acceptStrangers: $0[0], shareTyping: $0[1], shareRead: $0[2]) } ?? UserSettings()
    }

    func setSettings(_ settings: UserSettings, uid: Int) throws {
        try db.cachedStatement(sql: "UPDATE user SET acceptStrangers = ?, shareTyping = ?, shareRead = ? WHERE uid = ?")
            .execute(arguments: [settings.acceptStrangers, settings.shareTyping, settings.shareRead, uid])
    }

    func isAvatar(_ key: String) throws -> Bool {
        guard !key.isEmpty else { return false }
        return try Int.fetchOne(db.cachedStatement(sql: """
            SELECT 1 WHERE EXISTS (SELECT 1 FROM user WHERE avatar = ?) OR EXISTS (SELECT 1 FROM chat_group WHERE avatar = ?)
            """), arguments: [key, key]) != nil
    }

    static func info(_ row: Row) -> UserBasicInfo {
        UserBasicInfo(uid: row["uid"], username: row["username"], avatar: row["avatar"], account: row["account"],
                      signature: row["signature"])
    }
}
