import GRDB

struct SQLiteRoomRepository: RoomRepository {
    let db: Database

    func insert(name: String, uniqueName: String, topic: String, owner: Int, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO room(name, uniqueName, topic, ownerUid, createdAt) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [name, uniqueName, topic, owner, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func room(_ rid: Int) throws -> RoomRow? {
        try Row.fetchOne(db.cachedStatement(sql: "\(Self.columns) WHERE rid = ?"), arguments: [rid]).map(Self.row)
    }

    func room(uniqueName: String) throws -> RoomRow? {
        try Row.fetchOne(db.cachedStatement(sql: "\(Self.columns) WHERE uniqueName = ?"), arguments: [uniqueName]).map(Self.row)
    }

    func update(_ room: RoomRow) throws {
        try db.cachedStatement(sql: """
            UPDATE room SET name = ?, uniqueName = ?, topic = ?, ownerUid = ?, dropped = ? WHERE rid = ?
            """).execute(arguments: [room.name, room.uniqueName, room.topic, room.ownerUid, room.dropped, room.rid])
    }

    func list(query: String, limit: Int) throws -> [(room: RoomRow, present: Int)] {
        let pattern = "%" + LikePattern.escape(query.lowercased()) + "%"
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.rid, r.name, r.uniqueName, r.topic, r.ownerUid, r.createdAt, r.dropped,
                   (SELECT COUNT(*) FROM room_presence p WHERE p.rid = r.rid) AS present
            FROM room r
            WHERE NOT r.dropped AND (lower(r.name) LIKE ?1 ESCAPE '\\' OR r.uniqueName LIKE ?1 ESCAPE '\\')
            ORDER BY present DESC, r.rid LIMIT ?2
            """), arguments: [pattern, limit]).map { row in (room: Self.row(row), present: row["present"]) }
    }

    func enter(_ rid: Int, uid: Int, at: Int) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO room_presence(rid, uid, enteredAt) VALUES (?, ?, ?)")
            .execute(arguments: [rid, uid, at])
        let entered = db.changesCount > 0
        try db.cachedStatement(sql: """
            INSERT INTO room_visit(uid, rid, at) VALUES (?, ?, ?) ON CONFLICT(uid, rid) DO UPDATE SET at = excluded.at
            """).execute(arguments: [uid, rid, at])
        return entered
    }

    func recent(of uid: Int, since: Int, limit: Int) throws -> [RoomRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.rid, r.name, r.uniqueName, r.topic, r.ownerUid, r.createdAt, r.dropped,
                   MAX(COALESCE((SELECT v.at FROM room_visit v WHERE v.uid = ?1 AND v.rid = r.rid), 0),
                       CASE WHEN r.ownerUid = ?1 THEN r.createdAt ELSE 0 END) AS latest
            FROM room r
            WHERE NOT r.dropped AND (r.ownerUid = ?1
                OR EXISTS (SELECT 1 FROM room_visit v WHERE v.uid = ?1 AND v.rid = r.rid AND v.at >= ?2))
            ORDER BY latest DESC, r.rid DESC LIMIT ?3
            """), arguments: [uid, since, limit]).map(Self.row)
    }

    func leave(_ rid: Int, uid: Int) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM room_presence WHERE rid = ? AND uid = ?").execute(arguments: [rid, uid])
        return db.changesCount > 0
    }

    func present(_ rid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: "SELECT uid FROM room_presence WHERE rid = ? ORDER BY enteredAt, uid"),
                         arguments: [rid])
    }

    func presentCount(_ rid: Int) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM room_presence WHERE rid = ?"), arguments: [rid]) ?? 0
    }

    func isPresent(_ rid: Int, uid: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM room_presence WHERE rid = ? AND uid = ?"), arguments: [rid, uid]) != nil
    }

    func rooms(of uid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: "SELECT rid FROM room_presence WHERE uid = ? ORDER BY rid"), arguments: [uid])
    }

    func presentAnywhere() throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT uid FROM room_presence ORDER BY uid"))
    }

    func ban(_ rid: Int, uid: Int) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO room_ban(rid, uid) VALUES (?, ?)").execute(arguments: [rid, uid])
    }

    func unban(_ rid: Int, uid: Int) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM room_ban WHERE rid = ? AND uid = ?").execute(arguments: [rid, uid])
        return db.changesCount > 0
    }

    func isBanned(_ rid: Int, uid: Int) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM room_ban WHERE rid = ? AND uid = ?"), arguments: [rid, uid]) != nil
    }

    func bans(_ rid: Int) throws -> [Int] {
        try Int.fetchAll(db.cachedStatement(sql: "SELECT uid FROM room_ban WHERE rid = ? ORDER BY uid"), arguments: [rid])
    }

    func clearPresence() throws {
        try db.execute(sql: "DELETE FROM room_presence")
    }

    static let columns = "SELECT rid, name, uniqueName, topic, ownerUid, createdAt, dropped FROM room"

    static func row(_ r: Row) -> RoomRow {
        RoomRow(rid: r[0], name: r[1], uniqueName: r[2], topic: r[3], ownerUid: r[4], createdAt: r[5], dropped: r[6])
    }
}
