import ChatCore
import Foundation
import GRDB

/// Cached peer profiles (seed §五 `UserProfileCache`): names and accounts,
/// so the list names a peer and `--to ACCOUNT` resolves offline.
extension ChatStore {
    public func saveProfiles(_ infos: [UserBasicInfo]) throws {
        try dbPool.write { db in try self.saveProfiles(infos, db: db) }
    }

    func saveProfiles(_ infos: [UserBasicInfo], db: Database) throws {
        let now = Self.nowMs()
        for info in infos {
            try ProfileRecord(info: info, updatedAt: now).save(db)
            try db.cachedStatement(sql: """
                UPDATE conversation SET nickname = ?, avatar = ? WHERE targetUid = ?
                """).execute(arguments: [info.username, info.avatar, info.uid])
        }
    }

    /// Peers of these conversations (all, when nil) whose profile was never
    /// fetched, or fetched before accounts were kept: a stranger's first
    /// message makes a conversation with no name.
    public func peersLackingProfile(conversationIds: Set<String>? = nil) throws -> [Int] {
        try dbPool.read { db in
            let sql = """
                SELECT DISTINCT c.targetUid FROM conversation c LEFT JOIN profile p ON p.uid = c.targetUid
                WHERE c.targetUid > 0 AND (p.uid IS NULL OR p.account IS NULL)
                """
            guard let ids = conversationIds else { return try Int.fetchAll(db, sql: sql + " ORDER BY c.targetUid LIMIT 1000") }
            var uids: [Int] = []
            for id in ids.sorted() {
                uids += try Int.fetchAll(db.cachedStatement(sql: sql + " AND c.id = ?"), arguments: [id])
            }
            return uids
        }
    }

    /// The one-to-one conversations with these peers.
    public func conversationIds(withPeers uids: [Int]) throws -> Set<String> {
        guard !uids.isEmpty else { return [] }
        return try dbPool.read { db in
            Set(try String.fetchAll(db, ConversationRecord.select(Column("id")).filter(uids.contains(Column("targetUid")))))
        }
    }

    /// The peer with this login name, if its profile is cached.
    public func profile(account: String) throws -> UserBasicInfo? {
        try dbPool.read { db in
            try ProfileRecord.filter(Column("account") == account).fetchOne(db)?.info
        }
    }

    public func profiles(uids: [Int]) throws -> [Int: UserBasicInfo] {
        try dbPool.read { db in
            let rows = try ProfileRecord.filter(keys: uids).fetchAll(db)
            return Dictionary(rows.map { ($0.uid, $0.info) }, uniquingKeysWith: { a, _ in a })
        }
    }
}
