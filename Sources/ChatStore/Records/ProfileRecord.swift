import ChatCore
import GRDB

/// Cached `UserBasicInfo` (seed §五 `UserProfileCache`).
struct ProfileRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"
    var uid: Int
    var username: String
    var avatar: String
    var updatedAt: Int
    /// The peer's login name; "" when the server did not say, nil when never asked.
    var account: String?

    init(info: UserBasicInfo, updatedAt: Int) {
        uid = info.uid; username = info.username; avatar = info.avatar; self.updatedAt = updatedAt
        account = info.account ?? ""
    }

    var info: UserBasicInfo {
        UserBasicInfo(uid: uid, username: username, avatar: avatar, account: account.flatMap { $0.isEmpty ? nil : $0 })
    }
}
