import ChatCore
import GRDB

/// A cached `GroupInfo` (PROTOCOL.md "Groups").
struct GroupRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "group_info"
    var groupId: Int
    var name: String
    var uniqueName: String
    var notice: String
    var ownerId: String
    var memberCount: Int
    var joinable: Bool
    var createdAt: Int

    init(_ info: GroupInfo) {
        groupId = info.groupId; name = info.name; uniqueName = info.uniqueName; notice = info.notice
        ownerId = info.ownerId; memberCount = info.memberCount; joinable = info.joinable; createdAt = info.createdAt
    }

    var info: GroupInfo {
        GroupInfo(groupId: groupId, name: name, uniqueName: uniqueName, notice: notice, ownerId: ownerId,
                  memberCount: memberCount, joinable: joinable, createdAt: createdAt)
    }
}

/// A cached member of a group, for `@` completion and the settings screen.
struct GroupMemberRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "group_member"
    var groupId: Int
    var uid: Int
    var username: String
    var role: String
    var joinedAt: Int
    var account: String?

    init(groupId: Int, _ m: GroupMember) {
        self.groupId = groupId; uid = m.uid; username = m.username; role = m.role; joinedAt = m.joinedAt; account = m.account
    }

    var member: GroupMember {
        GroupMember(uid: uid, username: username, role: role, joinedAt: joinedAt, account: account)
    }
}
