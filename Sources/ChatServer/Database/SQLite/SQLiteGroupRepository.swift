import GRDB

struct SQLiteGroupRepository: GroupRepository {
    let db: Database

    func insert(name: String, uniqueName: String, notice: String, owner: Int, joinable: Bool, createdAt: Int) throws -> Int {
        try db.cachedStatement(sql: """
            INSERT INTO chat_group(name, uniqueName, notice, ownerUid, joinable, createdAt) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [name, uniqueName, notice, owner, joinable, createdAt])
        return Int(db.lastInsertedRowID)
    }

    func group(_ gid: Int) throws -> GroupRow? {
        try GroupRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_group WHERE gid = ?"), arguments: [gid])
    }

    func group(uniqueName: String) throws -> GroupRow? {
        try GroupRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_group WHERE uniqueName = ?"), arguments: [uniqueName])
    }

    func update(_ group: GroupRow) throws {
        try group.update(db)
    }
}

extension GroupRow: FetchableRecord, PersistableRecord {
    package static let databaseTableName = "chat_group"
}
