import ChatCore
import GRDB

struct SQLitePeopleRepository: PeopleRepository {
    let db: Database

    func friend(_ uid: Int, _ peer: Int) throws -> FriendRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT uid, peerUid, remark, since FROM friend WHERE uid = ? AND peerUid = ?"),
                         arguments: [uid, peer]).map(Self.friend)
    }

    func friends(of uid: Int) throws -> [FriendRow] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT uid, peerUid, remark, since FROM friend WHERE uid = ?"),
                         arguments: [uid]).map(Self.friend)
    }

    func addFriends(_ a: Int, _ b: Int, since: Int) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO friend(uid, peerUid, remark, since) VALUES (?, ?, '', ?)")
        try insert.execute(arguments: [a, b, since])
        try insert.execute(arguments: [b, a, since])
    }

    func removeFriends(_ a: Int, _ b: Int) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM friend WHERE (uid = ?1 AND peerUid = ?2) OR (uid = ?2 AND peerUid = ?1)")
            .execute(arguments: [a, b])
        return db.changesCount > 0
    }

    func setRemark(_ remark: String, uid: Int, peer: Int) throws {
        try db.cachedStatement(sql: "UPDATE friend SET remark = ? WHERE uid = ? AND peerUid = ?").execute(arguments: [remark, uid, peer])
    }

    func request(id: Int) throws -> FriendRequestRow? {
        try Row.fetchOne(db.cachedStatement(sql: "\(Self.requestColumns) WHERE id = ?"), arguments: [id]).flatMap(Self.request)
    }

    func request(from: Int, to: Int) throws -> FriendRequestRow? {
        try Row.fetchOne(db.cachedStatement(sql: "\(Self.requestColumns) WHERE fromUid = ? AND toUid = ?"), arguments: [from, to])
            .flatMap(Self.request)
    }

    func putRequest(from: Int, to: Int, message: String, status: FriendRequestStatus, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: """
            INSERT INTO friend_request(fromUid, toUid, message, status, createdAt) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(fromUid, toUid) DO UPDATE SET message = excluded.message, status = excluded.status,
                createdAt = excluded.createdAt
            """).execute(arguments: [from, to, message, status.rawValue, createdAt])
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT id FROM friend_request WHERE fromUid = ? AND toUid = ?"),
                                arguments: [from, to]) ?? 0
    }

    func setRequestStatus(id: Int, _ status: FriendRequestStatus) throws {
        try db.cachedStatement(sql: "UPDATE friend_request SET status = ? WHERE id = ?").execute(arguments: [status.rawValue, id])
    }

    func pendingRequests(involving uid: Int) throws -> [FriendRequestRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            \(Self.requestColumns) WHERE status = 'pending' AND (fromUid = ?1 OR toUid = ?1) ORDER BY createdAt, id
            """), arguments: [uid]).compactMap(Self.request)
    }

    func blocks(_ uid: Int, _ other: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM block WHERE uid = ? AND blockedUid = ?"), arguments: [uid, other]) != nil
    }

    func block(_ uid: Int, _ other: Int, at: Int) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO block(uid, blockedUid, createdAt) VALUES (?, ?, ?)")
            .execute(arguments: [uid, other, at])
    }

    func unblock(_ uid: Int, _ other: Int) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM block WHERE uid = ? AND blockedUid = ?").execute(arguments: [uid, other])
        return db.changesCount > 0
    }

    func blockers(of uid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: "SELECT uid FROM block WHERE blockedUid = ?"), arguments: [uid])
    }

    func blocked(by uid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: "SELECT blockedUid FROM block WHERE uid = ? ORDER BY createdAt DESC, blockedUid"),
                         arguments: [uid])
    }

    func refuses(receiver: Int, sender: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT 1 WHERE EXISTS (SELECT 1 FROM block WHERE uid = ?1 AND blockedUid = ?2)
                OR (EXISTS (SELECT 1 FROM user WHERE uid = ?1 AND acceptStrangers = 0)
                    AND NOT EXISTS (SELECT 1 FROM friend WHERE uid = ?1 AND peerUid = ?2))
            """), arguments: [receiver, sender]) != nil
    }

    static let requestColumns = "SELECT id, fromUid, toUid, message, status, createdAt FROM friend_request"

    static func friend(_ row: Row) -> FriendRow {
        FriendRow(uid: row[0], peerUid: row[1], remark: row[2], since: row[3])
    }

    static func request(_ row: Row) -> FriendRequestRow? {
        guard let status = FriendRequestStatus(rawValue: row[4]) else { return nil }
        return FriendRequestRow(id: row[0], fromUid: row[1], toUid: row[2], message: row[3], status: status, createdAt: row[5])
    }
}
