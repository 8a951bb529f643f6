import ChatCore
import GRDB

/// Cached `UserBasicInfo` (seed §五 `UserProfileCache`).
public struct ProfileRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "profile"
    public var uid: Int
    public var username: String
    public var avatar: String
    public var updatedAt: Int

    public init(info: UserBasicInfo, updatedAt: Int) {
        uid = info.uid; username = info.username; avatar = info.avatar; self.updatedAt = updatedAt
    }

    public var info: UserBasicInfo { UserBasicInfo(uid: uid, username: username, avatar: avatar) }
}
