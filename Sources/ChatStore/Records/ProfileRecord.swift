import ChatCore
import GRDB

/// Cached `UserBasicInfo` (seed §五 `UserProfileCache`).
public struct ProfileRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "profile"
    public var uid: Int
    public var username: String
    public var avatar: String
    public var updatedAt: Int
    /// The peer's login name; "" when the server did not say, nil when never asked.
    public var account: String?

    public init(info: UserBasicInfo, updatedAt: Int) {
        uid = info.uid; username = info.username; avatar = info.avatar; self.updatedAt = updatedAt
        account = info.account ?? ""
    }

    public var info: UserBasicInfo {
        UserBasicInfo(uid: uid, username: username, avatar: avatar, account: account.flatMap { $0.isEmpty ? nil : $0 })
    }
}
