import ChatServer
import PostgresNIO

struct PostgresRoomRepository: RoomRepository {
    let conn: PostgresLink

    func insert(name: String, uniqueName: String, topic: String, owner: Int, createdAt: Int) throws -> Int {
        try conn.scalar("""
            INSERT INTO room(name, unique_name, topic, owner_uid, created_at)
            VALUES (\(name), \(uniqueName), \(topic), \(owner), \(createdAt)) RETURNING rid
            """, as: Int.self) ?? 0
    }

    func room(_ rid: Int) throws -> RoomRow? {
        try conn.query("\(unescaped: Self.columns) WHERE rid = \(rid)").first.map(Self.row)
    }

    func room(uniqueName: String) throws -> RoomRow? {
        try conn.query("\(unescaped: Self.columns) WHERE unique_name = \(uniqueName)").first.map(Self.row)
    }

    func update(_ room: RoomRow) throws {
        try conn.execute("""
            UPDATE room SET name = \(room.name), unique_name = \(room.uniqueName), topic = \(room.topic),
                owner_uid = \(room.ownerUid), dropped = \(room.dropped) WHERE rid = \(room.rid)
            """)
    }

    func list(query: String, limit: Int) throws -> [(room: RoomRow, present: Int)] {
        let pattern = "%" + LikePattern.escape(query.lowercased()) + "%"
        return try conn.query("""
            SELECT r.rid, r.name, r.unique_name, r.topic, r.owner_uid, r.created_at, r.dropped,
                   (SELECT COUNT(*) FROM room_presence p WHERE p.rid = r.rid) AS present
            FROM room r
            WHERE NOT r.dropped AND (lower(r.name) LIKE \(pattern) ESCAPE '\\' OR r.unique_name LIKE \(pattern) ESCAPE '\\')
            ORDER BY present DESC, r.rid LIMIT \(limit)
            """).map { row in (room: try Self.row(row), present: try row.makeRandomAccess()[7].decode(Int.self)) }
    }

    func enter(_ rid: Int, uid: Int, at: Int) throws -> Bool {
        let entered = try conn.query("""
            INSERT INTO room_presence(rid, uid, entered_at) VALUES (\(rid), \(uid), \(at)) ON CONFLICT DO NOTHING RETURNING uid
            """).first != nil
        try conn.execute("""
            INSERT INTO room_visit(uid, rid, at) VALUES (\(uid), \(rid), \(at)) ON CONFLICT (uid, rid) DO UPDATE SET at = excluded.at
            """)
        return entered
    }

    func recent(of uid: Int, since: Int, limit: Int) throws -> [RoomRow] {
        try conn.query("""
            SELECT r.rid, r.name, r.unique_name, r.topic, r.owner_uid, r.created_at, r.dropped
            FROM room r LEFT JOIN room_visit v ON v.uid = \(uid) AND v.rid = r.rid
            WHERE NOT r.dropped AND (r.owner_uid = \(uid) OR v.at >= \(since))
            ORDER BY GREATEST(COALESCE(v.at, 0), CASE WHEN r.owner_uid = \(uid) THEN r.created_at ELSE 0 END) DESC, r.rid DESC
            LIMIT \(limit)
            """).map(Self.row)
    }

    func leave(_ rid: Int, uid: Int) throws -> Bool {
        try conn.query("DELETE FROM room_presence WHERE rid = \(rid) AND uid = \(uid) RETURNING uid").first != nil
    }

    func present(_ rid: Int) throws -> [Int] {
        try conn.query("SELECT uid FROM room_presence WHERE rid = \(rid) ORDER BY entered_at, uid").map { try $0.decode(Int.self) }
    }

    func presentCount(_ rid: Int) throws -> Int {
        try conn.scalar("SELECT COUNT(*) FROM room_presence WHERE rid = \(rid)", as: Int.self) ?? 0
    }

    func isPresent(_ rid: Int, uid: Int) throws -> Bool {
        try conn.query("SELECT 1 FROM room_presence WHERE rid = \(rid) AND uid = \(uid)").first != nil
    }

    func rooms(of uid: Int) throws -> [Int] {
        try conn.query("SELECT rid FROM room_presence WHERE uid = \(uid) ORDER BY rid").map { try $0.decode(Int.self) }
    }

    func presentAnywhere() throws -> [Int] {
        try conn.query("SELECT DISTINCT uid FROM room_presence ORDER BY uid").map { try $0.decode(Int.self) }
    }

    func ban(_ rid: Int, uid: Int) throws {
        try conn.execute("INSERT INTO room_ban(rid, uid) VALUES (\(rid), \(uid)) ON CONFLICT DO NOTHING")
    }

    func unban(_ rid: Int, uid: Int) throws -> Bool {
        try conn.query("DELETE FROM room_ban WHERE rid = \(rid) AND uid = \(uid) RETURNING uid").first != nil
    }

    func isBanned(_ rid: Int, uid: Int) throws -> Bool {
        try conn.query("SELECT 1 FROM room_ban WHERE rid = \(rid) AND uid = \(uid)").first != nil
    }

    func bans(_ rid: Int) throws -> [Int] {
        try conn.query("SELECT uid FROM room_ban WHERE rid = \(rid) ORDER BY uid").map { try $0.decode(Int.self) }
    }

    func clearPresence() throws {
        try conn.execute("DELETE FROM room_presence")
    }

    static let columns = "SELECT rid, name, unique_name, topic, owner_uid, created_at, dropped FROM room"

    static func row(_ row: PostgresRow) throws -> RoomRow {
        let r = row.makeRandomAccess()
        return RoomRow(rid: try r[0].decode(Int.self), name: try r[1].decode(String.self), uniqueName: try r[2].decode(String?.self),
                       topic: try r[3].decode(String.self), ownerUid: try r[4].decode(Int.self),
                       createdAt: try r[5].decode(Int.self), dropped: try r[6].decode(Bool.self))
    }
}
