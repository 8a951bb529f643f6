import ChatCore
import GRDB

/// Groups and their members as last heard from the server, so a group's
/// header, settings and `@` completion work offline.
extension ChatStore {
    public func group(id groupId: Int) throws -> GroupInfo? {
        try dbPool.read { db in try GroupRecord.fetchOne(db, key: groupId)?.info }
    }

    /// The group with this unique name or name, among those cached.
    public func group(named name: String) throws -> GroupInfo? {
        try dbPool.read { db in
            try GroupRecord.filter(Column("uniqueName") == name).fetchOne(db)?.info
                ?? GroupRecord.filter(Column("name") == name).fetchAll(db).singleElement?.info
        }
    }

    public func saveGroup(_ info: GroupInfo) throws {
        try dbPool.write { db in try self.applyGroup(info, db: db) }
    }

    /// Replaces the cached member list of a group (a full `/group/members` walk).
    public func saveMembers(_ members: [GroupMember], groupId: Int) throws {
        try dbPool.write { db in
            try db.cachedStatement(sql: "DELETE FROM group_member WHERE groupId = ?").execute(arguments: [groupId])
            for m in members { try GroupMemberRecord(groupId: groupId, m).insert(db) }
            try self.saveProfiles(members.map { UserBasicInfo(uid: $0.uid, username: $0.username, account: $0.account) }, db: db)
        }
    }

    /// Members of a group, owner first, then by when they joined.
    public func members(groupId: Int) throws -> [GroupMember] {
        try dbPool.read { db in
            try GroupMemberRecord.filter(Column("groupId") == groupId)
                .order(sql: "role = 'owner' DESC, joinedAt, uid").fetchAll(db).map(\.member)
        }
    }

    /// Display names by imUid for the senders of a conversation's messages:
    /// group members first, then cached profiles.
    public func senderNames(groupId: Int) throws -> [String: String] {
        try dbPool.read { db in
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
    }

    /// Senders in this conversation whose name is not cached anywhere.
    public func unnamedSenders(conversationId: String) throws -> [Int] {
        try dbPool.read { db in
            try String.fetchAll(db.cachedStatement(sql: """
                SELECT DISTINCT m.sendID FROM message m LEFT JOIN profile p ON m.sendID = 'tb_' || p.uid
                WHERE m.conversationId = ? AND p.uid IS NULL
                """), arguments: [conversationId]).compactMap(ConversationIDHelper.uid(fromImUid:))
        }
    }

    func applyGroup(_ info: GroupInfo, db: Database) throws {
        try GroupRecord(info).save(db)
        var conv = try ensureConversation(id: info.conversationId, nickname: info.name, avatar: "", db: db)
        conv.nickname = info.name
        conv.groupId = info.groupId
        conv.memberCount = info.memberCount
        try conv.update(db)
    }
}

extension Array {
    var singleElement: Element? { count == 1 ? first : nil }
}
