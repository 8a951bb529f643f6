import ChatCore
import Foundation
import GRDB

/// Cached peer profiles (seed §五 `UserProfileCache`): names and accounts,
/// so the list names a peer and `--to ACCOUNT` resolves offline. Every
/// function runs inside a transaction the caller (``ChatStore``) opened.
enum ProfileTable {
    static func save(_ infos: [UserBasicInfo], db: Database) throws {
        let now = ChatStore.nowMs()
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
    static func peersLackingProfile(conversationIds: Set<String>?, db: Database) throws -> [Int] {
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

    /// The one-to-one conversations with these peers.
    static func conversationIds(withPeers uids: [Int], db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, ConversationRecord.select(Column("id")).filter(uids.contains(Column("targetUid")))))
    }

    static func profile(account: String, db: Database) throws -> UserBasicInfo? {
        try ProfileRecord.filter(Column("account") == account).fetchOne(db)?.info
    }

    static func profiles(uids: [Int], db: Database) throws -> [Int: UserBasicInfo] {
        let rows = try ProfileRecord.filter(keys: uids).fetchAll(db)
        return Dictionary(rows.map { ($0.uid, $0.info) }, uniquingKeysWith: { a, _ in a })
    }
}

/// Groups and their members as last heard from the server, so a group's
/// header, settings and `@` completion work offline. Every function runs
/// inside a transaction the caller (``ChatStore``) opened.
enum GroupTable {
    static func group(id groupId: Int, db: Database) throws -> GroupInfo? {
        try GroupRecord.fetchOne(db, key: groupId)?.info
    }

    /// The group with this unique name or, when only one has it, this name.
    static func group(named name: String, db: Database) throws -> GroupInfo? {
        try GroupRecord.filter(Column("uniqueName") == name).fetchOne(db)?.info
            ?? GroupRecord.filter(Column("name") == name).fetchAll(db).singleElement?.info
    }

    /// Replaces the cached member list of a group (a full `/group/members` walk).
    static func saveMembers(_ members: [GroupMember], groupId: Int, db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM group_member WHERE groupId = ?").execute(arguments: [groupId])
        for m in members { try GroupMemberRecord(groupId: groupId, m).insert(db) }
        try ProfileTable.save(members.map { UserBasicInfo(uid: $0.uid, username: $0.username, account: $0.account) }, db: db)
    }

    /// Members of a group, owner first, then by when they joined.
    static func members(groupId: Int, db: Database) throws -> [GroupMember] {
        try GroupMemberRecord.filter(Column("groupId") == groupId)
            .order(sql: "role = 'owner' DESC, joinedAt, uid").fetchAll(db).map(\.member)
    }

    /// Display names by imUid for the senders of a conversation's messages:
    /// group members first, then cached profiles.
    static func senderNames(groupId: Int, db: Database) throws -> [String: String] {
        var names: [String: String] = [:]
        for p in try ProfileRecord.fetchAll(db.cachedStatement(sql: """
            SELECT p.* FROM profile p JOIN (SELECT DISTINCT sendID FROM message WHERE conversationId = ?) s
            ON s.sendID = 'tb_' || p.uid
            """), arguments: [ConversationIDHelper.group(groupId)]) {
            names[ConversationIDHelper.imUid(p.uid)] = p.username
        }
        for m in try GroupMemberRecord.filter(Column("groupId") == groupId).fetchAll(db) {
            names[ConversationIDHelper.imUid(m.uid)] = m.username
        }
        return names
    }

    /// Senders in this conversation whose name is not cached anywhere.
    static func unnamedSenders(conversationId: String, db: Database) throws -> [Int] {
        try String.fetchAll(db.cachedStatement(sql: """
            SELECT DISTINCT m.sendID FROM message m LEFT JOIN profile p ON m.sendID = 'tb_' || p.uid
            WHERE m.conversationId = ? AND p.uid IS NULL
            """), arguments: [conversationId]).compactMap(ConversationIDHelper.uid(fromImUid:))
    }

    /// The group's info and its conversation row's name and size.
    static func apply(_ info: GroupInfo, me: StoreOwner, db: Database) throws {
        try GroupRecord(info).save(db)
        var conv = try ConversationTable.ensure(id: info.conversationId, nickname: info.name, me: me, db: db)
        conv.nickname = info.name
        conv.groupId = info.groupId
        conv.memberCount = info.memberCount
        try conv.update(db)
    }
}

extension Array {
    var singleElement: Element? { count == 1 ? first : nil }
}
