import ChatCore
import GRDB

/// A cached `GroupInfo` (PROTOCOL.md "Groups").
public struct GroupRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "group_info"
    public var groupId: Int
    public var name: String
    public var uniqueName: String
    public var notice: String
    public var ownerId: String
    public var memberCount: Int
    public var joinable: Bool
    public var createdAt: Int

    public init(_ info: GroupInfo) {
        groupId = info.groupId; name = info.name; uniqueName = info.uniqueName; notice = info.notice
        ownerId = info.ownerId; memberCount = info.memberCount; joinable = info.joinable; createdAt = info.createdAt
    }

    public var info: GroupInfo {
        GroupInfo(groupId: groupId, name: name, uniqueName: uniqueName, notice: notice, ownerId: ownerId,
                  memberCount: memberCount, joinable: joinable, createdAt: createdAt)
    }
}

/// A cached member of a group, for `@` completion and the settings screen.
public struct GroupMemberRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "group_member"
    public var groupId: Int
    public var uid: Int
    public var username: String
    public var role: String
    public var joinedAt: Int
    public var account: String?

    public init(groupId: Int, _ m: GroupMember) {
        self.groupId = groupId; uid = m.uid; username = m.username; role = m.role; joinedAt = m.joinedAt; account = m.account
    }

    public var member: GroupMember {
        GroupMember(uid: uid, username: username, role: role, joinedAt: joinedAt, account: account)
    }
}
