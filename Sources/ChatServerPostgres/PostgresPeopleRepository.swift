import ChatServer
import ChatCore
import PostgresNIO

struct PostgresPeopleRepository: PeopleRepository {
    let conn: PostgresLink

    func friend(_ uid: Int, _ peer: Int) throws -> FriendRow? {
        try conn.query("SELECT uid, peer_uid, remark, since FROM friend WHERE uid = \(uid) AND peer_uid = \(peer)")
            .first.map(Self.friend)
    }

    func friends(of uid: Int) throws -> [FriendRow] {
        try conn.query("SELECT uid, peer_uid, remark, since FROM friend WHERE uid = \(uid)").map(Self.friend)
    }

    func addFriends(_ a: Int, _ b: Int, since: Int) throws {
        try conn.execute("""
            INSERT INTO friend(uid, peer_uid, remark, since) VALUES (\(a), \(b), '', \(since)), (\(b), \(a), '', \(since))
            ON CONFLICT DO NOTHING
            """)
    }

    func removeFriends(_ a: Int, _ b: Int) throws -> Bool {
        try conn.scalar("""
            DELETE FROM friend WHERE (uid = \(a) AND peer_uid = \(b)) OR (uid = \(b) AND peer_uid = \(a)) RETURNING 1
            """, as: Int.self) != nil
    }

    func setRemark(_ remark: String, uid: Int, peer: Int) throws {
        try conn.execute("UPDATE friend SET remark = \(remark) WHERE uid = \(uid) AND peer_uid = \(peer)")
    }

    func request(id: Int) throws -> FriendRequestRow? {
        try conn.query("\(unescaped: Self.requestColumns) WHERE id = \(id)").first.flatMap(Self.request)
    }

    func request(from: Int, to: Int) throws -> FriendRequestRow? {
        try conn.query("\(unescaped: Self.requestColumns) WHERE from_uid = \(from) AND to_uid = \(to)").first.flatMap(Self.request)
    }

    func putRequest(from: Int, to: Int, message: String, status: FriendRequestStatus, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO friend_request(from_uid, to_uid, message, status, created_at)
            VALUES (\(from), \(to), \(message), \(status.rawValue), \(createdAt))
            ON CONFLICT (from_uid, to_uid) DO UPDATE SET message = EXCLUDED.message, status = EXCLUDED.status,
                created_at = EXCLUDED.created_at
            RETURNING id
            """, as: Int.self) ?? 0
    }

    func setRequestStatus(id: Int, _ status: FriendRequestStatus) throws {
        try conn.execute("UPDATE friend_request SET status = \(status.rawValue) WHERE id = \(id)")
    }

    func pendingRequests(involving uid: Int) throws -> [FriendRequestRow] {
        try conn.query("""
            \(unescaped: Self.requestColumns) WHERE status = 'pending' AND (from_uid = \(uid) OR to_uid = \(uid))
            ORDER BY created_at, id
            """).compactMap(Self.request)
    }

    func blocks(_ uid: Int, _ other: Int) throws -> Bool {
        try conn.scalar("SELECT 1 FROM block WHERE uid = \(uid) AND blocked_uid = \(other)", as: Int.self) != nil
    }

    func block(_ uid: Int, _ other: Int, at: Int) throws {
        try conn.execute("INSERT INTO block(uid, blocked_uid, created_at) VALUES (\(uid), \(other), \(at)) ON CONFLICT DO NOTHING")
    }

    func unblock(_ uid: Int, _ other: Int) throws -> Bool {
        try conn.scalar("DELETE FROM block WHERE uid = \(uid) AND blocked_uid = \(other) RETURNING 1", as: Int.self) != nil
    }

    func blockers(of uid: Int) throws -> [Int] {
        try conn.query("SELECT uid FROM block WHERE blocked_uid = \(uid)").map { try $0.decode(Int.self) }
    }

    func blocked(by uid: Int) throws -> [Int] {
        try conn.query("SELECT blocked_uid FROM block WHERE uid = \(uid) ORDER BY created_at DESC, blocked_uid")
            .map { try $0.decode(Int.self) }
    }

    func refuses(receiver: Int, sender: Int) throws -> Bool {
        try conn.scalar("""
            SELECT 1 WHERE EXISTS (SELECT 1 FROM block WHERE uid = \(receiver) AND blocked_uid = \(sender))
                OR (EXISTS (SELECT 1 FROM users WHERE uid = \(receiver) AND NOT accept_strangers)
                    AND NOT EXISTS (SELECT 1 FROM friend WHERE uid = \(receiver) AND peer_uid = \(sender)))
            """, as: Int.self) != nil
    }

    static let requestColumns = "SELECT id, from_uid, to_uid, message, status, created_at FROM friend_request"

    static func friend(_ row: PostgresRow) throws -> FriendRow {
        let r = row.makeRandomAccess()
        return FriendRow(uid: try r[0].decode(Int.self), peerUid: try r[1].decode(Int.self), remark: try r[2].decode(String.self),
                         since: try r[3].decode(Int.self))
    }

    static func request(_ row: PostgresRow) throws -> FriendRequestRow? {
        let r = row.makeRandomAccess()
        guard let status = FriendRequestStatus(rawValue: try r[4].decode(String.self)) else { return nil }
        return FriendRequestRow(id: try r[0].decode(Int.self), fromUid: try r[1].decode(Int.self), toUid: try r[2].decode(Int.self),
                                message: try r[3].decode(String.self), status: status, createdAt: try r[5].decode(Int.self))
    }
}
